"""The summary of a case's frozen decision kept on its ruling's row (issue 32 item 1).

``etki dispute list`` needs, of every ruled case, only the clauses its decision cites and
the clause of its decisive evidence (the ``deciding sentence: REF`` of the ``classify``
step, :func:`etki.domain.deciding_ref`): with the ruling's own columns they decide which
clauses the ruling is about (:func:`etki.memory.ruled_about`). Reading them out of every
decision's text (17 MB on the 10k bench store) was most of the command's query; so the
ruling's row holds them (``rulings.cited_refs``, ``rulings.deciding_ref``), written by
:meth:`etki.store.repository.cases.CaseStore.record_ruling` in the ruling's transaction
and filled for older rulings by migration 0008, both with :func:`ruling_summary`. The
decision is frozen (written once with its case, never updated), so the summary never goes
stale; an erasure deletes it with the ruling's row.

``etki report`` needs two more parts of every ruled case's decision (migration 0009,
:func:`report_summary`): the effort range (``rulings.effort_low``, ``effort_high``: the
change-request effort per month) and what follows the ``deciding sentence: `` of each
``classify`` step (``rulings.deciding_text``, a JSON array): where an override counts as a
correction, the decisive evidence may name a clause of the project the decision does not
cite (:func:`etki.memory.correction_clauses`), so the ref cannot be cut out once at
ruling time against the cited clauses alone. :func:`summary_columns` gives all five
columns from one parse; ``deciding_text`` NULL marks a row written before 0009 with no
fill (none is: a reader then reads the decision).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from etki.domain.corrections import about_refs, correction_of, refs_basis
from etki.domain.evidence import DECIDING, deciding_ref

__all__ = [
    "clause_counts",
    "clause_tally",
    "correction_columns",
    "decode_refs",
    "refresh_corrections",
    "report_summary",
    "ruling_summary",
    "summary_columns",
]


def ruling_summary(decision_json: str) -> tuple[str, str | None]:
    """``(cited refs, deciding ref)`` of a stored decision's JSON text: the
    ``cited_clauses`` as a compact JSON array (the decision's order, non-ASCII kept) and
    the ref of its decisive evidence among them, read from the ``classify`` step as
    :func:`etki.memory.ruled_row` reads a full record (None: none, or not a cited ref).
    The whole document is decoded (once per ruling). Raises ``ValueError`` for text that
    is not a JSON object."""
    return _summary(_document(decision_json))


def _document(decision_json: str) -> dict:
    doc = json.loads(decision_json)
    if not isinstance(doc, dict):
        raise ValueError("a decision is a JSON object")
    return doc


def _summary(doc: dict) -> tuple[str, str | None]:
    cited = [str(ref) for ref in doc.get("cited_clauses") or ()]
    steps = (
        (str(e.get("step", "")), str(e.get("detail", "")))
        for e in doc.get("evidence") or ()
        if isinstance(e, dict)
    )
    deciding = deciding_ref(steps, cited)
    return json.dumps(cited, ensure_ascii=False, separators=(",", ":")), deciding


def report_summary(decision_json: str) -> tuple[float | None, float | None, str]:
    """``(effort low, effort high, deciding text)`` of a stored decision's JSON text, as
    ``etki report`` reads them from the ruling's row (migration 0009): the ends of its
    effort range as :meth:`etki.domain.Decision.from_json` reads them (``effort.low``,
    ``effort.high``; None: unknown) and, as a compact JSON array in evidence order, what
    follows :data:`~etki.domain.evidence.DECIDING` in the detail of each ``classify`` step
    holding it (the part :func:`~etki.domain.deciding_ref` matches refs against; ``[]``:
    none). Raises ``ValueError`` for text that is not a JSON object."""
    return _report(_document(decision_json))


def _report(doc: dict) -> tuple[float | None, float | None, str]:
    effort = doc.get("effort") or {}
    low, high = effort.get("low"), effort.get("high")
    rests = [
        str(e.get("detail", "")).split(DECIDING, 1)[1]
        for e in doc.get("evidence") or ()
        if isinstance(e, dict)
        and str(e.get("step", "")) == "classify"
        and DECIDING in str(e.get("detail", ""))
    ]
    text = json.dumps(rests, ensure_ascii=False, separators=(",", ":"))
    return (
        None if low is None else float(low),
        None if high is None else float(high),
        text,
    )


def summary_columns(decision_json: str) -> dict[str, object]:
    """The summary columns of a ruling's row from its case's stored decision (one
    parse): ``cited_refs`` and ``deciding_ref`` (:func:`ruling_summary`),
    ``effort_low``, ``effort_high`` and ``deciding_text`` (:func:`report_summary`).
    What :meth:`etki.store.repository.cases.CaseStore.record_ruling` writes with each
    ruling. Raises ``ValueError`` for text that is not a JSON object."""
    doc = _document(decision_json)
    cited, deciding = _summary(doc)
    low, high, text = _report(doc)
    return {
        "cited_refs": cited,
        "deciding_ref": deciding,
        "effort_low": low,
        "effort_high": high,
        "deciding_text": text,
    }


def decode_refs(values: Sequence[str]) -> list[tuple[str, ...]]:
    """The refs of each ``rulings.cited_refs`` value of ``values`` (:func:`ruling_summary`'s
    first), in order: one JSON parse of them all (10,000 parses of a few refs each cost
    as much as the query that read them). Raises ``ValueError`` when one is not a JSON
    array."""
    arrays = json.loads("[" + ",".join(values) + "]")
    if len(arrays) != len(values) or not all(isinstance(a, list) for a in arrays):
        raise ValueError("a cited_refs value is not one JSON array")
    return [tuple(a) for a in arrays]


def ref_rows(cited_refs: str | None) -> tuple[str, ...]:
    """The ``ruling_refs`` rows of a ruling (migration 0010): the refs of its
    ``cited_refs`` value (:func:`ruling_summary`'s first), each once, in order; none for
    a row without the summary (NULL)."""
    if cited_refs is None:
        return ()
    refs = json.loads(cited_refs)
    if not isinstance(refs, list):
        raise ValueError("a cited_refs value is not one JSON array")
    return tuple(dict.fromkeys(str(ref) for ref in refs))


TALLY = (
    "INSERT INTO report_tallies (project_id, day, reviewer, verdict, ruling, n) "
    "VALUES (:p, :d, :r, :v, :g, :n) "
    "ON CONFLICT (project_id, day, reviewer, verdict, ruling) "
    "DO UPDATE SET n = report_tallies.n + excluded.n"
)
"""Add ``:n`` to a ``report_tallies`` count (the row made at 0): one statement for
SQLite (3.24+) and PostgreSQL."""
TALLY_ZERO = "DELETE FROM report_tallies WHERE project_id = :p AND n <= 0"
"""A count brought to 0 is deleted (the report reads no reviewer or day without one)."""


def tally(
    execute: Callable[[str, dict[str, object]], object],
    project_id: str,
    ruled_at: str,
    reviewer: str,
    verdict: str,
    ruling: str,
    n: int,
) -> None:
    """Add ``n`` (+1 or -1) to the ``report_tallies`` count of a ruling made at
    ``ruled_at`` (its day: ``ruled_at[:10]``) by ``reviewer``, the engine's ``verdict``
    and the ``ruling``, with ``execute(sql, params)`` inside the ruling's or erasure's
    transaction (migration 0010)."""
    params = {"p": project_id, "d": ruled_at[:10], "r": reviewer, "v": verdict, "g": ruling}
    execute(TALLY, {**params, "n": n})
    if n < 0:
        execute(TALLY_ZERO, {"p": project_id})


def about_flag(ref: str, reason: str, deciding_ref: str | None) -> int:
    """``ruling_refs.about`` of a cited ``ref`` (migration 0010): 1 when the ruling has no
    ``reason`` and ``ref`` is its decisive clause or it has none (what
    :func:`etki.memory.ruled_about` says of a ruling without a reason; the report
    matches a reason's words in Python), else 0."""
    return int(reason == "" and (deciding_ref is None or deciding_ref == ref))


CLAUSE_TALLY = (
    "INSERT INTO clause_tallies (project_id, ref, ruling, cited, about) "
    "VALUES (:p, :r, :g, :c, :a) "
    "ON CONFLICT (project_id, ref, ruling) DO UPDATE SET "
    "cited = clause_tallies.cited + excluded.cited, about = clause_tallies.about + excluded.about"
)
"""Add ``:c`` and ``:a`` to a ``clause_tallies`` count (the row made at 0): one statement
for SQLite (3.24+) and PostgreSQL (migration 0013)."""
CLAUSE_TALLY_ZERO = "DELETE FROM clause_tallies WHERE project_id = :p AND cited <= 0"
"""A clause no current ruling of that word cites any more loses its row."""


def clause_counts(
    cited_refs: str | None, reason: str, deciding_ref: str | None
) -> dict[str, tuple[int, int]]:
    """ref -> ``(cited, about)`` of one ruling (migration 0013): how many times the
    decision's ``cited_refs`` (:func:`ruling_summary`'s first, a JSON array) holds the
    ref — each a line of the clause's history, as :func:`etki.memory.disputes_of`
    counts them — and how many of those the ruling is about
    (:func:`etki.domain.corrections.about_refs` of the cited refs, the ``reason`` and
    the ``deciding_ref``). Empty for a row without the summary (NULL). Raises
    ``ValueError`` when ``cited_refs`` is not a JSON array."""
    if cited_refs is None:
        return {}
    cited = decode_refs([cited_refs])[0]
    about = set(about_refs(cited, reason, deciding_ref))
    out: dict[str, tuple[int, int]] = {}
    for ref in cited:
        n, a = out.get(ref, (0, 0))
        out[ref] = (n + 1, a + (ref in about))
    return out


def clause_tally(
    execute: Callable[[str, Any], object],
    project_id: str,
    cited_refs: str | None,
    reason: str,
    deciding_ref: str | None,
    ruling: str,
    n: int,
) -> None:
    """Add ``n`` (+1: a ruling, or an amendment's new ruling; -1: the ruling an
    amendment replaces, an erased one) times :func:`clause_counts` of a ruling to the
    ``clause_tallies`` rows of its project and ``ruling`` word, with ``execute(sql,
    params)`` (a list of dicts: many rows) inside the writer's transaction (migration
    0013): so ``etki dispute list`` and ``etki queue`` read O(clauses) rows, not every
    ruled case. Raises ``ValueError`` when ``cited_refs`` is not a JSON array."""
    counts = clause_counts(cited_refs, reason, deciding_ref)
    if counts:
        execute(
            CLAUSE_TALLY,
            [
                {"p": project_id, "r": ref, "g": ruling, "c": n * c, "a": n * a}
                for ref, (c, a) in counts.items()
            ],
        )
    if n < 0:
        execute(CLAUSE_TALLY_ZERO, {"p": project_id})


CORRECTION_NONE: dict[str, object] = {
    "correction_refs": None,
    "correction_rule": None,
    "correction_basis": None,
}
"""The correction columns of a ruling that is not an override (migration 0011)."""


def correction_columns(
    cited_refs: str, reason: str, deciding_text: str, known: Sequence[str]
) -> dict[str, object]:
    """The correction columns of an override's ruling row (migration 0011) from the
    row's summary (``cited_refs``, ``deciding_text``: :func:`summary_columns`), the
    reviewer's ``reason`` and the project's clause refs ``known`` now:
    ``correction_refs`` (a compact JSON array, a ref once per time it counts),
    ``correction_rule`` (a key of :data:`etki.domain.corrections.CORRECTION_RULES`) and
    ``correction_basis`` (:func:`etki.domain.corrections.refs_basis` of ``known``).
    Raises ``ValueError`` when ``cited_refs`` or ``deciding_text`` is not a JSON array."""
    cited, texts = decode_refs([cited_refs, deciding_text])
    refs, rule = correction_of(cited, reason, texts, known)
    return {
        "correction_refs": json.dumps(list(refs), ensure_ascii=False, separators=(",", ":")),
        "correction_rule": rule,
        "correction_basis": refs_basis(known),
    }


STALE_CORRECTIONS = (
    "SELECT case_id, cited_refs, reason, deciding_text FROM rulings "
    "WHERE project_id = :p AND ruling <> verdict AND cited_refs IS NOT NULL "
    "AND deciding_text IS NOT NULL "
    "AND (correction_basis IS NULL OR correction_basis <> :b) ORDER BY case_id"
)
"""The overrides of a project whose kept correction was computed against another set of
clause refs than ``:b`` (:func:`refresh_corrections`)."""
FILL_CORRECTION = (
    "UPDATE rulings SET correction_refs = :correction_refs, "
    "correction_rule = :correction_rule, correction_basis = :correction_basis "
    "WHERE case_id = :c"
)
PROJECT_REFS = "SELECT ref FROM clauses WHERE project_id = :p ORDER BY position"
"""The project's clause refs in document order (as the ruling's writer reads them)."""


def refresh_corrections(execute: Callable[[str, Any], Any], project_id: str) -> int:
    """Recompute, inside the caller's transaction, the correction kept on the ruling row
    of every override of ``project_id`` whose ``correction_basis`` is not the digest of
    the project's clause refs as now stored (a re-``init`` that changed a contract, an
    accepted or revoked remit statement), with :func:`correction_columns` as the writer
    and migration 0011 compute it; an override whose basis matches is left alone, so a
    re-``init`` that changed no ref writes nothing. ``execute(sql, params)`` runs raw SQL
    (named ``:x`` parameters; a list of dicts for many rows) and returns a result whose
    ``.all()`` gives rows. Returns how many rows were rewritten. Keeps ``etki report``
    on its fast path (a stale row is otherwise matched at read time, the same figures
    more slowly). Raises ``ValueError`` for a summary column that is not a JSON array."""
    known = tuple(r[0] for r in execute(PROJECT_REFS, {"p": project_id}).all())
    stale = execute(STALE_CORRECTIONS, {"p": project_id, "b": refs_basis(known)}).all()
    if stale:
        execute(
            FILL_CORRECTION,
            [
                {"c": case_id, **correction_columns(cited, reason, text, known)}
                for case_id, cited, reason, text in stale
            ],
        )
    return len(stale)
