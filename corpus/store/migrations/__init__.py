"""Alembic migration environment and revisions of the store's schema."""
