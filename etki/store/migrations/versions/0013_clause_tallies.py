"""Per-clause ruling counts kept at ruling time (issue 32 item 1).

``clause_tallies(project_id, ref, ruling, cited, about)``: per clause of a project and
ruling word, how many current rulings' decisions cite the clause and how many of those
are about it (:func:`etki.store.summary.clause_counts`), kept by
:func:`etki.store.summary.clause_tally` with each ruling, amendment and erasure and
deleted with the project, so ``etki dispute list`` and ``etki queue`` read O(clauses)
rows instead of every ruled case (at 100,000 stored cases they read 28-57x ``python -c
pass`` that way). Filled here from every stored ruling with the function the writers
call; a ruling row without the summary (``cited_refs`` NULL: none is written since
0008) is counted from its decision's text (:func:`etki.store.summary.ruling_summary`).
Two indexes: ``ruling_refs (project_id, ref)`` (``etki show`` finds the ruled cases
citing its clauses by ref) and a partial one of ``rulings`` without the summary (the lean
readers check there is none without a scan).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from etki.store.summary import clause_counts, ruling_summary

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels = None
depends_on = None

_BATCH = 1000
"""Rulings read per round (bounded memory on a 100k store), as 0008."""


def upgrade() -> None:
    op.create_table(
        "clause_tallies",
        sa.Column("project_id", sa.String(length=64), primary_key=True),
        sa.Column("ref", sa.Text(), primary_key=True),
        sa.Column("ruling", sa.String(length=16), primary_key=True),
        sa.Column("cited", sa.Integer(), nullable=False),
        sa.Column("about", sa.Integer(), nullable=False),
    )
    # `etki show` finds the ruled cases citing its clauses by ref (not every ruled
    # row's cited_refs), and a ruling row without the summary is found without a scan
    op.create_index("ix_ruling_refs_ref", "ruling_refs", ["project_id", "ref"])
    op.create_index(
        "ix_rulings_unsummed",
        "rulings",
        ["project_id"],
        sqlite_where=sa.text("cited_refs IS NULL"),
        postgresql_where=sa.text("cited_refs IS NULL"),
    )
    conn = op.get_bind()
    counts: dict[tuple[str, str, str], list[int]] = {}
    after = ""
    while True:  # keyset pages by case id
        rows = conn.execute(
            sa.text(
                "SELECT r.case_id, c.project_id, r.ruling, r.reason, r.cited_refs, "
                "r.deciding_ref FROM rulings r JOIN cases c ON c.id = r.case_id "
                "WHERE r.case_id > :after ORDER BY r.case_id LIMIT :n"
            ),
            {"after": after, "n": _BATCH},
        ).all()
        if not rows:
            break
        for case_id, project_id, ruling, reason, cited, deciding in rows:
            if cited is None:  # no summary on the row: the decision says
                cited, deciding = ruling_summary(
                    conn.execute(
                        sa.text("SELECT decision_json FROM decisions WHERE case_id = :c"),
                        {"c": case_id},
                    ).scalar_one()
                )
            for ref, (n, a) in clause_counts(cited, reason, deciding).items():
                held = counts.setdefault((project_id, ref, ruling), [0, 0])
                held[0] += n
                held[1] += a
        after = rows[-1][0]
    if counts:
        conn.execute(
            sa.text(
                "INSERT INTO clause_tallies (project_id, ref, ruling, cited, about) "
                "VALUES (:p, :r, :g, :c, :a)"
            ),
            [
                {"p": p, "r": r, "g": g, "c": c, "a": a}
                for (p, r, g), (c, a) in sorted(counts.items())
            ],
        )


def downgrade() -> None:
    op.drop_index("ix_rulings_unsummed", table_name="rulings")
    op.drop_index("ix_ruling_refs_ref", table_name="ruling_refs")
    op.drop_table("clause_tallies")
