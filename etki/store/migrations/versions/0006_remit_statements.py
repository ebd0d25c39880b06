"""The remit, proposed at setup (issue 29 item 5): one new table, nothing existing
changes.

* ``remit_statements`` — contract sentences a PMO accepted as outside the contractor's
  remit (``etki remit accept``), one row each; a revoked one keeps its row with who,
  when and why. Changes are audited in ``project_audit`` (action ``remit``).

Revision ID: 0006
Revises: 0005
Create Date: 2027-01-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "remit_statements",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("source_ref", sa.String(length=300), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("accepted_by", sa.Text(), nullable=False),
        sa.Column("accepted_at", sa.String(length=20), nullable=False),
        sa.Column("revoked_by", sa.Text(), nullable=True),
        sa.Column("revoked_at", sa.String(length=20), nullable=True),
        sa.Column("revoked_reason", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("project_id", "number", name="uq_remit_number"),
    )
    op.create_index(
        "ix_remit_statements_project_id", "remit_statements", ["project_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_remit_statements_project_id", table_name="remit_statements")
    op.drop_table("remit_statements")
