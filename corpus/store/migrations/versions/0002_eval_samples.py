"""eval samples: run options and progress, per-sample problem type and model call

Revision ID: 0002
Revises: 0001
Create Date: 2026-01-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("eval_runs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("timing", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch_op.add_column(
            sa.Column("options", JSON, nullable=False, server_default=sa.text("'{}'"))
        )
        batch_op.add_column(
            sa.Column("progress", JSON, nullable=False, server_default=sa.text("'{}'"))
        )
    with op.batch_alter_table("eval_results", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("problem_type", sa.String(length=100), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("call", JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("eval_results", schema=None) as batch_op:
        batch_op.drop_column("call")
        batch_op.drop_column("problem_type")
    with op.batch_alter_table("eval_runs", schema=None) as batch_op:
        batch_op.drop_column("progress")
        batch_op.drop_column("options")
        batch_op.drop_column("timing")
