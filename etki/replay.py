"""``etki eval triage --replay``: the engine and the memory beside it, side by side.

The labelled requests are replayed in file order, as if a reviewer worked through them:
each request is triaged (the engine's verdict), the memory beside it is computed from the
rulings made so far (:class:`etki.triage.similar.RulingIndex`, the class the desk uses),
and then the request is ruled with its label. Nothing is stored: the rulings are kept in
memory as :class:`~etki.triage.similar.RuledRequest` values, built exactly as
:func:`etki.engines.ruling_index` builds them from stored cases (title, text, ruling).

Figures (:class:`ReplayReport`): the engine's accuracy and macro-F1 over every request;
for the memory, its coverage (share of requests with a memory verdict) and accuracy and
macro-F1 on the covered requests, with the engine's accuracy on those same requests so
the two can be compared on equal ground. Macro-F1 is the mean F1 over the verdicts that
have a label or a prediction in the set scored (the definition of
:mod:`etki.evaluation.metrics`).

Because the engine never reads the memory, the engine's figures here are those of
``etki eval triage`` on the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from etki.config import Settings
from etki.domain import VERDICTS, Project, SimilarRuling
from etki.knowledge import KnowledgeIndex
from etki.triage.similar import SIMILARITY_MIN

__all__ = ["LabelledRow", "ReplayReport", "ReplayRow", "macro_f1", "replay"]


class LabelledRow(Protocol):
    """What :func:`replay` reads of a labelled request (e.g.
    :class:`etki.evaluation.triage.LabelledRow`)."""

    id: str
    text: str
    title: str | None
    verdict: str


@dataclass(frozen=True)
class ReplayRow:
    """One replayed request: its ``id``, ``label``, the engine's ``verdict``, the
    ``memory_verdict`` (or None) and the ``similar`` rulings it rests on (case ids are
    the replay's own, ``case_id_for(project, "eval\\0" + id)``, as ``etki eval triage``
    names them)."""

    id: str
    label: str
    verdict: str
    memory_verdict: str | None
    similar: tuple[SimilarRuling, ...] = ()
    nearest: SimilarRuling | None = None
    """The most similar earlier ruling whatever its similarity (descriptive only: how
    close the file's requests are to each other; no threshold is chosen from it)."""


def _accuracy(pairs: Sequence[tuple[str, str]]) -> float:
    return sum(1 for label, got in pairs if label == got) / len(pairs) if pairs else 0.0


def macro_f1(pairs: Sequence[tuple[str, str]]) -> float:
    """Mean F1 over the verdicts that occur in ``pairs`` ((label, prediction)) as a
    label or as a prediction; 0.0 for no pairs."""
    f1s = []
    for verdict in VERDICTS:
        tp = sum(1 for lab, got in pairs if lab == verdict and got == verdict)
        fp = sum(1 for lab, got in pairs if lab != verdict and got == verdict)
        fn = sum(1 for lab, got in pairs if lab == verdict and got != verdict)
        if not (tp + fp or tp + fn):
            continue
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f1s.append(2 * p * r / (p + r) if p + r else 0.0)
    return sum(f1s) / len(f1s) if f1s else 0.0


@dataclass(frozen=True)
class ReplayReport:
    """Engine and memory figures of one replay (fractions in [0, 1]). ``covered`` is
    how many requests had a memory verdict, ``with_similar`` how many had at least one
    similar ruling; ``engine_on_covered`` is the engine's accuracy on the covered
    requests (0.0 when none)."""

    project_id: str
    rows: tuple[ReplayRow, ...]

    @property
    def n(self) -> int:
        return len(self.rows)

    @property
    def engine_accuracy(self) -> float:
        return _accuracy([(r.label, r.verdict) for r in self.rows])

    @property
    def engine_macro_f1(self) -> float:
        return macro_f1([(r.label, r.verdict) for r in self.rows])

    @property
    def covered(self) -> int:
        return sum(1 for r in self.rows if r.memory_verdict is not None)

    @property
    def with_similar(self) -> int:
        return sum(1 for r in self.rows if r.similar)

    @property
    def memory_coverage(self) -> float:
        return self.covered / self.n if self.n else 0.0

    def _memory_pairs(self) -> list[tuple[str, str]]:
        return [(r.label, r.memory_verdict) for r in self.rows if r.memory_verdict is not None]

    @property
    def memory_accuracy(self) -> float:
        return _accuracy(self._memory_pairs())

    @property
    def memory_macro_f1(self) -> float:
        return macro_f1(self._memory_pairs())

    @property
    def engine_on_covered(self) -> float:
        return _accuracy([(r.label, r.verdict) for r in self.rows if r.memory_verdict is not None])

    def lines(self) -> list[str]:
        """The side-by-side table, then one line per request the memory spoke on.
        Memory figures on no covered request print as ``-``."""

        def mem(value: float) -> str:
            return f"{value:>8.2f}" if self.covered else f"{'-':>8}"

        out = [
            (
                f"replay: {self.n} labelled requests of {self.project_id}, ruled with their "
                "label in file order"
            ),
            f"{'':<28} {'engine':>8} {'memory':>8}",
            f"{'answered':<28} {self.n:>8} {self.covered:>8}",
            f"{'coverage':<28} {1.0 if self.n else 0.0:>8.2f} {self.memory_coverage:>8.2f}",
            (
                f"{'accuracy (answered)':<28} {self.engine_accuracy:>8.2f} "
                f"{mem(self.memory_accuracy)}"
            ),
            (
                f"{'macro-F1 (answered)':<28} {self.engine_macro_f1:>8.2f} "
                f"{mem(self.memory_macro_f1)}"
            ),
            f"{'engine accuracy, covered':<28} {mem(self.engine_on_covered)}",
            (
                f"requests with a similar ruling: {self.with_similar} "
                f"(similarity >= {SIMILARITY_MIN}, etki.triage.similar)"
            ),
        ]
        near = sorted(r.nearest.similarity for r in self.rows if r.nearest is not None)
        if near:
            same = sum(
                1 for r in self.rows if r.nearest is not None and r.nearest.ruling == r.label
            )
            out.append(
                f"nearest earlier ruling (any similarity, descriptive): median "
                f"{near[len(near) // 2]:.2f}, max {near[-1]:.2f}; its ruling is the "
                f"label for {same} of {len(near)}"
            )
        spoke = [r for r in self.rows if r.memory_verdict is not None]
        if spoke:
            out.append("")
            out += [
                f"memory {r.id}: label {r.label}, engine {r.verdict}, memory "
                f"{r.memory_verdict} ({len(r.similar)} similar)"
                for r in spoke
            ]
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures (rounded to 4 decimals; memory figures None when the
        memory covered no request) and rows."""
        return {
            "project_id": self.project_id,
            "n": self.n,
            "engine": {
                "accuracy": round(self.engine_accuracy, 4),
                "macro_f1": round(self.engine_macro_f1, 4),
            },
            "memory": {
                "covered": self.covered,
                "coverage": round(self.memory_coverage, 4),
                "accuracy": round(self.memory_accuracy, 4) if self.covered else None,
                "macro_f1": round(self.memory_macro_f1, 4) if self.covered else None,
                "engine_accuracy_on_covered": round(self.engine_on_covered, 4)
                if self.covered
                else None,
                "with_similar": self.with_similar,
                "similarity_min": SIMILARITY_MIN,
            },
            "nearest": {
                "n": sum(1 for r in self.rows if r.nearest is not None),
                "same_ruling": sum(
                    1 for r in self.rows if r.nearest is not None and r.nearest.ruling == r.label
                ),
                "max": max(
                    (r.nearest.similarity for r in self.rows if r.nearest is not None), default=None
                ),
            },
            "rows": [
                {
                    "id": r.id,
                    "label": r.label,
                    "verdict": r.verdict,
                    "memory_verdict": r.memory_verdict,
                    "similar": [[s.case_id, s.ruling, s.similarity] for s in r.similar],
                    "nearest": (
                        [r.nearest.case_id, r.nearest.ruling, r.nearest.similarity]
                        if r.nearest is not None
                        else None
                    ),
                }
                for r in self.rows
            ],
        }


def replay(
    project: Project,
    index: KnowledgeIndex,
    rows: Sequence[LabelledRow],
    *,
    settings: Settings | None = None,
) -> ReplayReport:
    """Triage each of ``rows`` in order, compute the memory beside it from the rulings
    so far, then rule it with its label (in memory; see the module docstring). The
    engine is :func:`etki.engines.make_engine_for` over ``project``/``index`` with no
    ruled cases (its verdict does not read memory). Raises ``InputError`` for a row
    whose label is not a verdict."""
    from etki.engines import clause_background, make_engine_for
    from etki.errors import InputError
    from etki.triage import case_id_for
    from etki.triage.similar import RuledRequest, RulingIndex

    engine = make_engine_for(project, index, [], settings or Settings())
    languages = project.config.languages
    background = clause_background(project.clauses, languages)  # as the desk's index
    ruled: list[RuledRequest] = []
    out: list[ReplayRow] = []
    memory_index: RulingIndex | None = None
    for row in rows:
        if row.verdict not in VERDICTS:
            raise InputError(
                f"replay: request {row.id!r} has label {row.verdict!r}; use "
                f"one of {', '.join(VERDICTS)}"
            )
        case_id = case_id_for(project.id, "eval\0" + row.id)
        decision = engine.triage(case_id, row.text, row.title)
        memory_index = RulingIndex(ruled, languages, background, reuse=memory_index)
        beside = memory_index.beside(row.title, row.text, exclude=case_id)
        nearest = memory_index.similar(row.title, row.text, exclude=case_id, threshold=0.0, limit=1)
        out.append(
            ReplayRow(
                row.id,
                row.verdict,
                decision.verdict,
                beside.verdict,
                beside.similar,
                nearest[0] if nearest else None,
            )
        )
        ruled.append(RuledRequest(case_id, row.title, row.text, row.verdict))
    return ReplayReport(project.id, tuple(out))
