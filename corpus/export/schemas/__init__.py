"""JSON schemas of the export formats' lines (package data)."""
