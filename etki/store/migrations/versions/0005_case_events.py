"""The PMO's workflow (issue 14): three new append-only tables, nothing existing
changes.

* ``case_events`` — a case's events other than rulings: imported, viewed, note, claim,
  release (rulings and erasures stay in ``audit_log``);
* ``clause_resolutions`` — a person's resolution of a disputed clause;
* ``preanalyses`` — saved language-model pre-analyses of a case.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None


def _identity() -> list[sa.Column]:
    return [
        sa.Column("os_user", sa.Text(), nullable=True),
        sa.Column("host", sa.Text(), nullable=True),
        sa.Column("pid", sa.Integer(), nullable=True),
        sa.Column("program", sa.Text(), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        "case_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("case_id", sa.String(length=120), nullable=False),
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("at", sa.String(length=20), nullable=False),
        sa.Column("until", sa.String(length=20), nullable=True),
        *_identity(),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_case_events_case_id", "case_events", ["case_id"], unique=False)
    op.create_index("ix_case_events_project_id", "case_events", ["project_id"], unique=False)
    op.create_table(
        "clause_resolutions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("clause_ref", sa.String(length=200), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("reviewer", sa.Text(), nullable=False),
        sa.Column("at", sa.String(length=20), nullable=False),
        *_identity(),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_clause_resolutions_project_id", "clause_resolutions", ["project_id"], unique=False
    )
    op.create_index(
        "ix_clause_resolutions_clause_ref", "clause_resolutions", ["clause_ref"], unique=False
    )
    op.create_table(
        "preanalyses",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("case_id", sa.String(length=120), nullable=False),
        sa.Column("model", sa.Text(), nullable=False),
        sa.Column("prompt_version", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("body_json", sa.Text(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(length=20), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_preanalyses_case_id", "preanalyses", ["case_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_preanalyses_case_id", table_name="preanalyses")
    op.drop_table("preanalyses")
    op.drop_index("ix_clause_resolutions_clause_ref", table_name="clause_resolutions")
    op.drop_index("ix_clause_resolutions_project_id", table_name="clause_resolutions")
    op.drop_table("clause_resolutions")
    op.drop_index("ix_case_events_project_id", table_name="case_events")
    op.drop_index("ix_case_events_case_id", table_name="case_events")
    op.drop_table("case_events")
