"""One thin router per resource."""
