"""The reads of the wiki projection: a cheap change token to poll, the project as
the wiki renders it, and every case as the brief the shared pages read. Whole cases
come from :meth:`~etki.store.repository.cases.CaseStore.cases` and
:meth:`~etki.store.repository.cases.CaseStore.cases_by_id`.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import Connection, Select, String, bindparam, func, select

from etki.domain import CaseBrief, Project
from etki.errors import NotFoundError
from etki.store.models import AuditRow, CaseRow, ClauseResolutionRow, MetaRow, ProjectRow
from etki.store.repository.base import StoreBase
from etki.store.repository.rows import ARRIVAL, brief_of, brief_select

STORE_ID_KEY = "store_id"
"""The ``etki_meta`` key of the store's identity: a random hex string written once, by
the first process that opens the store for writing (no schema change: a row)."""


def _audit_after(conn: Connection, after_id: int) -> list[tuple[int, str]]:
    """``(audit id, case id)`` of the audit rows with an id above ``after_id``, oldest
    first. (One ``fetchall``: the HITL poll reads the ~256 rows of the audit window on
    every ruling, and row-by-row iteration was most of the poll.)"""
    rows = conn.execute(_audit_select(), {"after_id": after_id}).all()
    return [(int(i), str(c)) for i, c in rows]


@functools.cache  # built once: the HITL hook polls on every ruling
def _audit_select() -> Select[Any]:
    """The select of :func:`_audit_after`, for the bound ``after_id``."""
    a = AuditRow.__table__.c
    return select(a.id, a.case_id).where(a.id > bindparam("after_id")).order_by(a.id)


@functools.cache  # built once: the HITL hook polls on every ruling
def _poll_select() -> Select[Any]:
    """The select of :meth:`WikiReads.wiki_poll`'s token, for the bound ``project_id``."""
    p, a, c = ProjectRow.__table__.c, AuditRow.__table__.c, CaseRow.__table__.c
    r = ClauseResolutionRow.__table__.c
    pid = bindparam("project_id", type_=String())
    count_q = (
        select(func.count()).select_from(CaseRow.__table__).where(c.project_id == pid)
    ).scalar_subquery()
    resolved_q = (
        select(func.count()).select_from(ClauseResolutionRow.__table__).where(r.project_id == pid)
    ).scalar_subquery()
    audit_q = select(func.max(a.id)).scalar_subquery()
    return select(
        p.index_hash,
        p.name,
        p.config_json,
        p.root,
        p.edge_types_json,
        resolved_q,
        count_q,
        audit_q,
    ).where(p.id == pid)


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
        with self.engine.connect() as conn:
            row = conn.execute(_poll_select(), {"project_id": project_id}).first()
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

    def store_id(self) -> str | None:
        """The store's identity (:data:`STORE_ID_KEY`), or None for a store opened read-only
        that never had a writer since it was made by an older Etki. Two stores never share
        one, a copy of a store file has its original's: the wiki's render cache
        (:mod:`etki.wiki.rendercache`) keys pages on it, so a store made again at the same
        path never meets the pages of the old one."""
        with self.engine.connect() as conn:
            value = conn.execute(select(MetaRow.value).where(MetaRow.key == STORE_ID_KEY)).scalar()
        return None if value is None else str(value)

    def wiki_case_stamps(self, project_id: str) -> dict[str, str]:
        """case id -> ``"{newest audit id}@{newest audit time}"`` (``"0@"`` when it has
        none) for every case of ``project_id``: the render cache's key of what the
        case's pages read (:func:`etki.wiki.pages.page_keys`). Every change a case's
        wiki pages read (a ruling, an amendment, a note, a pre-analysis) appends an
        audit row. The id alone is not enough: a store restored from a copy and ruled
        again reuses ids for rows of other content (tests/test_crash.py's kills found a
        decision page of the run before), so the time of the newest row is in the stamp
        too; a row of other content with the same id and the same second after such a
        restore would still meet the old page (verify names it; deleting the cache file
        beside the wiki and rebuilding restores it)."""
        c, a = CaseRow.__table__.c, AuditRow.__table__.c
        stmt = (
            select(c.id, func.max(a.id), func.max(a.at))
            .select_from(CaseRow.__table__.outerjoin(AuditRow.__table__, a.case_id == c.id))
            .where(c.project_id == project_id)
            .group_by(c.id)
        )
        with self.engine.connect() as conn:
            return {str(cid): f"{int(top or 0)}@{at or ''}" for cid, top, at in conn.execute(stmt)}

    def wiki_case_briefs(self, project_id: str) -> list[CaseBrief]:
        """Every case of ``project_id`` as the :class:`CaseBrief` the wiki's shared pages
        read, without building full decisions (each frozen decision's JSON is parsed and
        dropped at once, so reading 10,000 cases never holds them all). Arrival order as
        :meth:`cases`."""
        stmt = brief_select().where(CaseRow.project_id == project_id).order_by(*ARRIVAL)
        with self.engine.connect() as conn:
            return [brief_of(*r) for r in conn.execute(stmt)]
