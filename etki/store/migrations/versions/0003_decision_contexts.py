"""The related-context block of a decision (issue 5, item 6): a new table
``decision_contexts`` (case id -> context JSON), written once with each new decision.
Existing rows of other tables are untouched; cases stored earlier simply have none.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "decision_contexts",
        sa.Column("case_id", sa.String(length=120), nullable=False),
        sa.Column("context_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(length=20), nullable=False),
        sa.ForeignKeyConstraint(["case_id"], ["cases.id"]),
        sa.PrimaryKeyConstraint("case_id"),
    )


def downgrade() -> None:
    op.drop_table("decision_contexts")
