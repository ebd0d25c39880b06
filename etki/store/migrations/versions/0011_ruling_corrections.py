"""Each override's correction kept on its ruling's row (issue 32 item 1).

``rulings.correction_refs`` (a JSON array), ``correction_rule`` and ``correction_basis``:
of a ruling that overrides the engine's verdict, the clauses it counts as a correction
on and by which rule (:func:`etki.domain.corrections.correction_of`), computed against
the project's clause refs, whose set ``correction_basis`` names
(:func:`etki.domain.corrections.refs_basis`); NULL for a ruling that is not an
override. ``etki report`` counted the corrections by matching every override's reason
against the project's 2,000 refs (~75 ms of the 10k bench store's report); it now reads
them, and recomputes only the overrides whose basis is not the project's refs at report
time (a re-``init`` or an accepted remit statement changes them). Filled here for every
stored override with :func:`etki.store.summary.correction_columns`, the function the
write path calls with each ruling, so old and new rows agree.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from etki.store.summary import correction_columns

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels = None
depends_on = None

_BATCH = 1000
"""Overrides read and updated per round (bounded memory on a 100k store), as 0008."""


def upgrade() -> None:
    op.add_column("rulings", sa.Column("correction_refs", sa.Text(), nullable=True))
    op.add_column("rulings", sa.Column("correction_rule", sa.String(length=16), nullable=True))
    op.add_column("rulings", sa.Column("correction_basis", sa.String(length=16), nullable=True))
    conn = op.get_bind()
    fill = sa.text(
        "UPDATE rulings SET correction_refs = :correction_refs, "
        "correction_rule = :correction_rule, correction_basis = :correction_basis "
        "WHERE case_id = :c"
    )
    projects = [
        p[0]
        for p in conn.execute(
            sa.text("SELECT DISTINCT project_id FROM rulings WHERE project_id IS NOT NULL")
        )
    ]
    for project_id in projects:
        known = tuple(
            r[0]
            for r in conn.execute(
                sa.text("SELECT ref FROM clauses WHERE project_id = :p ORDER BY position"),
                {"p": project_id},
            )
        )
        after = ""
        while True:  # keyset pages by case id
            rows = conn.execute(
                sa.text(
                    "SELECT case_id, cited_refs, reason, deciding_text FROM rulings "
                    "WHERE project_id = :p AND case_id > :after AND ruling <> verdict "
                    "AND cited_refs IS NOT NULL AND deciding_text IS NOT NULL "
                    "ORDER BY case_id LIMIT :n"
                ),
                {"p": project_id, "after": after, "n": _BATCH},
            ).all()
            if not rows:
                break
            conn.execute(
                fill,
                [
                    {"c": case_id, **correction_columns(cited, reason, text, known)}
                    for case_id, cited, reason, text in rows
                ],
            )
            after = rows[-1][0]


def downgrade() -> None:
    with op.batch_alter_table("rulings") as batch:
        batch.drop_column("correction_basis")
        batch.drop_column("correction_rule")
        batch.drop_column("correction_refs")
