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
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from etki.domain.evidence import deciding_ref

__all__ = ["decode_refs", "ruling_summary"]


def ruling_summary(decision_json: str) -> tuple[str, str | None]:
    """``(cited refs, deciding ref)`` of a stored decision's JSON text: the
    ``cited_clauses`` as a compact JSON array (the decision's order, non-ASCII kept) and
    the ref of its decisive evidence among them, read from the ``classify`` step as
    :func:`etki.memory.ruled_row` reads a full record (None: none, or not a cited ref).
    The whole document is decoded (once per ruling). Raises ``ValueError`` for text that
    is not a JSON object."""
    doc = json.loads(decision_json)
    if not isinstance(doc, dict):
        raise ValueError("a decision is a JSON object")
    cited = [str(ref) for ref in doc.get("cited_clauses") or ()]
    steps = (
        (str(e.get("step", "")), str(e.get("detail", "")))
        for e in doc.get("evidence") or ()
        if isinstance(e, dict)
    )
    deciding = deciding_ref(steps, cited)
    return json.dumps(cited, ensure_ascii=False, separators=(",", ":")), deciding


def decode_refs(values: Sequence[str]) -> list[tuple[str, ...]]:
    """The refs of each ``rulings.cited_refs`` value of ``values`` (:func:`ruling_summary`'s
    first), in order: one JSON parse of them all (10,000 parses of a few refs each cost
    as much as the query that read them). Raises ``ValueError`` when one is not a JSON
    array."""
    arrays = json.loads("[" + ",".join(values) + "]")
    if len(arrays) != len(values) or not all(isinstance(a, list) for a in arrays):
        raise ValueError("a cited_refs value is not one JSON array")
    return [tuple(a) for a in arrays]
