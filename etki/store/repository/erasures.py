"""The erasure part of the store (KVKK/GDPR): a case erased in one transaction, a
tombstone left in the audit log, and the deleted rows made unrecoverable from the
database files (:meth:`ErasureStore.compact`, checked by :mod:`etki.store.proof`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.orm import Session

from etki.errors import NotFoundError, StoreError, StoreUnusableError
from etki.identity import current_process
from etki.store import proof
from etki.store.db import make_engine
from etki.store.failures import location
from etki.store.models import (
    AuditRow,
    CaseEventRow,
    CaseRow,
    DecisionContextRow,
    DecisionRow,
    DeletedCaseEventRow,
    PreanalysisRow,
    RulingRefRow,
    RulingRow,
    WikiFolderRow,
)
from etki.store.repository.base import ERASED, StoreBase, iso, rowcount, storable
from etki.store.summary import clause_tally, ruling_summary, tally

__all__ = ["ERASED", "ERASED_REASON", "Erasure", "ErasureStore", "Leftover", "tombstone"]

ERASED_REASON = "[erased]"
"""What an erasure leaves of the ``reason`` of the erased case's earlier audit rows."""


def tombstone(
    s: Session, case_id: str, erased_by: str, reason: str, *, before: str, at: str, version: int
) -> int:
    """The audit log's part of erasing ``case_id``, inside the caller's write session
    ``s``: the ``reason`` of the case's earlier audit rows (those not empty and not yet
    redacted) becomes :data:`ERASED_REASON`, and a tombstone audit row is added
    (``action`` ``erase``, ``outcome`` and ``after`` ``erased``, ``ruling`` and
    ``before`` the ruling the case had, ``reason`` the erasure's own reason, ``at`` an
    ISO-8601 UTC time, ``version`` the case's version, the acting process's columns).
    Shared by :meth:`ErasureStore.erase_case` and the erasure of a deleted project's
    case (:meth:`~etki.store.repository.lifecycle.LifecycleStore.erase_deleted_case`).
    Returns how many audit rows were redacted."""
    redacted = rowcount(
        s.execute(
            update(AuditRow)
            .where(
                AuditRow.case_id == case_id,
                AuditRow.reason != ERASED_REASON,
                AuditRow.reason != "",
            )
            .values(reason=ERASED_REASON)
        )
    )
    s.add(
        AuditRow(
            case_id=case_id,
            reviewer=erased_by,
            action="erase",
            ruling=before,
            reason=reason,
            at=at,
            version=version,
            outcome=ERASED,
            before=before,
            after=ERASED,
            **current_process().columns(),
        )
    )
    return redacted


@dataclass(frozen=True)
class Erasure:
    """What :meth:`ErasureStore.erase_case` removed: the case and project ids, the
    ruling the case had (``pending`` when none), how many audit rows had their reason
    replaced by ``[erased]`` and how many other cases' related-context blocks were
    scrubbed of it. Holds no client text."""

    case_id: str
    project_id: str
    before: str
    audit_rows_redacted: int
    contexts_scrubbed: int


@dataclass(frozen=True)
class Leftover:
    """One table that still holds something of an erased case (:meth:`ErasureStore.
    leftovers`): ``table`` its name, ``rows`` how many of its rows, ``what`` which
    columns hold the text. Holds no client text."""

    table: str
    rows: int
    what: str


