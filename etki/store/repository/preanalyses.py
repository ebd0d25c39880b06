"""The pre-analysis part of the store (issue 14 item 9): saved developer pre-analyses of
a case, one row per generation (table ``preanalyses``, migration 0005), the newest shown.

A save appends, in the same transaction, an audit row (``action`` ``preanalyse``,
``outcome`` :data:`PREANALYSED`, empty ``reason``; ``before``/``after`` the case's
state, which does not change; its ``version`` the case's, which does not move): the
wiki projector sees every change through the audit log (:mod:`etki.wiki.projection`),
so the case's decision page is re-rendered with the new pre-analysis, in this process
or when another catches up, and the case's history shows who asked for it. The case's
version is not bumped: a pre-analysis is no ruling, and a reviewer who saw the case
before it arrived must still be able to rule on it.
"""

from __future__ import annotations

from sqlalchemy import func, select

from etki.domain import PREANALYSIS_STATUSES, Preanalysis
from etki.errors import InputError
from etki.identity import current_process
from etki.store.models import AuditRow, CaseRow, PreanalysisRow, RulingRow
from etki.store.repository.base import UNSTORABLE, StoreBase, iso
from etki.store.repository.rows import ARRIVAL, PREANALYSIS_COLUMNS, preanalysis_of

__all__ = ["PREANALYSE", "PREANALYSED", "PreanalysisStore"]

PREANALYSE = "preanalyse"
"""``action`` of the audit row a saved pre-analysis appends."""
PREANALYSED = "preanalysed"
"""``outcome`` of that audit row (never ``committed``: it is no ruling)."""


def _clean(text: str | None) -> str | None:
    """Model or endpoint text as text both backends can store: NUL and lone
    surrogates become U+FFFD (the text is shown literally anyway)."""
    return None if text is None else UNSTORABLE.sub("\ufffd", text)


class PreanalysisStore(StoreBase):
    """Save and read a case's pre-analyses."""

    def save_preanalysis(
        self,
        case_id: str,
        *,
        model: str,
        prompt_version: str,
        status: str,
        body_json: str = "{}",
        error: str | None = None,
        actor: str,
    ) -> Preanalysis:
        """Append a pre-analysis of ``case_id`` (``status`` ``ok`` with ``body_json``, or
        ``error`` with ``error``) and its audit row (``actor``: who asked for it, with
        the process identity) in one transaction; returns it as read back. Model and
        endpoint text with NUL or lone surrogates is stored with U+FFFD in their place.
        Raises :class:`NotFoundError` for an unknown (or erased) case and
        :class:`InputError` for an unknown status."""
        if status not in PREANALYSIS_STATUSES:
            raise InputError(f"unknown pre-analysis status {status!r}")
        values: dict[str, str | None] = {
            "case_id": case_id,
            "model": _clean(model) or "",
            "prompt_version": _clean(prompt_version) or "",
            "status": status,
            "body_json": _clean(body_json) if status == "ok" else "{}",
            "error": _clean(error) if status == "error" else None,
        }
        with self._write() as s:
            case = self.lock_case(s, case_id)  # an erasure holding it: refused after
            now = iso(self.now(s))
            values["created_at"] = now
            ruling = s.get(RulingRow, case_id)
            state = ruling.ruling if ruling is not None else "pending"
            s.add(PreanalysisRow(**values))
            s.add(
                AuditRow(
                    case_id=case_id,
                    reviewer=_clean(actor) or "",
                    action=PREANALYSE,
                    ruling=state,
                    reason="",
                    at=now,
                    version=case.version,
                    outcome=PREANALYSED,
                    before=state,
                    after=state,
                    **current_process().columns(),
                )
            )
        saved = preanalysis_of(
            case_id,
            str(values["model"]),
            str(values["prompt_version"]),
            status,
            now,
            str(values["body_json"]),
            values["error"],
        )
        assert saved is not None
        return saved

    def preanalysis(self, case_id: str) -> Preanalysis | None:
        """The newest pre-analysis of ``case_id``, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(*PREANALYSIS_COLUMNS)
                .where(PreanalysisRow.case_id == case_id)
                .order_by(PreanalysisRow.id.desc())
                .limit(1)
            ).first()
        return preanalysis_of(*row) if row is not None else None

    def preanalyses(self, case_id: str) -> list[Preanalysis]:
        """Every pre-analysis of ``case_id``, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(*PREANALYSIS_COLUMNS)
                .where(PreanalysisRow.case_id == case_id)
                .order_by(PreanalysisRow.id)
            ).all()
        return [p for r in rows if (p := preanalysis_of(*r)) is not None]

    def preanalysis_mark(self, project_id: str) -> int:
        """The newest pre-analysis row id of ``project_id``'s cases (0: none): rows are
        append-only, so a pre-analysis saved anywhere changes it, though it changes no
        case version (the desk's live refresh compares it)."""
        stmt = (
            select(func.max(PreanalysisRow.id))
            .join(CaseRow, CaseRow.id == PreanalysisRow.case_id)
            .where(CaseRow.project_id == project_id)
        )
        with self.engine.connect() as conn:
            return int(conn.execute(stmt).scalar() or 0)

    def cases_without_preanalysis(self, project_id: str) -> list[str]:
        """Ids of the cases of ``project_id`` that have no saved pre-analysis, in
        arrival order."""
        stmt = (
            select(CaseRow.id)
            .where(
                CaseRow.project_id == project_id,
                ~select(PreanalysisRow.id).where(PreanalysisRow.case_id == CaseRow.id).exists(),
            )
            .order_by(*ARRIVAL)
        )
        with self.engine.connect() as conn:
            return [str(c) for (c,) in conn.execute(stmt)]
