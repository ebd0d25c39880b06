"""The desk's cases: the queue, a case and its history, short ids, notes, claims and
views. :class:`DeskCases` is a part of :class:`etki.services.Desk` (it derives from
it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from etki.errors import NotFoundError
from etki.services.preanalysis import FOLDER_SOURCES

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import CaseEvent, CaseRecord, CaseSummary
    from etki.store import CaseFileRepository


class _Desk(Protocol):
    """What the case methods read of the desk they are part of."""

    repo: CaseFileRepository
    settings: Settings

    def _require_reviewer(self, case_id: str, action: str, writes: str) -> str: ...
    def project_ruling(self, case_id: str) -> tuple[object | None, str | None]: ...


class DeskCases:
    """The case methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    # cases
    def queue(self: _Desk, project_id: str, status: str | None = "pending") -> list[CaseRecord]:
        """Cases of a project (pending by default), oldest first."""
        return self.repo.cases(project_id, status=status)

    def case_id_for(self: _Desk, text: str) -> str:
        """The stored case id ``text`` names: itself when it is one (or holds a ``-``:
        a full id, stored or not, is left to the command to refuse), else the one case
        whose id ends in ``-{text}`` (the short id the desk's queue shows); when no
        stored case does, the one gone case that does (of a deleted project, or erased:
        :meth:`etki.store.CaseFileRepository.gone_case_ids_ending`), which the command
        then reads as it reads the whole id (``etki show`` says what became of it). Raises
        ``InputError`` naming the candidates when several end so, ``NotFoundError`` when
        none does (saying what a short id is: a trial typed the first four characters)."""
        from etki.store.lean_case import resolve_case_id

        return resolve_case_id(text, self.repo.case_ids_ending, self.repo.gone_case_ids_ending)

    def case(self: _Desk, case_id: str) -> CaseRecord:
        return self.repo.case(case_id)

    def folder_request_id(self: _Desk, case_id: str) -> str | None:
        """The request id of a stored case that was stored from its project folder's
        ``requests.jsonl`` (its ``imported`` event's source is :data:`FOLDER_SOURCES`:
        ``etki init`` or the desk's Ctrl+R), so erasing it means removing that row from
        the file too; None for ``etki add``/``etki import``, for a case stored before
        import events were written (its source is not known) and for a case not stored
        (erased, or of a deleted project: its kept history still lists the import, but
        no case row names the request). Read it before the erasure: an erased case has
        no sources left."""
        try:
            history = self.repo.case_history(case_id)
        except NotFoundError:
            return None
        if not any(ev.kind == "imported" and ev.text in FOLDER_SOURCES for ev in history):
            return None
        try:
            return self.repo.case(case_id).request_id
        except NotFoundError:  # a deleted project's case: its history outlived its row
            return None

    def case_history(self: _Desk, case_id: str) -> list[CaseEvent]:
        """Every event of a case, oldest first (imported, triaged, viewed, ruled,
        amended, refused attempts, erased, notes, claims):
        :meth:`etki.store.CaseFileRepository.case_history`, what ``etki show`` and the
        detail pane list. Raises ``NotFoundError`` when the store holds nothing of it."""
        return self.repo.case_history(case_id)

    def add_note(self: _Desk, case_id: str, text: str) -> tuple[CaseEvent, str | None]:
        """Add the acting reviewer's note to a case (``etki note``, ``m`` on the desk):
        :meth:`etki.store.CaseFileRepository.add_note`, then the wiki hook renders the
        case's page with it (best effort, as after a ruling). Returns the note and the
        wiki error (None when written or the wiki is off). Raises ``InputError``,
        ``NotFoundError``, ``PermissionDeniedError``."""
        who = self._require_reviewer(case_id, "add a note", "notes")
        note = self.repo.add_note(case_id, who, text)
        _report, error = self.project_ruling(case_id)
        return note, error

    def claim(self: _Desk, case_id: str, minutes: int = 30) -> CaseEvent:
        """The acting reviewer claims a case for ``minutes`` (``etki claim``, ``x``):
        others see "claimed by NAME" in the queue until it expires or is released."""
        who = self._require_reviewer(case_id, "claim a case", "claims")
        return self.repo.claim(case_id, who, minutes)

    def release_claim(self: _Desk, case_id: str) -> CaseEvent:
        """End the acting reviewer's claim of a case (``etki claim --release``, ``x``)."""
        from etki.identity import reviewer_name

        return self.repo.release(case_id, reviewer_name(self.settings.reviewer))

    def claims(self: _Desk, project_id: str) -> dict[str, CaseEvent]:
        """case id -> live claim of every claimed case of the project (expired and
        released ones absent)."""
        return self.repo.live_claims(project_id)

    def record_view(self: _Desk, case_id: str) -> bool:
        """Write that this desk's reviewer opened ``case_id`` (at most once an hour per
        reviewer and case: :meth:`etki.store.CaseFileRepository.record_view`); True when
        a row was written. The desk calls it from a worker, never on the keys."""
        from etki.identity import reviewer_name

        return self.repo.record_view(case_id, reviewer_name(self.settings.reviewer))

    def versions(self: _Desk, project_id: str) -> dict[str, int]:
        return self.repo.versions(project_id)

    def queue_summaries(
        self: _Desk, project_id: str, status: str | None = "pending"
    ) -> list[CaseSummary]:
        """Like :meth:`queue`, as light :class:`~etki.domain.CaseSummary`
        rows (listed columns only; no evidence chains): for a queue of many cases."""
        return self.repo.case_summaries(project_id, status=status)

    def cases(self: _Desk, case_ids: list[str]) -> list[CaseRecord]:
        """The whole cases of ``case_ids`` that exist, in the order asked (one query)."""
        return self.repo.cases_by_id(case_ids)
