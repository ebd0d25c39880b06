"""The project part of the store: a project folder's knowledge and reviewers saved and
read back, and the audit of every change to a reviewer list.

Re-loading a project replaces its knowledge (clauses, modules, work items) and keeps
its cases, decisions and rulings; it changes the project's reviewers only when asked to
(``update_reviewers``), and every creation of or attempt to change a reviewer list is
written to ``project_audit`` with the asserted reviewer and the process that wrote it
(OS user, host, pid, program: :func:`etki.identity.current_process`).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from etki.domain import Project, ProjectConfig, Reviewer, ScopeClause, WorkItem
from etki.errors import InputError, PermissionDeniedError, ReviewersChangedError
from etki.frontmatter import unstorable_path
from etki.identity import current_process, is_listed_approver, reviewer_name
from etki.store.models import (
    ClauseRow,
    ContractRow,
    ModuleRow,
    ProjectAuditRow,
    ProjectRow,
    WorkItemRow,
)
from etki.store.repository.base import UNSTORABLE, StoreBase, iso, storable
from etki.store.repository.rows import (
    CLAUSE_COLUMNS,
    WORKITEM_COLUMNS,
    clause_of,
    clause_row,
    config_of,
    workitem_of,
)
from etki.store.summary import refresh_corrections


@dataclass(frozen=True)
class ProjectAuditEntry:
    """One row of ``project_audit`` (:class:`etki.store.models.ProjectAuditRow`): a
    project's reviewer list created (``created``), changed (``changed``), or a change
    refused (``refused``: no ``--update-reviewers``; ``denied``: not an approver).
    ``before`` and ``after`` are the stored and the loaded folder's reviewers, sorted by
    name then role; names are client text (``etki.yaml``): untrusted.

    A change of the accepted remit (action ``remit``, :mod:`etki.store.repository.remit`)
    has no reviewer lists (``before``/``after`` empty): ``remit_before`` and
    ``remit_after`` are the statements in force, as ``(ref, source ref, text)``, and
    ``reason`` the revocation's reason (or what a denied attempt asked).

    An archive, unarchive or deletion of the project (action ``archive`` or ``delete``,
    :mod:`etki.store.repository.lifecycle`) keeps the project's reviewers in ``before``
    and its reason in ``reason``; ``after`` is empty."""

    id: int
    project_id: str
    action: str
    outcome: str
    before: tuple[Reviewer, ...]
    after: tuple[Reviewer, ...]
    root: str
    reviewer: str
    at: str
    os_user: str
    host: str
    pid: int
    program: str
    remit_before: tuple[tuple[str, str, str], ...] = ()
    remit_after: tuple[tuple[str, str, str], ...] = ()
    reason: str = ""


def _remit_items(raw: str) -> tuple[tuple[str, str, str], ...]:
    return tuple((x["ref"], x["source"], x["text"]) for x in json.loads(raw)["remit"])


def _reviewer_set(reviewers: Iterable[Reviewer]) -> tuple[Reviewer, ...]:
    """``reviewers`` with normalised names (:func:`etki.identity.reviewer_name`), as a
    sorted tuple: what decides whether two lists grant the same rights (order in
    ``etki.yaml`` does not)."""
    return tuple(
        sorted(
            {Reviewer(reviewer_name(r.name), r.role) for r in reviewers},
            key=lambda r: (r.name, r.role),
        )
    )


def _reviewers_json(reviewers: tuple[Reviewer, ...]) -> str:
    return json.dumps([{"name": r.name, "role": r.role} for r in reviewers], ensure_ascii=False)


def _reviewer_changes(old: tuple[Reviewer, ...], new: tuple[Reviewer, ...]) -> tuple[str, ...]:
    """What turning reviewer list ``old`` into ``new`` changes, one phrase per name:
    ``add approver 'Mallory'``, ``remove viewer 'Vera'``, ``make 'Ayşe' viewer (was
    approver)``; sorted by name."""
    before: dict[str, set[str]] = {}
    after: dict[str, set[str]] = {}
    for r in old:
        before.setdefault(r.name, set()).add(r.role)
    for r in new:
        after.setdefault(r.name, set()).add(r.role)
    out = []
    for name in sorted(before.keys() | after.keys()):
        was, now = before.get(name, set()), after.get(name, set())
        if was == now:
            continue
        if not was:
            out.append(f"add {'/'.join(sorted(now))} {name!r}")
        elif not now:
            out.append(f"remove {'/'.join(sorted(was))} {name!r}")
        else:
            out.append(f"make {name!r} {'/'.join(sorted(now))} (was {'/'.join(sorted(was))})")
    return tuple(out)


def _project_values(
    project: Project,
    root: str,
    config_json: str,
    index_hash: str,
    index_bytes: bytes,
    loaded_at: str,
) -> dict[str, object]:
    """The ``projects`` row of ``project`` (every column, ``id`` included)."""
    cfg = project.config
    return {
        "id": cfg.id,
        "name": cfg.name,
        "root": root,
        "config_json": config_json,
        "edge_types_json": json.dumps(list(project.edge_types), ensure_ascii=False),
        "index_hash": index_hash,
        "index_json": index_bytes.decode("utf-8"),
        "loaded_at": loaded_at,
    }


class ProjectStore(StoreBase):
    """Projects: save a loaded folder, read its knowledge and settings back, and the
    reviewer-list audit (:meth:`project_audit`)."""

    def save_project(
        self,
        project: Project,
        index_hash: str,
        index_bytes: bytes,
        *,
        update_reviewers: bool = False,
        actor: str | None = None,
    ) -> tuple[str, ...]:
        """Insert or replace ``project``'s knowledge in one transaction; cases stay.

        The folder is stored as an absolute path (``Path.resolve()``). A project already
        stored keeps its reviewers unless ``update_reviewers`` is true: when the folder's
        reviewers (compared as a set of normalised ``(name, role)``, see
        :func:`etki.identity.reviewer_name`) differ from the stored ones, nothing is
        stored and :class:`~etki.errors.ReviewersChangedError` says what would change.
        With ``update_reviewers`` the change needs ``actor`` (the asserted reviewer) to
        be an approver of the *stored* list (anyone when it lists none), else
        :class:`~etki.errors.PermissionDeniedError` ("ask a project approver"; nothing
        stored). Creating a project's list, changing it, and each refusal append a
        :class:`~etki.store.models.ProjectAuditRow` (old and new lists, actor, process
        identity). Returns what changed in the reviewer list (phrases such as ``add
        approver 'Mallory'``; empty when nothing did or the project is new). Raises
        :class:`InputError` for text that cannot be stored."""
        cfg = project.config
        bad = unstorable_path(asdict(project))
        if bad is not None:
            raise InputError(
                f"project {cfg.id!r}: {'.'.join(map(str, bad))} holds a NUL "
                "character or a lone surrogate: not text Etki can store"
            )
        config_json = json.dumps(asdict(cfg), sort_keys=True, ensure_ascii=False)
        root = str(Path(project.root).resolve())
        storable("the project folder's path", root)
        who = reviewer_name(actor or "")
        new_list = _reviewer_set(cfg.reviewers)
        old_list: tuple[Reviewer, ...] = ()
        changes: tuple[str, ...] = ()
        try:
            with self._write() as s:
                # the first statement locks the project's row until commit (or, on a first
                # load, inserts it; a concurrent first load waits for that insert, then
                # finds the row), so two loads of one project run one after the other and
                # the second replaces the first one's knowledge instead of adding to it
                values = _project_values(
                    project, root, config_json, index_hash, index_bytes, iso(self.now(s))
                )
                created = self._insert_new(s, ProjectRow, values, ("id",))
                row = s.execute(
                    select(ProjectRow)
                    .where(ProjectRow.id == cfg.id)
                    .with_for_update()
                    .execution_options(populate_existing=True)
                ).scalar_one()
                outcome = "created" if created else None
                if not created:
                    stored = config_of(row.config_json).reviewers
                    old_list = _reviewer_set(stored)
                    if old_list != new_list:
                        self._check_reviewer_change(
                            cfg.id,
                            stored,
                            old_list,
                            new_list,
                            row.root,
                            root,
                            who,
                            update_reviewers,
                        )
                        outcome = "changed"
                        changes = _reviewer_changes(old_list, new_list)
                self._write_project(s, project, row, values)
                if outcome is not None:
                    s.add(
                        self._project_audit_row(s, cfg.id, outcome, old_list, new_list, root, who)
                    )
        except (ReviewersChangedError, PermissionDeniedError) as exc:
            outcome = "refused" if isinstance(exc, ReviewersChangedError) else "denied"
            with self._write() as s:
                s.add(self._project_audit_row(s, cfg.id, outcome, old_list, new_list, root, who))
            raise
        return changes

    @staticmethod
    def _check_reviewer_change(
        project_id: str,
        stored: tuple[Reviewer, ...],
        old_list: tuple[Reviewer, ...],
        new_list: tuple[Reviewer, ...],
        stored_root: str,
        root: str,
        who: str,
        update_reviewers: bool,
    ) -> None:
        """Raise unless changing the stored reviewers ``old_list`` to ``new_list`` is
        allowed (see :meth:`save_project`)."""
        if not update_reviewers:
            changes = _reviewer_changes(old_list, new_list)
            where = f"{root}/etki.yaml"
            first = "" if stored_root == root else f" (stored from {stored_root})"
            raise ReviewersChangedError(
                f"project {project_id!r} is already stored{first} with other reviewers "
                f"than {where} lists; loading it would {'; '.join(changes)}. Nothing was "
                f"stored. If this change is intended, run `etki init {shlex.quote(root)} "
                "--update-reviewers` "
                "as an approver of the project (the change is audited)",
                changes,
            )
        if any(r.role == "approver" for r in stored) and not is_listed_approver(stored, who):
            raise PermissionDeniedError(
                f"reviewer {who!r} may not change the reviewers of project {project_id!r}: "
                "only an approver of the stored project can; ask a project approver. "
                "Nothing was stored"
            )

    def _project_audit_row(
        self,
        s: Session,
        project_id: str,
        outcome: str,
        before: tuple[Reviewer, ...],
        after: tuple[Reviewer, ...],
        root: str,
        who: str,
    ) -> ProjectAuditRow:
        return ProjectAuditRow(
            project_id=project_id,
            action="reviewers",
            outcome=outcome,
            before_json=_reviewers_json(before),
            after_json=_reviewers_json(after),
            root=root,
            reviewer=UNSTORABLE.sub("\ufffd", who),
            at=iso(self.now(s)),
            **current_process().columns(),
        )

    def _write_project(
        self, s: Session, project: Project, row: ProjectRow, values: dict[str, object]
    ) -> None:
        """The writes of :meth:`save_project` inside its transaction (``row`` locked)."""
        cfg = project.config
        for key, value in values.items():
            setattr(row, key, value)
        for model in (ClauseRow, ContractRow, ModuleRow, WorkItemRow):
            s.execute(delete(model).where(model.project_id == cfg.id))
        s.flush()
        for pos, contract in enumerate(project.contracts):
            s.add(
                ContractRow(
                    project_id=cfg.id,
                    id=contract.id,
                    title=contract.title,
                    source=contract.source,
                    chunking=contract.chunking,
                    position=pos,
                )
            )
        for pos, c in enumerate(project.clauses):
            s.add(clause_row(cfg.id, c, pos))
        for pos, m in enumerate(project.modules):
            s.add(
                ModuleRow(
                    project_id=cfg.id,
                    id=m.id,
                    path=m.path,
                    summary=m.summary,
                    depends_on_json=json.dumps(list(m.depends_on)),
                    language=m.language,
                    position=pos,
                )
            )
        for pos, w in enumerate(project.workitems):
            s.add(
                WorkItemRow(
                    project_id=cfg.id,
                    id=w.id,
                    title=w.title,
                    kind=w.kind,
                    date=w.date,
                    modules_json=json.dumps(list(w.modules)),
                    effort_days=w.effort_days,
                    position=pos,
                )
            )
        s.flush()
        # overrides' corrections kept against the refs before this load (issue 32)
        refresh_corrections(lambda sql, params: s.execute(text(sql), params), cfg.id)

    def project_ids(self) -> list[str]:
        """Ids of every stored project, sorted."""
        with self._read() as s:
            return list(s.scalars(select(ProjectRow.id).order_by(ProjectRow.id)))

    def index_hash(self, project_id: str) -> str:
        """The knowledge-index hash recorded when the project was last loaded (one
        column: the index itself, megabytes on a large project, stays in the store).
        Raises :class:`NotFoundError`."""
        with self._read() as s:
            found = s.scalar(select(ProjectRow.index_hash).where(ProjectRow.id == project_id))
        if found is None:
            raise self._no_project(project_id)
        return found

    def index_bytes(self, project_id: str) -> bytes:
        """The knowledge index (canonical JSON bytes) as built at load time."""
        return self._project_row(project_id).index_json.encode("utf-8")

    def load_project(self, project_id: str) -> Project:
        """Rebuild the :class:`Project` stored for ``project_id`` (without requests).

        Raises :class:`NotFoundError` when it was never loaded."""
        return self._read_project(project_id, whole=True)

    def project_config(self, project_id: str) -> ProjectConfig:
        """The stored project's ``etki.yaml`` settings (id, name, languages, reviewers)
        without reading its knowledge (:meth:`load_project` reads 2,000
        clauses, 5,000 modules and 20,000 work items to give the same object). Raises
        :class:`NotFoundError` for an unknown project."""
        with self.engine.connect() as conn:
            raw = conn.execute(
                select(ProjectRow.config_json).where(ProjectRow.id == project_id)
            ).scalar()
        if raw is None:
            raise self._no_project(project_id)
        return config_of(raw)

    def project_name(self, project_id: str) -> str:
        """The stored project's name (``etki.yaml`` ``name``), without reading its
        knowledge. Raises :class:`NotFoundError`."""
        with self._read() as s:
            name = s.scalar(select(ProjectRow.name).where(ProjectRow.id == project_id))
        if name is None:
            raise self._no_project(project_id)
        return name

    def project_root(self, project_id: str) -> str:
        """The folder the stored project was last loaded from (``etki init``'s
        ``PROJECT_DIR``, resolved), without reading its knowledge. Raises
        :class:`NotFoundError`."""
        with self._read() as s:
            root = s.scalar(select(ProjectRow.root).where(ProjectRow.id == project_id))
        if root is None:
            raise self._no_project(project_id)
        return root

    def project_languages(self, project_id: str) -> tuple[str, ...]:
        """The stored project's ``languages`` (``etki.yaml``), without reading its
        knowledge. Raises :class:`NotFoundError`."""
        return self.project_config(project_id).languages or ("en",)

    def clauses(self, project_id: str) -> list[ScopeClause]:
        """The stored project's scope clauses in document order, without its modules
        and work items (:meth:`load_project` reads everything)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(*CLAUSE_COLUMNS, ClauseRow.edges_json)
                .where(ClauseRow.project_id == project_id)
                .order_by(ClauseRow.position)
            ).all()
        return [clause_of(*c) for c in rows]

    def workitems(self, project_id: str) -> list[WorkItem]:
        """The stored project's work items in file order (``effort_days`` in
        person-days or None), without its contracts and modules."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(*WORKITEM_COLUMNS)
                .where(WorkItemRow.project_id == project_id)
                .order_by(WorkItemRow.position)
            ).all()
        return [workitem_of(*w) for w in rows]

    def workitems_by_id(self, project_id: str, ids: Iterable[str]) -> list[WorkItem]:
        """The stored project's work items among ``ids`` (those it has; an id it lacks
        is left out), in file order, read in one query per 500 ids: the few a detail
        pane's effort basis names, without the project's thousands."""
        wanted = sorted(set(ids))
        rows: list = []
        with self.engine.connect() as conn:
            for at in range(0, len(wanted), 500):  # bounded IN lists
                rows += conn.execute(
                    select(*WORKITEM_COLUMNS, WorkItemRow.position).where(
                        WorkItemRow.project_id == project_id,
                        WorkItemRow.id.in_(wanted[at : at + 500]),
                    )
                ).all()
        rows.sort(key=lambda r: r[-1])
        return [workitem_of(*w[:-1]) for w in rows]

    def project_audit(self, project_id: str | None = None) -> list[ProjectAuditEntry]:
        """Every ``project_audit`` row (of ``project_id`` when given), oldest first, as
        :class:`ProjectAuditEntry`."""
        t = ProjectAuditRow.__table__
        stmt = select(*t.c).order_by(t.c.id)
        if project_id is not None:
            stmt = stmt.where(t.c.project_id == project_id)
        out = []
        with self.engine.connect() as conn:
            for r in conn.execute(stmt):
                row = dict(r._mapping)
                raw_before, raw_after = row.pop("before_json"), row.pop("after_json")
                if row["action"] == "remit":
                    out.append(
                        ProjectAuditEntry(
                            before=(),
                            after=(),
                            remit_before=_remit_items(raw_before),
                            remit_after=_remit_items(raw_after),
                            reason=str(json.loads(raw_after).get("reason", "")),
                            **row,
                        )
                    )
                    continue
                before = tuple(Reviewer(**x) for x in json.loads(raw_before))
                if row["action"] in ("archive", "delete"):  # lifecycle.py: after is a dict
                    reason = str(json.loads(raw_after).get("reason", ""))
                    out.append(ProjectAuditEntry(before=before, after=(), reason=reason, **row))
                    continue
                after = tuple(Reviewer(**x) for x in json.loads(raw_after))
                out.append(ProjectAuditEntry(before=before, after=after, **row))
        return out
