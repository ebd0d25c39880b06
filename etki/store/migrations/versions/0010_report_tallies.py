"""The report's summaries kept at ruling time (issue 32 item 1).

``report_tallies(project_id, day, reviewer, verdict, ruling, n)``: how many current
rulings per UTC day, reviewer, engine verdict and ruling (kept by
:func:`etki.store.summary.tally` with each ruling, amendment and erasure; deleted with
the project), so ``etki report`` reads O(days x reviewers) rows for its totals, per-day
and per-reviewer counts. ``rulings.verdict`` and ``rulings.project_id``: the engine's
verdict and the case's project beside the ruling, so an override is told, and a
project's rulings read, without the decision's or the case's row.
``ruling_refs(case_id, ref, project_id, ruling, reviewer, ruled_at, about)``: the refs
of ``rulings.cited_refs`` (migration 0008) a row each, with the ruling's columns and
whether a ruling without a reason is about the ref
(:func:`etki.store.summary.about_flag`), so ``etki report`` finds the disputed clauses
with one ``GROUP BY ref`` over this table (the same query on SQLite and PostgreSQL)
instead of reading every ruled case. All filled here from the stored rulings, with the
functions the write path calls with each ruling; a ruling row without ``cited_refs``
(none written since 0008) gets no ``ruling_refs``, and the report then takes the ORM
path (:class:`etki.store.lean.Fallback`).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from etki.store.summary import about_flag, ref_rows

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels = None
depends_on = None

_BATCH = 1000
"""Rulings read per round (bounded memory on a 100k store), as 0008."""


def upgrade() -> None:
    op.create_table(
        "ruling_refs",
        sa.Column(
            "case_id",
            sa.String(length=120),
            sa.ForeignKey("cases.id", name="fk_ruling_refs_case_id"),
            primary_key=True,
        ),
        sa.Column("ref", sa.Text(), primary_key=True),
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("ruling", sa.String(length=16), nullable=False),
        sa.Column("reviewer", sa.Text(), nullable=False),
        sa.Column("ruled_at", sa.String(length=20), nullable=False),
        sa.Column("about", sa.Integer(), nullable=False),
    )
    op.create_index(
        "ix_ruling_refs_project", "ruling_refs", ["project_id", "about", "ref", "ruling"]
    )
    op.add_column("rulings", sa.Column("verdict", sa.String(length=16), nullable=True))
    op.add_column("rulings", sa.Column("project_id", sa.String(length=64), nullable=True))
    op.create_table(
        "report_tallies",
        sa.Column("project_id", sa.String(length=64), primary_key=True),
        sa.Column("day", sa.String(length=10), primary_key=True),
        sa.Column("reviewer", sa.Text(), primary_key=True),
        sa.Column("verdict", sa.String(length=16), primary_key=True),
        sa.Column("ruling", sa.String(length=16), primary_key=True),
        sa.Column("n", sa.Integer(), nullable=False),
    )
    conn = op.get_bind()
    conn.execute(
        sa.text(
            "UPDATE rulings SET verdict = "
            "(SELECT d.verdict FROM decisions d WHERE d.case_id = rulings.case_id), "
            "project_id = (SELECT c.project_id FROM cases c WHERE c.id = rulings.case_id)"
        )
    )
    conn.execute(
        sa.text(
            "INSERT INTO report_tallies (project_id, day, reviewer, verdict, ruling, n) "
            "SELECT c.project_id, substr(r.ruled_at, 1, 10), r.reviewer, r.verdict, "
            "r.ruling, COUNT(*) FROM rulings r JOIN cases c ON c.id = r.case_id "
            "GROUP BY c.project_id, substr(r.ruled_at, 1, 10), r.reviewer, r.verdict, "
            "r.ruling"
        )
    )
    fill = sa.text(
        "INSERT INTO ruling_refs (case_id, ref, project_id, ruling, reviewer, ruled_at, about) "
        "VALUES (:c, :r, :p, :g, :w, :t, :a)"
    )
    after = ""
    while True:  # keyset pages by case id
        rows = conn.execute(
            sa.text(
                "SELECT case_id, cited_refs, project_id, ruling, reviewer, ruled_at, reason, "
                "deciding_ref FROM rulings "
                "WHERE case_id > :after AND cited_refs IS NOT NULL "
                "ORDER BY case_id LIMIT :n"
            ),
            {"after": after, "n": _BATCH},
        ).all()
        if not rows:
            break
        params = [
            {
                "c": case_id,
                "r": ref,
                "p": project_id,
                "g": ruling,
                "w": reviewer,
                "t": ruled_at,
                "a": about_flag(ref, reason, deciding),
            }
            for case_id, cited, project_id, ruling, reviewer, ruled_at, reason, deciding in rows
            for ref in ref_rows(cited)
        ]
        if params:
            conn.execute(fill, params)
        after = rows[-1][0]


def downgrade() -> None:
    op.drop_index("ix_ruling_refs_project", table_name="ruling_refs")
    op.drop_table("ruling_refs")
    op.drop_table("report_tallies")
    with op.batch_alter_table("rulings") as batch:
        batch.drop_column("project_id")
        batch.drop_column("verdict")