class ErasureStore(StoreBase):
    """Erase a case, list what an erasure removes, and compact the files afterwards."""

    def erased_case_ids(self) -> set[str]:
        """Ids of every erased case (they have a tombstone in the audit log)."""
        with self._read() as s:
            return set(s.scalars(select(AuditRow.case_id).where(AuditRow.outcome == ERASED)))

    def erase_case(self, case_id: str, erased_by: str, reason: str) -> Erasure:
        """Erase a case for KVKK/GDPR in one write transaction: delete its related-context
        block, its saved pre-analyses (model text that may quote the request), ruling,
        decision, its ``case_events`` (notes, import sources, views, claims: free text
        that may quote the request; tied to the case since migration 0007), the events a
        deletion of its project kept of an earlier life of the same id
        (``deleted_case_events``) and the case row (request text, title, submitter, labels); replace the ``reason`` of its
        earlier audit rows with ``[erased]`` (who, what, when and the outcome stay); drop
        the erased case's
        precedent node from other cases' related-context blocks; and append a tombstone
        audit row (``action`` ``erase``, ``outcome`` ``erased``, ``reason`` the erasure's
        reason) that holds no request text. On SQLite the deleted pages are zeroed
        (``secure_delete``); call :meth:`compact` afterwards so no old copy stays in the
        file or its WAL. A tombstoned case id is never stored again by :meth:`add_cases`.

        The case row is locked first (:meth:`lock_case`): a note, ruling or other write
        of the case waits for the erasure and is then refused with
        :class:`CaseErasedError` (issue 30 item 1); one that got the lock first is
        committed before, and erased with the rest.

        Raises :class:`NotFoundError` for an unknown case, :class:`CaseErasedError` for
        an erased one."""
        storable("the erasure's reviewer or reason", erased_by, reason)
        now = iso(self.clock())
        with self._write() as s:
            if self.engine.dialect.name == "sqlite":
                s.execute(text("PRAGMA secure_delete = ON"))
            case = self.lock_case(s, case_id)  # writers of the case wait, then are refused
            ruling = s.get(RulingRow, case_id)
            before = ruling.ruling if ruling is not None else "pending"
            project_id, version = case.project_id, case.version
            erased_strings = [x for x in (case.title, case.text) if x and x.strip()]
            s.execute(delete(DecisionContextRow).where(DecisionContextRow.case_id == case_id))
            s.execute(delete(PreanalysisRow).where(PreanalysisRow.case_id == case_id))
            # notes, import sources, views and claims: tied to the case (migration 0007)
            s.execute(delete(CaseEventRow).where(CaseEventRow.case_id == case_id))
            # what a deletion of an earlier life's project kept of it (migration 0012)
            s.execute(delete(DeletedCaseEventRow).where(DeletedCaseEventRow.case_id == case_id))
            if ruling is not None:  # the report's counts lose the ruling (0010)
                verdict = s.scalar(
                    select(DecisionRow.verdict).where(DecisionRow.case_id == case_id)
                )
                tally(
                    lambda sql, params: s.execute(text(sql), params),
                    case.project_id,
                    ruling.ruled_at,
                    ruling.reviewer,
                    str(verdict),
                    ruling.ruling,
                    -1,
                )
                # and the per-clause counts too (0013)
                cited = ruling.cited_refs
                deciding = ruling.deciding_ref
                if cited is None:  # a row without the summary: the decision says
                    cited, deciding = ruling_summary(
                        str(
                            s.scalar(
                                select(DecisionRow.decision_json).where(
                                    DecisionRow.case_id == case_id
                                )
                            )
                        )
                    )
                clause_tally(
                    lambda sql, params: s.execute(text(sql), params),
                    case.project_id,
                    cited,
                    ruling.reason,
                    deciding,
                    ruling.ruling,
                    -1,
                )
            s.execute(delete(RulingRefRow).where(RulingRefRow.case_id == case_id))
            s.execute(delete(RulingRow).where(RulingRow.case_id == case_id))
            s.execute(delete(DecisionRow).where(DecisionRow.case_id == case_id))
            s.execute(delete(CaseRow).where(CaseRow.id == case_id))
            redacted = tombstone(
                s, case_id, erased_by, reason, before=before, at=now, version=version
            )
            scrubbed = self._scrub_contexts(s, project_id, case_id, erased_strings)
        return Erasure(
            case_id=case_id,
            project_id=project_id,
            before=before,
            audit_rows_redacted=redacted,
            contexts_scrubbed=scrubbed,
        )

    @staticmethod
    def _scrub_contexts(
        s: Session, project_id: str, case_id: str, erased_strings: list[str]
    ) -> int:
        """Drop the erased case's node (``precedent:{case_id}``) and everything that
        names it (edges, dropped entries, children) from the related-context blocks of
        the project's other cases; a block that still holds the erased title or text
        after that is deleted whole (context is optional). Returns how many changed."""
        node_id = f"precedent:{case_id}"
        rows = s.scalars(
            select(DecisionContextRow)
            .join(CaseRow, CaseRow.id == DecisionContextRow.case_id)
            .where(CaseRow.project_id == project_id)
        ).all()
        changed = 0
        for row in rows:
            raw = row.context_json
            if (
                node_id not in raw
                and case_id not in raw
                and not any(x in raw for x in erased_strings)
            ):
                continue
            changed += 1
            try:
                block = _without(json.loads(raw), {node_id, case_id})
                new = json.dumps(block, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            except ValueError:
                new = None
            if new is None or any(x in new for x in (node_id, *erased_strings)):
                s.delete(row)
            else:
                row.context_json = new
        return changed

    def erasable_text(self, case_id: str) -> list[str]:
        """The client and reviewer text an erasure of ``case_id`` removes: the request's
        title, text, submitter and labels, its ruling's reason, the reasons of its
        audit rows, the texts of its events (also those a deletion of its project kept
        of an earlier life) and the model text of its pre-analyses (what :mod:`etki.store.proof` searches the files for afterwards). Empty
        for an unknown case."""
        with self._read() as s:
            case = s.get(CaseRow, case_id)
            if case is None:
                return []
            ruling = s.get(RulingRow, case_id)
            out = [
                case.title,
                case.text,
                case.submitted_by,
                case.labels_json,
                ruling.reason if ruling is not None else None,
            ]
            out += list(
                s.scalars(
                    select(AuditRow.reason).where(
                        AuditRow.case_id == case_id, AuditRow.reason != ERASED_REASON
                    )
                )
            )
            out += list(
                s.scalars(
                    select(CaseEventRow.text).where(
                        CaseEventRow.case_id == case_id, CaseEventRow.text != ERASED_REASON
                    )
                )
            )
            out += list(
                s.scalars(
                    select(DeletedCaseEventRow.text).where(
                        DeletedCaseEventRow.case_id == case_id,
                        DeletedCaseEventRow.kind != "triaged",  # the engine's words
                    )
                )
            )
            for body, error in s.execute(
                select(PreanalysisRow.body_json, PreanalysisRow.error).where(
                    PreanalysisRow.case_id == case_id
                )
            ):
                out += [_preanalysis_text(body), error]
        return [x for x in out if x]

    def leftovers(self, case_id: str) -> list[Leftover]:
        """What the store still holds of the case ``case_id`` once it is erased (issue 30
        item 1: the proof looks at every text written for the case, whenever it was
        written, also by a writer that raced the erasure): its row, decision, ruling,
        related-context block, pre-analyses and events (any row: each is tied to the
        case; and the ``deleted_case_events`` a deletion of its project kept), its audit rows whose ``reason`` is neither empty nor ``[erased]`` (the
        tombstone excepted: it keeps the erasure's own reason) and other cases'
        related-context blocks that still name it. Empty when nothing is left. Reads
        only; one count per table."""
        audit_text = (
            (AuditRow.case_id == case_id)
            & (AuditRow.outcome != ERASED)
            & (AuditRow.reason != "")
            & (AuditRow.reason != ERASED_REASON)
        )
        checks = [
            ("cases", CaseRow.id == case_id, "the request's title, text and submitter"),
            ("decisions", DecisionRow.case_id == case_id, "the frozen decision"),
            ("rulings", RulingRow.case_id == case_id, "the ruling's reason"),
            ("decision_contexts", DecisionContextRow.case_id == case_id, "the context"),
            ("preanalyses", PreanalysisRow.case_id == case_id, "the model's text"),
            ("case_events", CaseEventRow.case_id == case_id, "notes and sources"),
            (
                "deleted_case_events",
                DeletedCaseEventRow.case_id == case_id,
                "the history its project's deletion kept",
            ),
            ("audit_log", audit_text, "reasons not replaced by [erased]"),
            (
                "decision_contexts",
                DecisionContextRow.context_json.contains(f"precedent:{case_id}", autoescape=True),
                "other cases' contexts naming it",
            ),
        ]
        models = {
            "cases": CaseRow,
            "decisions": DecisionRow,
            "rulings": RulingRow,
            "decision_contexts": DecisionContextRow,
            "preanalyses": PreanalysisRow,
            "case_events": CaseEventRow,
            "deleted_case_events": DeletedCaseEventRow,
            "audit_log": AuditRow,
        }
        out: list[Leftover] = []
        with self._read() as s:
            for table, where, what in checks:
                n = s.scalar(select(func.count()).select_from(models[table]).where(where)) or 0
                if n:
                    out.append(Leftover(table, int(n), what))
        return out

    def redact_late_text(self, case_id: str) -> int:
        """For an erased case (``etki erase --finish``): replace with ``[erased]`` the
        ``reason`` of its audit rows written after the erasure, or missed by it (a
        refused attempt by an Etki from before issue 30, which did not wait for the
        erasure), the tombstone excepted, and delete its events and pre-analyses left
        without their case (none can be written since migration 0007) and the events a
        deletion of its project kept (an erasure from before migration 0012 left none). Returns how many
        rows changed. Raises :class:`NotFoundError` when the case is still stored."""
        with self._write() as s:
            if self.engine.dialect.name == "sqlite":
                s.execute(text("PRAGMA secure_delete = ON"))
            if s.get(CaseRow, case_id) is not None:
                raise NotFoundError(f"case {case_id} is not erased: it is still stored")
            changed = rowcount(
                s.execute(
                    update(AuditRow)
                    .where(
                        AuditRow.case_id == case_id,
                        AuditRow.outcome != ERASED,
                        AuditRow.reason != ERASED_REASON,
                        AuditRow.reason != "",
                    )
                    .values(reason=ERASED_REASON)
                )
            )
            for model in (CaseEventRow, PreanalysisRow, DeletedCaseEventRow):
                changed += rowcount(s.execute(delete(model).where(model.case_id == case_id)))
        return changed

    def record_wiki_folder(self, project_id: str, folder: Path) -> None:
        """Write down that a projection of ``project_id`` writes into the wiki folder
        ``folder`` (issue 30 item 2), so an erasure later finds the case's pages there
        whatever ``ETKI_WIKI_DIR`` it runs with: one ``wiki_folders`` row per project and
        resolved folder (absolute, symlinks of its parents resolved), written once (a
        read when it is there already). A repository opened ``read_only`` writes the row
        on a writable connection of its own (``make_engine(url, create=False)``):
        recording where the wiki is, is what an erasure needs of a read-only rebuild.
        Raises :class:`~etki.errors.StoreUnusableError` ("read-only") when the store may
        not be written (SQLite ``SQLITE_READONLY``, PostgreSQL SQLSTATE 42501/25006) or
        was opened from an engine, and the folder is not recorded yet."""
        path = str(folder.resolve())
        with self._read() as s:
            if s.get(WikiFolderRow, (project_id, path)) is not None:
                return
        row: dict[str, object] = {
            "project_id": project_id,
            "path": path,
            "first_at": iso(self.clock()),
        }
        if not self.read_only:
            with self._write() as s:
                self._insert_new(s, WikiFolderRow, row, ("project_id", "path"))
            return
        # a store opened read-only (``python -m etki.wiki rebuild``): this one row is
        # written on a short writable connection of its own, so the folder is known to
        # an erasure before anything is written into it
        if self.url is None:
            raise StoreUnusableError(
                location(self.engine.url),
                f"read-only (opened from an engine): the wiki folder {path} cannot be recorded",
            )
        engine = make_engine(self.url, create=False)
        try:
            with engine.connect() as conn:
                conn = conn.execution_options(etki_write=True)
                with conn.begin(), Session(bind=conn) as s:
                    self._insert_new(s, WikiFolderRow, row, ("project_id", "path"))
        except StoreError as exc:
            known = ", ".join(str(f) for f in self.wiki_folders(project_id)) or "none"
            raise StoreUnusableError(
                exc.location,
                f"the wiki folder {path} of project '{project_id}' is not recorded in the "
                f"store and cannot be recorded ({exc}): an erasure would not find the pages "
                "written there, so nothing was written. Rebuild it once where the store "
                "may be written (the desk, or `etki wiki rebuild` with write access), or "
                f"set ETKI_WIKI_DIR to a folder the store knows ({known})",
            ) from exc
        finally:
            engine.dispose()

    def wiki_folders(self, project_id: str) -> list[Path]:
        """Every wiki folder a projection of ``project_id`` wrote into
        (:meth:`record_wiki_folder`), sorted; empty when none was recorded."""
        with self._read() as s:
            return [
                Path(p)
                for p in s.scalars(
                    select(WikiFolderRow.path)
                    .where(WikiFolderRow.project_id == project_id)
                    .order_by(WikiFolderRow.path)
                )
            ]

    def live_bytes(self) -> bytes:
        """Every value of every live row (and on SQLite the schema), as bytes: what the
        store holds on purpose (:func:`etki.store.proof.live_bytes`)."""
        return proof.live_bytes(self.engine)

    def sqlite_path(self) -> Path | None:
        """The absolute path of the SQLite database file, or None (PostgreSQL, or an
        in-memory SQLite database)."""
        if self.engine.dialect.name != "sqlite":
            return None
        database = self.engine.url.database
        if not database or database == ":memory:":
            return None
        return Path(database).expanduser().absolute()

    def compact(
        self,
        words: Sequence[str] = (),
        *,
        wait_s: float = proof.DEFAULT_WAIT_S,
        notify: Callable[[str], None] | None = None,
    ) -> proof.Compaction:
        """Make deleted rows unrecoverable from the database files, as far as the backend
        allows, and check that it happened; ``words`` are the erased text's words only
        the deleted rows held (:func:`etki.store.proof.unique_words`), searched for
        afterwards. Waits at most ``wait_s`` seconds for another connection that holds
        compaction up (``notify`` is told once what it waits for).

        SQLite: checkpoint the WAL into the file, ``VACUUM`` (rewrites the file from live
        rows only) and truncate the WAL to zero bytes, each checkpoint's result checked
        (:func:`etki.store.proof.compact_sqlite`), then search the database file, WAL,
        shared-memory file and journal for ``words``. PostgreSQL: ``VACUUM`` the case
        tables until no dead row version is left, then rewrite them (``VACUUM FULL``) and,
        with ``pageinspect`` usable, search their pages for ``words``
        (:func:`etki.store.proof.compact_postgres`; older copies in the server's WAL
        archive and backups are the operator's to expire). Returns every place checked;
        ``blocker`` says what held compaction up. Raises the driver's error for a
        failure other than a busy database or a lock not granted in time."""
        if self.engine.dialect.name == "sqlite":
            path = self.sqlite_path()
            done = proof.compact_sqlite(
                self.engine, path or Path(":memory:"), wait_s=wait_s, notify=notify
            )
            if path is None:
                return done
            scans = [proof.scan_file(p, what, words) for p, what in proof.sqlite_files(path)]
            return proof.Compaction((*done.places, *scans), done.blocker)
        if self.engine.dialect.name == "postgresql":
            return proof.compact_postgres(self.engine, words, wait_s=wait_s, notify=notify)
        return proof.Compaction(())


def _preanalysis_text(body_json: str) -> str:
    """The claim texts of a saved pre-analysis body, one per line (its JSON escapes
    would hide the words the erasure proof searches for); the raw text when it does
    not parse."""
    try:
        doc = json.loads(body_json)
    except ValueError:
        return body_json
    texts: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            text = value.get("text")
            if isinstance(text, str):
                texts.append(text)
            for v in value.values():
                if isinstance(v, (dict, list)):
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(doc)
    return "\n".join(texts)


def _without(value: object, ids: set[str]) -> object:
    """``value`` (parsed JSON) with every list item removed that is, or is a mapping with
    a value that is, one of ``ids``."""
    if isinstance(value, dict):
        return {k: _without(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [
            _without(v, ids)
            for v in value
            if not (
                (isinstance(v, str) and v in ids)
                or (
                    isinstance(v, dict) and any(isinstance(x, str) and x in ids for x in v.values())
                )
            )
        ]
    return value
