"""A disputed clause and a person's resolution of one (part of :mod:`etki.domain`,
re-exported there and from :mod:`etki.domain.cases`): the two values ``etki dispute
list`` prints. They import no other part of the domain, so that command loads only this
part (issue 32 item 1: importing the whole domain, 41 frozen dataclasses, cost it ~35 ms
of CPU)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from etki.domain.decision import Verdict

__all__ = ["ClauseResolution", "DisputeCount", "DisputedClause"]


@dataclass(frozen=True)
class ClauseResolution:
    """A person's resolution of a disputed clause (issue 14 item 6; a row of
    ``clause_resolutions``): the PMO's ``verdict`` (the ruling the clause calls for:
    IN_SCOPE, CHANGE_REQUEST or REJECT) with their ``reason`` (untrusted free text: show
    it literally), who (``reviewer``, NFC) and when (``at``, ISO-8601 UTC to the second).
    ``id`` is the store's row id: append-only, the highest of a clause is in force."""

    id: int
    project_id: str
    ref: str
    verdict: Verdict
    reason: str
    reviewer: str
    at: str


@dataclass(frozen=True)
class DisputedClause:
    """A disputed clause and its ruling history (case_id, ruling, reviewer, ruled_at),
    with the resolution in force and the case that overrode it (see
    :class:`ClauseMemory`)."""

    ref: str
    history: tuple[tuple[str, str, str, str], ...]
    resolution: ClauseResolution | None = None
    overridden_by: str | None = None
    disputing: tuple[tuple[str, str, str, str], ...] = ()
    """The entries of ``history`` whose ruling is about the clause
    (:attr:`ClauseMemory.disputing`); empty: all of them."""

    @property
    def rulings(self) -> tuple[str, ...]:
        """The distinct rulings the dispute is between (those about the clause), sorted."""
        return tuple(sorted({h[1] for h in (self.disputing or self.history)}))

    @property
    def resolved(self) -> bool:
        """A resolution stands (no ruling after it disagrees)."""
        return self.resolution is not None and self.overridden_by is None

    @property
    def open_dispute(self) -> bool:
        """Not resolved (never, or re-disputed by a later ruling): as
        :attr:`ClauseMemory.open_dispute` of the same clause, so the risk a disputed clause
        raises (:func:`etki.memory.open_disputed_refs`) reads either."""
        return not self.resolved


@dataclass(frozen=True)
class DisputeCount:
    """A disputed clause as the per-clause counts kept at ruling time say it (migration
    0013; :func:`etki.memory.disputes_counted`): what ``etki dispute list`` prints and
    ``etki queue`` asks (``open_dispute``) of a :class:`DisputedClause`, without its
    history. ``rulings``: the distinct rulings the dispute is between, sorted (as
    :attr:`DisputedClause.rulings`); ``ruled``: how many lines its history has (the
    current rulings citing it, ``len(DisputedClause.history)``); ``resolution`` and
    ``overridden_by`` as there."""

    ref: str
    rulings: tuple[str, ...]
    ruled: int
    resolution: ClauseResolution | None = None
    overridden_by: str | None = None

    @property
    def resolved(self) -> bool:
        """A resolution stands (no ruling after it disagrees)."""
        return self.resolution is not None and self.overridden_by is None

    @property
    def open_dispute(self) -> bool:
        """Not resolved (never, or re-disputed by a later ruling), as
        :attr:`DisputedClause.open_dispute`."""
        return not self.resolved
