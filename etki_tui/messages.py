"""Typed messages the workers post back to the app. Declared here, in one place.

Workers never touch widgets: they call the desk in a thread and post one of these to
the app, whose handlers update the screen on the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from textual.message import Message

from etki.approval import RulingOutcome
from etki.domain import CaseRecord, ClauseMemory, ScopeClause
from etki.memory import DisputedClause
from etki.services import Report


class QueueLoaded(Message):
    """The pending queue of a project, with the clauses and clause memory the detail
    pane needs (so highlighting a row never blocks on the DB)."""

    def __init__(self, project_id: str, project_name: str, cases: Sequence[CaseRecord],
                 clauses: Mapping[str, ScopeClause],
                 memory: Mapping[str, ClauseMemory]) -> None:
        super().__init__()
        self.project_id = project_id
        self.project_name = project_name
        self.cases = list(cases)
        self.clauses = dict(clauses)
        self.memory = dict(memory)


class RulingCommitted(Message):
    """A ruling was committed; ``memory`` is the clause memory after it."""

    def __init__(self, case_id: str, action: str, outcome: RulingOutcome,
                 memory: Mapping[str, ClauseMemory]) -> None:
        super().__init__()
        self.case_id = case_id
        self.action = action
        self.outcome = outcome
        self.memory = dict(memory)


class RulingConflict(Message):
    """Someone ruled the case first (optimistic locking). ``ruled_by``/``ruled_at``/
    ``ruling`` say who won; the queue is reloaded."""

    def __init__(self, case_id: str, ruled_by: str | None, ruled_at: str | None,
                 ruling: str | None, message: str) -> None:
        super().__init__()
        self.case_id = case_id
        self.ruled_by = ruled_by
        self.ruled_at = ruled_at
        self.ruling = ruling
        self.message = message


class RulingFailed(Message):
    """A ruling was refused (bad input, permission, missing case) or failed."""

    def __init__(self, case_id: str, action: str, message: str) -> None:
        super().__init__()
        self.case_id = case_id
        self.action = action
        self.message = message


class SearchResults(Message):
    """Wiki search hits for ``query`` (path, line, snippet), or ``error``."""

    def __init__(self, query: str, hits: Sequence[Any], error: str | None = None) -> None:
        super().__init__()
        self.query = query
        self.hits = list(hits)
        self.error = error


class MemoryLoaded(Message):
    """Precedents and disputed clauses (from the DB) and the decision-file list."""

    def __init__(self, precedents: Sequence[CaseRecord], disputed: Sequence[DisputedClause],
                 clauses: Mapping[str, ScopeClause], pages: Sequence[str],
                 wiki_on: bool) -> None:
        super().__init__()
        self.precedents = list(precedents)
        self.disputed = list(disputed)
        self.clauses = dict(clauses)
        self.pages = list(pages)
        self.wiki_on = wiki_on


class PageLoaded(Message):
    """The text of one wiki page, or ``error``."""

    def __init__(self, path: str, text: str, error: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.text = text
        self.error = error


class ReportLoaded(Message):
    """Counts for Raporlar."""

    def __init__(self, report: Report) -> None:
        super().__init__()
        self.report = report


class DeskFailed(Message):
    """A background read failed; ``what`` names it, ``message`` says why."""

    def __init__(self, what: str, message: str) -> None:
        super().__init__()
        self.what = what
        self.message = message
