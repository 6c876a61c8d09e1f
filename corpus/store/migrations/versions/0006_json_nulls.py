"""json nulls: absent JSON values are SQL NULL

Earlier versions stored Python's None in JSON columns as the JSON value `null`, which
`IS NULL` does not match: a failed model call (messages, no response) then reached the
fine-tuning exports as a sample without an answer. The type now writes SQL NULL; this turns
the values already stored into it too.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NULLABLE_JSON = {
    "steps": ("messages", "response", "sampling", "tools", "arguments", "result"),
    "tasks": ("tests", "options"),
    "eval_runs": ("problems",),
    "eval_results": ("call",),
}


def upgrade() -> None:
    bind = op.get_bind()
    # JSONB compares with the literal as JSON; SQLite's JSON is the serialised text.
    null = "'null'::jsonb" if bind.dialect.name == "postgresql" else "'null'"
    for table, columns in _NULLABLE_JSON.items():
        for column in columns:
            op.execute(sa.text(f"UPDATE {table} SET {column} = NULL WHERE {column} = {null}"))


def downgrade() -> None:
    # SQL NULL reads back as None just as JSON null did: nothing to undo.
    pass
