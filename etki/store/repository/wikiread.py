"""The reads of the wiki projection: a cheap change token to poll, the project as
the wiki renders it, and every case as the brief the shared pages read. Whole cases
come from :meth:`~etki.store.repository.cases.CaseStore.cases` and
:meth:`~etki.store.repository.cases.CaseStore.cases_by_id`.
"""

from __future__ import annotations

from sqlalchemy import Connection, func, select

from etki.domain import CaseBrief, Project
from etki.errors import NotFoundError
from etki.store.models import AuditRow, CaseRow, ClauseResolutionRow, ProjectRow
from etki.store.repository.base import StoreBase
from etki.store.repository.rows import ARRIVAL, brief_of, brief_select


def _audit_after(conn: Connection, after_id: int) -> list[tuple[int, str]]:
    """``(audit id, case id)`` of the audit rows with an id above ``after_id``, oldest
    first."""
    return [
        (int(i), str(c))
        for i, c in conn.execute(
            select(AuditRow.id, AuditRow.case_id)
            .where(AuditRow.id > after_id)
            .order_by(AuditRow.id)
        )
    ]


class WikiReads(StoreBase):
    """What the wiki projection reads that no other caller does."""

    def wiki_token(self, project_id: str) -> tuple[object, ...]:
        """A cheap change token of what the wiki reads of ``project_id``: the project row's
        ``index_hash`` (the hash of the whole knowledge index: clauses, contracts, modules),
        ``name``, ``config_json``, ``root`` and ``edge_types_json`` (a re-load that changes
        what the wiki shows changes one of them; ``loaded_at`` is left out on purpose: on
        SQLite it sits after the large index text and costs milliseconds to reach), then
        the number of its resolutions of disputed clauses (``clause_resolutions`` is
        append-only, so a new one changes it: the projector then renders the tree again,
        as after a re-load), then the number of its cases and the newest audit-log id
        (every ruling and erasure appends one). Shape: ``(index_hash, name, config_json,
        root, edge_types_json, resolution_count, case_count, max_audit_id)``. Raises
        :class:`NotFoundError` for an unknown project."""
        return self.wiki_poll(project_id, None)[0]

    def wiki_poll(
        self,
        project_id: str,
        after_audit_id: int | None,
    ) -> tuple[tuple[object, ...], list[tuple[int, str]]]:
        """:meth:`wiki_token` and, unless ``after_audit_id`` is None,
        :meth:`audit_since` of it, read on one connection (the HITL hook's poll).
        Raises :class:`NotFoundError` for an unknown project."""
        p, a, c = ProjectRow.__table__.c, AuditRow.__table__.c, CaseRow.__table__.c
        count_q = (
            select(func.count())
            .select_from(CaseRow.__table__)
            .where(c.project_id == project_id)
            .scalar_subquery()
        )
        audit_q = select(func.max(a.id)).scalar_subquery()
        r = ClauseResolutionRow.__table__.c
        resolved_q = (
            select(func.count())
            .select_from(ClauseResolutionRow.__table__)
            .where(r.project_id == project_id)
            .scalar_subquery()
        )
        with self.engine.connect() as conn:
            row = conn.execute(
                select(
                    p.index_hash,
                    p.name,
                    p.config_json,
                    p.root,
                    p.edge_types_json,
                    resolved_q,
                    count_q,
                    audit_q,
                ).where(p.id == project_id)
            ).first()
            if row is None:
                raise NotFoundError(f"no project '{project_id}' in the store")
            *head, count, audit = tuple(row)
            rows = [] if after_audit_id is None else _audit_after(conn, after_audit_id)
        return (*head, int(count or 0), int(audit or 0)), rows

    def case_project_id(self, case_id: str) -> str:
        """The project id of a stored case. Raises :class:`NotFoundError` naming the
        id."""
        with self.engine.connect() as conn:
            pid = conn.execute(
                select(CaseRow.__table__.c.project_id).where(CaseRow.__table__.c.id == case_id)
            ).scalar()
        if pid is None:
            raise NotFoundError(f"no case '{case_id}' in the store")
        return str(pid)

    def wiki_project(self, project_id: str) -> Project:
        """The stored project as far as the wiki reads it: like :meth:`load_project`
        (same config, contracts, clauses, modules, work items, edge types) but without
        clause edges (``edges`` is empty on every clause): the wiki does not render
        them, and they are most of the read. (Work items are read for the effort basis
        of the change-request pages.) Raises :class:`NotFoundError` for an unknown
        project."""
        return self._read_project(project_id, whole=False, workitems=True)

    def audit_since(self, after_id: int) -> list[tuple[int, str]]:
        """``(audit id, case id)`` of every audit row with an id above ``after_id``, oldest
        first (rulings, refused attempts and erasure tombstones of every project)."""
        with self.engine.connect() as conn:
            return _audit_after(conn, after_id)

    def wiki_case_briefs(self, project_id: str) -> list[CaseBrief]:
        """Every case of ``project_id`` as the :class:`CaseBrief` the wiki's shared pages
        read, without building full decisions (each frozen decision's JSON is parsed and
        dropped at once, so reading 10,000 cases never holds them all). Arrival order as
        :meth:`cases`."""
        stmt = brief_select().where(CaseRow.project_id == project_id).order_by(*ARRIVAL)
        with self.engine.connect() as conn:
            return [brief_of(*r) for r in conn.execute(stmt)]
