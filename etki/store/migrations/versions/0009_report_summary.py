"""What ``etki report`` reads of each ruled case's decision, on its ruling's row (issue 32
item 1).

``rulings.effort_low`` and ``rulings.effort_high`` (the decision's effort range, NULL:
unknown) and ``rulings.deciding_text`` (what follows the deciding sentence's marker in
its ``classify`` steps, a JSON array): with 0008's ``cited_refs`` they are all the report
needs of a ruled case, so it no longer decodes every decision. Filled here for every
stored ruling with :func:`etki.store.summary.report_summary`, the function the write path
calls with each new ruling (through :func:`etki.store.summary.summary_columns`), so old
and new rows agree. Decisions are frozen, so the values never change afterwards.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from etki.store.summary import report_summary

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None

_BATCH = 1000
"""Rulings read and updated per round (bounded memory on a 100k store), as 0008."""


def upgrade() -> None:
    op.add_column("rulings", sa.Column("effort_low", sa.Float(), nullable=True))
    op.add_column("rulings", sa.Column("effort_high", sa.Float(), nullable=True))
    op.add_column("rulings", sa.Column("deciding_text", sa.Text(), nullable=True))
    conn = op.get_bind()
    fill = sa.text(
        "UPDATE rulings SET effort_low = :low, effort_high = :high, deciding_text = :text "
        "WHERE case_id = :c"
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
            low, high, text = report_summary(decision_json)
            params.append({"low": low, "high": high, "text": text, "c": case_id})
        conn.execute(fill, params)
        after = rows[-1][0]


def downgrade() -> None:
    with op.batch_alter_table("rulings") as batch:
        batch.drop_column("deciding_text")
        batch.drop_column("effort_high")
        batch.drop_column("effort_low")
