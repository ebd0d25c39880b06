"""``CaseFileRepository``: every read and write of the store goes through here.

The repository is made of parts, one module each, over the shared engine and sessions
of :mod:`~etki.store.repository.base` and the row mappers of
:mod:`~etki.store.repository.rows` (each domain value built from a row in one place):

* :mod:`~etki.store.repository.projects`: projects, their knowledge and reviewers;
* :mod:`~etki.store.repository.cases`: cases, their decisions, rulings and audit log;
* :mod:`~etki.store.repository.preanalyses`: saved model pre-analyses of a case;
* :mod:`~etki.store.repository.erasures`: erasure (KVKK/GDPR) and compaction;
* :mod:`~etki.store.repository.events`: a case's events and its history;
* :mod:`~etki.store.repository.assignments`: a case assigned to a reviewer;
* :mod:`~etki.store.repository.resolutions`: resolutions of disputed clauses;
* :mod:`~etki.store.repository.remit`: the accepted remit (``etki remit``);
* :mod:`~etki.store.repository.wikiread`: the reads of the wiki projection;
* :mod:`~etki.store.repository.lifecycle`: a project archived, unarchived or deleted.

Shapes: projects, clauses, modules and work items go in as the loader's
:class:`etki.domain.Project` and come out the same way; cases come out as
:class:`etki.domain.CaseRecord` (the full record), :class:`etki.domain.CaseSummary`
(the light queue row) or :class:`etki.domain.CaseBrief` (the wiki's row).

Rules kept here:

* a decision is written once with its case and never updated;
* a ruling uses optimistic locking on ``cases.version``: it commits only if the version
  read is still current, else :class:`etki.errors.ConflictError` names who ruled and when
  (shared/cases/B16); the row keeps the first ruling;
* re-loading a project replaces its knowledge (clauses, modules, work items) and keeps
  its cases, decisions and rulings; it changes the project's reviewers only when asked
  to (``update_reviewers``), and every creation of or attempt to change a reviewer list
  is written to ``project_audit``;
* every audit row carries the asserted reviewer and the process that wrote it (OS user,
  host, pid, program: :func:`etki.identity.current_process`).
"""

from __future__ import annotations

import uuid

from sqlalchemy import Engine

from etki.store.db import make_engine
from etki.store.migrate import check_schema, ensure_schema, has_tables, missing_store
from etki.store.models import SCHEMA_VERSION, MetaRow
from etki.store.repository.assignments import AssignmentStore
from etki.store.repository.base import Clock
from etki.store.repository.cases import CaseStore
from etki.store.repository.erasures import ErasureStore
from etki.store.repository.events import EventStore
from etki.store.repository.lifecycle import LifecycleStore
from etki.store.repository.preanalyses import PreanalysisStore
from etki.store.repository.projects import ProjectStore
from etki.store.repository.remit import RemitStore
from etki.store.repository.resolutions import ResolutionStore
from etki.store.repository.wikiread import STORE_ID_KEY, WikiReads

__all__ = ["CaseFileRepository"]


class CaseFileRepository(
    ProjectStore,
    CaseStore,
    PreanalysisStore,
    ErasureStore,
    EventStore,
    AssignmentStore,
    ResolutionStore,
    RemitStore,
    WikiReads,
    LifecycleStore,
):
    """The store. Build with a SQLAlchemy URL (``sqlite:///path``,
    ``postgresql://host/db``) or an existing engine. On open the schema is brought to
    the newest migration (:func:`etki.store.migrate.ensure_schema`: created when the
    database is empty, upgraded when it is older; a no-op read when it is current).

    ``clock`` returns the current time (UTC); tests inject a frozen one. Left out, the
    store's times come from the database (:meth:`~StoreBase.now`: PostgreSQL's
    ``clock_timestamp()``, SQLite's ``'now'``), never from a writer's clock.

    ``read_only=True`` (commands that only read, see README "Read-only commands"): the
    store is opened read-only (:func:`etki.store.db.make_engine`), never migrated or
    written; a store that does not exist or holds no Etki tables raises
    :class:`~etki.errors.StoreMissingError`, one at an older revision
    :class:`~etki.errors.StoreUnusableError` (:func:`etki.store.migrate.check_schema`),
    and any write method fails with ``StoreUnusableError`` ("read-only").
    ``create=False`` (commands that write to an existing store: ``rule``, ``erase``):
    a missing store is refused the same way instead of being created empty.
    """

    def __init__(
        self,
        url_or_engine: str | Engine,
        *,
        clock: Clock | None = None,
        read_only: bool = False,
        create: bool = True,
    ) -> None:
        self.engine = (
            make_engine(url_or_engine, read_only=read_only, create=create)
            if isinstance(url_or_engine, str)
            else url_or_engine
        )
        self.url = url_or_engine if isinstance(url_or_engine, str) else None
        """The URL the store was opened with (None when an engine was given)."""
        self.clock = clock if clock is not None else self.db_clock
        self.read_only = read_only
        if read_only:
            check_schema(self.engine)
            return
        if not create and not has_tables(self.engine):
            raise missing_store(self.engine)
        ensure_schema(self.engine)
        with self._write() as s:  # several processes may open a new store at once
            self._upsert(
                s,
                MetaRow,
                {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                ("key",),
                update=False,
            )
            self._upsert(  # the store's identity (see WikiReads.store_id)
                s, MetaRow, {"key": STORE_ID_KEY, "value": uuid.uuid4().hex}, ("key",), update=False
            )
