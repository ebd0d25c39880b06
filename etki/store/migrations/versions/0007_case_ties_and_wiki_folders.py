"""Erasure that nothing races past (issue 30 items 1 and 2).

* ``case_events.case_id`` and ``preanalyses.case_id`` become foreign keys to
  ``cases.id``: a note, view, claim or pre-analysis can no longer be written for a case
  an erasure removed (the erasure deletes them with the case). Rows that already point
  at no case (left by an erasure before this revision, or written while one ran) are
  deleted first: they are what the erasure failed to remove.
* ``wiki_folders`` — every wiki folder a projection of a project wrote into (project,
  resolved absolute path), so an erasure removes the case's pages from each of them
  whatever ``ETKI_WIKI_DIR`` it runs with.

Revision ID: 0007
Revises: 0006
Create Date: 2027-01-12
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None

_TIES = (("case_events", "fk_case_events_case_id"), ("preanalyses", "fk_preanalyses_case_id"))


def upgrade() -> None:
    for table, name in _TIES:
        op.execute(f"DELETE FROM {table} WHERE case_id NOT IN (SELECT id FROM cases)")
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(name, "cases", ["case_id"], ["id"])
    op.create_table(
        "wiki_folders",
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("first_at", sa.String(length=20), nullable=False),
        sa.PrimaryKeyConstraint("project_id", "path"),
    )


def downgrade() -> None:
    op.drop_table("wiki_folders")
    for table, name in reversed(_TIES):
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(name, type_="foreignkey")
