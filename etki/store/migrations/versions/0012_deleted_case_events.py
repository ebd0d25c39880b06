"""A deleted project's cases keep their history (issue 35 item 6).

``deleted_case_events``: the events of each case of a project deleted by ``etki project
delete``, written in the deletion's transaction (:class:`etki.store.models.
DeletedCaseEventRow`): a copy of the case's ``case_events`` rows and the ``imported`` /
``triaged`` events its case and decision rows stood for. ``etki show`` of such a case
read only its audit rows before. Nothing is filled here: a project deleted before 0012
took its events with it, and its cases read as they did (their audit rows).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deleted_case_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("case_id", sa.String(length=120), nullable=False),
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("at", sa.String(length=20), nullable=False),
        sa.Column("until", sa.String(length=20), nullable=True),
        sa.Column("os_user", sa.Text(), nullable=True),
        sa.Column("host", sa.Text(), nullable=True),
        sa.Column("pid", sa.Integer(), nullable=True),
        sa.Column("program", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_deleted_case_events_case_id", "deleted_case_events", ["case_id"], unique=False
    )
    op.create_index(
        "ix_deleted_case_events_project_id", "deleted_case_events", ["project_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_deleted_case_events_project_id", table_name="deleted_case_events")
    op.drop_index("ix_deleted_case_events_case_id", table_name="deleted_case_events")
    op.drop_table("deleted_case_events")
