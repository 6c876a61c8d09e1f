"""tasks: the agent that runs them; job status columns wide enough for no_verified_candidate

Revision ID: 0003
Revises: 0002
Create Date: 2026-01-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATUS_TABLES = ("tasks", "runs", "eval_runs")


def upgrade() -> None:
    for table in STATUS_TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column(
                "status",
                existing_type=sa.String(length=16),
                type_=sa.String(length=32),
                existing_nullable=False,
            )
            if table == "tasks":
                batch_op.add_column(sa.Column("agent", sa.String(length=32), nullable=True))


def downgrade() -> None:
    for table in STATUS_TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            if table == "tasks":
                batch_op.drop_column("agent")
            batch_op.alter_column(
                "status",
                existing_type=sa.String(length=32),
                type_=sa.String(length=16),
                existing_nullable=False,
            )
