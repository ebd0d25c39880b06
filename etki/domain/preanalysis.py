"""A developer pre-analysis of a case (issue 14 item 9; part of :mod:`etki.domain`,
re-exported there): the claims a language model wrote, each naming the context node it
rests on, as saved with the case.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

PREANALYSIS_STATUSES = ("ok", "error")
"""``status`` of a saved :class:`Preanalysis`."""


@dataclass(frozen=True)
class Claim:
    """One claim of a pre-analysis: the model's ``text`` and the ``node`` it rests on
    (the id of a node of the case's related-context block, checked when it was saved).
    Both are model text: untrusted, shown literally."""

    text: str
    node: str


@dataclass(frozen=True)
class PreanalysisBody:
    """What a model wrote for a developer about a case (:mod:`etki.preanalysis`), each
    claim naming its node: ``affected_modules``, ``approach``, ``open_questions``, one
    rough ``effort`` remark (None when the model gave none), the claims ``dropped``
    because they named a node that is not in the context block (``(section, node)``
    pairs, in the order given) and where the block came from: ``context`` is
    ``stored`` (the case's related-context block) or ``packed`` (none was stored: packed
    when the pre-analysis was asked for), with ``context_nodes`` its node count."""

    affected_modules: tuple[Claim, ...] = ()
    approach: tuple[Claim, ...] = ()
    open_questions: tuple[Claim, ...] = ()
    effort: Claim | None = None
    dropped: tuple[tuple[str, str], ...] = ()
    context: str = "stored"
    context_nodes: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The body as JSON-ready data (what ``preanalyses.body_json`` holds)."""

        def claims(items: tuple[Claim, ...]) -> list[dict[str, str]]:
            return [{"node": c.node, "text": c.text} for c in items]

        return {
            "affected_modules": claims(self.affected_modules),
            "approach": claims(self.approach),
            "open_questions": claims(self.open_questions),
            "effort": None
            if self.effort is None
            else {"node": self.effort.node, "text": self.effort.text},
            "dropped": [{"section": s, "node": n} for s, n in self.dropped],
            "context": self.context,
            "context_nodes": self.context_nodes,
        }

    def to_json(self) -> str:
        """Canonical JSON text of :meth:`to_dict` (sorted keys, UTF-8, compact)."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> PreanalysisBody:
        """The body :meth:`to_json` wrote. Raises ``ValueError`` for anything else."""
        doc = json.loads(text)

        def claims(key: str) -> tuple[Claim, ...]:
            return tuple(Claim(str(c["text"]), str(c["node"])) for c in doc.get(key) or ())

        effort = doc.get("effort")
        try:
            return cls(
                affected_modules=claims("affected_modules"),
                approach=claims("approach"),
                open_questions=claims("open_questions"),
                effort=None if effort is None else Claim(str(effort["text"]), str(effort["node"])),
                dropped=tuple(
                    (str(d["section"]), str(d["node"])) for d in doc.get("dropped") or ()
                ),
                context=str(doc.get("context") or "stored"),
                context_nodes=int(doc.get("context_nodes") or 0),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a pre-analysis body: {exc}") from exc

    @property
    def claims(self) -> tuple[tuple[str, Claim], ...]:
        """Every kept claim with its section name, in page order."""
        out = [("affected_modules", c) for c in self.affected_modules]
        out += [("approach", c) for c in self.approach]
        out += [("open_questions", c) for c in self.open_questions]
        if self.effort is not None:
            out.append(("effort", self.effort))
        return tuple(out)


@dataclass(frozen=True)
class Preanalysis:
    """A saved pre-analysis of a case (table ``preanalyses``): which ``model`` wrote it
    with which ``prompt_version``, when (``created_at``, ISO-8601 UTC), its ``status``
    (``ok``: ``body`` holds it; ``error``: ``error`` says why nothing usable came back,
    ``body`` is None). Never an input to the verdict."""

    case_id: str
    model: str
    prompt_version: str
    status: str
    created_at: str
    body: PreanalysisBody | None = None
    error: str | None = None
