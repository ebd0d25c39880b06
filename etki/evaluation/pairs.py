"""One verdict per meaning (issue 29 item 6): does a request and its translation get the
same verdict and the same sureness?

A **pair file** is JSON lines, one translation per line: ``{"engagement", "id", "lang",
"text", "title"?}``; ``engagement`` and ``id`` name a labelled request of an engagement
being evaluated (its original), ``lang`` is the translation's language (``en``, ``tr``,
``de``). The repository's set is ``tests/data/translation_pairs.jsonl``: every Turkish
and German request of the visible engagements put into English, and English requests of
each put into Turkish or German, written by the team (not machine-translated).

For each pair the engine triages the original and the translation with the same engine
(lexical, or with the model of ``ETKI_EMBED``), and :func:`agreement` counts the pairs
whose verdicts agree, whose sureness agrees, and both. Nothing here reads a label: the
figures say whether meaning, not wording, decides. ``etki eval triage --pairs FILE``
prints them per engagement and pooled.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from etki.errors import InputError

__all__ = [
    "Pair",
    "PairOutcome",
    "agreement",
    "causes",
    "load_pairs",
    "pair_lines",
    "run_pairs",
]

LANGS = ("en", "tr", "de")
"""Languages a translation may be written in (the users' languages)."""


@dataclass(frozen=True)
class Pair:
    """One translation: the original's ``engagement`` and ``id``, the translation's
    ``lang``, ``text`` and optional ``title``, and its ``line`` in the pair file."""

    engagement: str
    id: str
    lang: str
    text: str
    title: str | None
    line: int


def load_pairs(path: str | Path) -> list[Pair]:
    """The pairs of ``path``. Raises :class:`~etki.errors.InputError` naming file and line
    for a line that is not a JSON object with string ``engagement``, ``id``, ``text``
    (non-empty) and a ``lang`` of :data:`LANGS`; a missing file too."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{p}: cannot read the pair file ({exc.strerror or exc})") from None
    out: list[Pair] = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{p}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise InputError(f"{p}:{n}: a pair is a JSON object")
        for key in ("engagement", "id", "text"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise InputError(f"{p}:{n}: field {key!r} must be a non-empty string")
        if row.get("lang") not in LANGS:
            raise InputError(f"{p}:{n}: field 'lang' must be one of {', '.join(LANGS)}")
        title = row.get("title")
        if title is not None and not isinstance(title, str):
            raise InputError(f"{p}:{n}: field 'title' must be a string")
        out.append(Pair(row["engagement"], row["id"], row["lang"], row["text"], title, n))
    return out


@dataclass(frozen=True)
class PairOutcome:
    """One pair triaged: the original's and the translation's verdict, sureness and
    evidence kind."""

    pair: Pair
    verdict: tuple[str, str]
    sure: tuple[bool, bool]
    kind: tuple[str, str]

    @property
    def same_verdict(self) -> bool:
        return self.verdict[0] == self.verdict[1]

    @property
    def same_sure(self) -> bool:
        return self.sure[0] == self.sure[1]


def run_pairs(engagements: Sequence[Any], pairs: Sequence[Pair]) -> list[PairOutcome]:
    """Triage both sides of every pair with one engine per engagement (built as
    :func:`etki.evaluation.triage.run_engagement` builds it, default settings).
    Raises :class:`~etki.errors.InputError` for a pair whose engagement is not
    evaluated or whose id is not one of its labelled requests."""
    from etki.triage import TriageEngine, case_id_for

    by_id = {e.id: e for e in engagements}
    engines: dict[str, Any] = {}
    out: list[PairOutcome] = []
    for pair in pairs:
        eng = by_id.get(pair.engagement)
        if eng is None:
            raise InputError(
                f"pair file line {pair.line}: engagement {pair.engagement!r} is not "
                "evaluated (give its project folder, or --all-realdata)"
            )
        rows = {r.id: r for r in eng.rows}
        row = rows.get(pair.id)
        if row is None:
            raise InputError(
                f"pair file line {pair.line}: {pair.engagement} has no labelled request {pair.id!r}"
            )
        engine = engines.get(eng.id)
        if engine is None:
            engine = engines[eng.id] = TriageEngine(
                eng.project, eng.index, memory=eng.memory, embedder=eng.embedder
            )
        a = engine.triage(case_id_for(eng.id, "pair\0" + row.id), row.text, row.title)
        b = engine.triage(case_id_for(eng.id, "pair\1" + row.id), pair.text, pair.title)
        out.append(
            PairOutcome(
                pair,
                (a.verdict, b.verdict),
                (a.sure, b.sure),
                (a.evidence_kind, b.evidence_kind),
            )
        )
    return out


@dataclass(frozen=True)
class Agreement:
    """``n`` pairs; how many agree on the verdict, on sureness, and on both."""

    n: int
    verdict: int
    sure: int
    both: int

    def to_dict(self) -> dict[str, int]:
        return {"n": self.n, "verdict": self.verdict, "sure": self.sure, "both": self.both}


def agreement(outcomes: Sequence[PairOutcome]) -> Agreement:
    """The :class:`Agreement` of ``outcomes``."""
    return Agreement(
        len(outcomes),
        sum(o.same_verdict for o in outcomes),
        sum(o.same_sure for o in outcomes),
        sum(o.same_verdict and o.same_sure for o in outcomes),
    )


def causes(outcomes: Sequence[PairOutcome]) -> list[tuple[str, int]]:
    """Why pairs disagree: for the pairs whose verdicts differ, the evidence kinds that
    decided the two sides (:mod:`etki.triage.sureness`), as ``"kind | kind"`` in
    alphabetical order (the direction of translation left out), with how many pairs
    show it; most frequent first, then by name. ``none | topic``: one side matched no
    contract sentence (read lexically, a request in a language no clause is written in
    never does), the other only shared topic words."""
    counts: dict[str, int] = {}
    for o in outcomes:
        if not o.same_verdict:
            key = " | ".join(sorted(o.kind))
            counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _share(k: int, n: int) -> str:
    return f"{k / n:.2f} {k}/{n}" if n else "-"


def pair_lines(outcomes: Sequence[PairOutcome], *, per_pair: bool = False) -> list[str]:
    """The text report: agreement per engagement, per translation direction (into
    English, out of English) and pooled, then the pairs whose verdicts differ counted by
    the evidence kinds of their two sides (:func:`causes`); with ``per_pair`` a line per
    pair."""
    groups: dict[str, list[PairOutcome]] = {}
    for o in outcomes:
        groups.setdefault(o.pair.engagement, []).append(o)
    into = [o for o in outcomes if o.pair.lang == "en"]
    out_of = [o for o in outcomes if o.pair.lang != "en"]
    rows: list[tuple[str, Sequence[PairOutcome]]] = [
        *sorted(groups.items()),
        ("into English", into),
        ("out of English", out_of),
        ("pooled", outcomes),
    ]
    lines = [
        "one verdict per meaning: a request and its translation, same engine",
        f"{'pairs':<16}{'n':>4}  {'same verdict':<14}{'same sureness':<15}both",
    ]
    for name, group in rows:
        a = agreement(group)
        lines.append(
            f"{name:<16}{a.n:>4}  {_share(a.verdict, a.n):<14}{_share(a.sure, a.n):<15}"
            f"{_share(a.both, a.n)}"
        )
    found = causes(outcomes)
    if found:
        lines.append("verdicts differ, by the evidence kinds of the two sides:")
        lines.extend(f"  {n:>3}  {key}" for key, n in found)
    if per_pair:
        lines.append("")
        for o in outcomes:
            mark = "ok  " if o.same_verdict and o.same_sure else "DIFF"
            lines.append(
                f"  {mark} {o.pair.engagement:<10} {o.pair.id:<12} ->{o.pair.lang}  "
                f"{o.verdict[0]}/{o.kind[0]} | {o.verdict[1]}/{o.kind[1]}"
            )
    return lines


def pairs_dict(outcomes: Sequence[PairOutcome]) -> Mapping[str, Any]:
    """The JSON form: agreement per engagement and pooled, the disagreeing pairs by
    evidence kinds (:func:`causes`), and every pair."""
    groups: dict[str, list[PairOutcome]] = {}
    for o in outcomes:
        groups.setdefault(o.pair.engagement, []).append(o)
    return {
        "per_engagement": {k: agreement(v).to_dict() for k, v in sorted(groups.items())},
        "pooled": agreement(outcomes).to_dict(),
        "verdicts_differ_by_kinds": dict(causes(outcomes)),
        "pairs": [
            {
                "engagement": o.pair.engagement,
                "id": o.pair.id,
                "lang": o.pair.lang,
                "verdict": list(o.verdict),
                "sure": list(o.sure),
                "evidence_kind": list(o.kind),
            }
            for o in outcomes
        ],
    }
