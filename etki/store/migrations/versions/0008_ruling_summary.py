"""The summary of each ruled case's decision on its ruling's row (issue 32 item 1).

``rulings.cited_refs`` (the decision's cited clauses, a JSON array) and
``rulings.deciding_ref`` (the clause of its decisive evidence, NULL: none among them):
what ``etki dispute list`` reads instead of scanning every decision's text. Filled here
for every stored ruling with :func:`etki.store.summary.ruling_summary`, the function the
write path calls with each new ruling, so old and new rows agree. Decisions are frozen,
so the values never change afterwards.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from etki.store.summary import ruling_summary

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None

_BATCH = 1000
"""Rulings read and updated per round (bounded memory on a 100k store)."""


def upgrade() -> None:
    op.add_column("rulings", sa.Column("cited_refs", sa.Text(), nullable=True))
    op.add_column("rulings", sa.Column("deciding_ref", sa.Text(), nullable=True))
    conn = op.get_bind()
    fill = sa.text(
        "UPDATE rulings SET cited_refs = :cited, deciding_ref = :deciding WHERE case_id = :c"
    )
    after = ""
    while True:  # keyset pages by case id: each page's decisions read once
        rows = conn.execute(
            sa.text(
                "SELECT r.case_id, d.decision_json FROM rulings r "
                "JOIN decisions d ON d.case_id = r.case_id "
                "WHERE r.case_id > :after ORDER BY r.case_id LIMIT :n"
            ),
            {"after": after, "n": _BATCH},
        ).all()
        if not rows:
            break
        params = []
        for case_id, decision_json in rows:
            cited, deciding = ruling_summary(decision_json)
            params.append({"cited": cited, "deciding": deciding, "c": case_id})
        conn.execute(fill, params)
        after = rows[-1][0]


def downgrade() -> None:
    with op.batch_alter_table("rulings") as batch:
        batch.drop_column("deciding_ref")
        batch.drop_column("cited_refs")
