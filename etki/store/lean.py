"""The lean read path (issue 32 item 1): what the read commands print, read with plain
DB-API SQL (``sqlite3`` for SQLite, ``psycopg`` 3 for PostgreSQL), without SQLAlchemy,
the ORM classes or the project's knowledge.

``etki queue`` on a store of 10,000 cases used to import SQLAlchemy, build the ORM,
read and JSON-decode every case and load the whole engagement (20,000 work items) only
to refuse an unknown ``--project``. Here it reads:

* the project ids (one column), which also answer an unknown ``--project``
  (:class:`~etki.errors.NotFoundError` with the repository's wording);
* the rows it prints (the listed columns, oldest first as :data:`ARRIVAL`; not the
  request text);
* for the clause memory of the clauses those rows cite, the ``cited_clauses`` member
  of every ruled case's decision (kept on its ruling's row, :data:`RULED_HEADS`), and then the
  whole decision of only the ruled cases that cite one of those clauses: the memory of a clause depends on the
  cases citing it alone (:func:`etki.memory.clause_memory`), so the rows print as with
  the memory of every clause;
* the resolutions of disputed clauses and the live claims.

One set of queries serves both stores: they differ in the placeholder (``?`` / ``%s``)
and in the name of the substring-position function (``instr`` / ``strpos``), filled in
by :meth:`LeanStore.sql`.

Whenever this path cannot answer exactly as the ORM path would — a URL it does not
parse the way SQLAlchemy does (query parameters, several hosts, percent escapes), a
SQLite file that is absent, a store not at :data:`HEAD_REVISION` (missing tables, a
migration due), a driver error — it raises :class:`Fallback` before anything is
printed, and the command runs its ORM path, which gives today's output or error. The
ORM stays for writes.

The decoders of a stored decision and ruling (:func:`decision_summary`,
:func:`ruling_of`, :func:`summary_of_members`) are here so both paths build the same
values with the same code; :mod:`etki.store.repository.rows` imports them.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import unquote

# the light parts of the domain only: `etki dispute list` reads through this module and
# needs no other (issue 32 item 1); the queue's values are imported where they are made
# (`etki.domain` loads each part on first use)
from etki.domain import ClauseResolution, deciding_in_json
from etki.errors import EtkiError, InputError, NotFoundError, ProjectArchivedError
from etki.store.lean_sql import ARRIVAL, CHUNK, RULED_ROWS, Fallback, RuledRow
from etki.store.summary import decode_refs, ruling_summary

if TYPE_CHECKING:
    from etki.domain import CaseEvent, CaseSummary, DecisionSummary, Risk, RulingRecord, Verdict


__all__ = [
    "HEAD_REVISION",
    "Fallback",
    "LeanStore",
    "QueuePart",
    "QueueRead",
    "decision_summary",
    "open_store",
    "ruling_of",
    "summary_of_members",
]

HEAD_REVISION = "0013"
"""The schema revision these queries are written for; equal to
:data:`etki.store.migrate.HEAD_REVISION` (``tests/test_lean_read.py`` checks it). A store
at another revision goes to the ORM path, which refuses it as today."""
SQLITE_BUSY_TIMEOUT_S = 30.0
"""As :data:`etki.store.db.SQLITE_BUSY_TIMEOUT_MS`: a reader waits for a writer's lock."""


ARCHIVED_SQL = (
    "SELECT a.project_id FROM project_audit a WHERE a.action = 'archive' "
    "AND a.outcome = 'archived' AND a.id = (SELECT max(b.id) FROM project_audit b "
    "WHERE b.project_id = a.project_id AND b.action = 'archive' "
    "AND b.outcome IN ('archived', 'unarchived')) ORDER BY a.project_id"
)
"""The ids of the archived projects, sorted: those whose newest archive row (action
``archive``, outcome ``archived`` or ``unarchived``) says ``archived``. Plain SQL that
SQLite and PostgreSQL both run (no parameters)."""


def pick_project(ids: Sequence[str], archived: set[str]) -> str:
    """The project a command works on when none was named, of the stored ``ids``
    (sorted): the only one not ``archived`` (issue 35 item 6), else the only one stored
    (an archived project stays readable). Raises :class:`InputError` when none is
    stored, or when several are and none was named."""
    active = [pid for pid in ids if pid not in archived]
    if len(active) == 1:
        return active[0]
    if not active and len(ids) == 1:
        return ids[0]
    if not ids:
        raise InputError("no project in the store yet; run `etki init PROJECT_DIR` first")
    shown = active or list(ids)
    raise InputError(f"several projects ({', '.join(shown)}): choose one with --project")


# --- decoding a stored decision and ruling (shared with the repository) -----------------


def ruling_of(
    case_id: str,
    verdict: str,
    ruling: str | None,
    action: str,
    reviewer: str,
    reason: str,
    ruled_at: str,
    version: int,
) -> RulingRecord | None:
    """The ruling of case ``case_id`` from its :data:`RULING_COLUMNS`, with ``verdict``
    the engine's (the ``decisions.verdict`` column); None when the case is pending.
    Both verdict columns hold one of :data:`~etki.domain.VERDICTS` (what
    :meth:`~etki.store.repository.cases.CaseStore.record_ruling` and the decision
    wrote)."""
    if ruling is None:
        return None
    return _ruling_record()(
        case_id=case_id,
        ruling=cast("Verdict", ruling),
        action=action,
        reviewer=reviewer,
        reason=reason,
        ruled_at=ruled_at,
        verdict=cast("Verdict", verdict),
        version=version,
    )


@functools.cache
def _ruling_record() -> type[RulingRecord]:
    """:class:`~etki.domain.RulingRecord`, imported on the first ruling read (not per
    row: 10,000 imports were ~5 % of ``etki report`` on the 10k bench store)."""
    from etki.domain import RulingRecord

    return RulingRecord


# --- the light decision of a queue row ----------------------------------------------------

_DECODER = json.JSONDecoder()


def _json_member(doc: str, key: str, *, last: bool) -> object:
    """The value of the top-level ``key`` of the canonical decision JSON ``doc``
    (compact separators, see :meth:`Decision.to_json`), decoded alone. Inside a JSON
    string every quote is escaped, so ``"key":`` can only be a member name; the
    top-level ``risk`` is the last ``"risk":`` (only ``verdict`` follows it) and
    ``cited_clauses`` the first (only ``assumptions`` strings and ``case_id`` precede
    it). Raises ``ValueError`` when the member is missing."""
    marker = f'"{key}":'
    at = doc.rfind(marker) if last else doc.find(marker)
    if at < 0:
        raise ValueError(key)
    value, _ = _DECODER.raw_decode(doc, at + len(marker))
    return value


def summary_of_members(
    refs_json: str | None,
    risk_json: str | None,
    verdict: str,
    confidence: float,
    risks: dict[tuple[object, ...], Risk],
    deciding_text: str | None = None,
    sure: object = None,
    modules_json: str | None = None,
) -> DecisionSummary:
    """A :class:`~etki.domain.DecisionSummary` from the ``cited_clauses`` and ``risk``
    members of a stored decision as JSON text (what SQLite's ``json_extract`` returns),
    ``deciding_text``, the decision's JSON from its ``deciding sentence: `` on (or
    None; :func:`etki.domain.deciding_in_json`), and its ``sure`` member as
    ``json_extract`` gives it (1, 0, or None when absent: an engine before 3.0.0, not
    sure), and ``modules_json``, its ``impacted_modules`` member (None: none).
    ``risks`` shares equal :class:`Risk` values between calls."""
    refs = json.loads(refs_json) if refs_json else []
    risk = json.loads(risk_json) if risk_json else {}
    summary = _summary(refs, risk, verdict, confidence, risks)
    deciding = deciding_in_json(deciding_text, summary.cited_clauses)
    if deciding or sure:
        summary = replace(summary, deciding=deciding, sure=sure in (1, True))
    modules = json.loads(modules_json) if modules_json else []
    if modules:
        summary = replace(summary, impacted_modules=tuple(modules))
    return summary


def _summary(
    refs: list[str],
    risk: dict[str, Any],
    verdict: str,
    confidence: float,
    risks: dict[tuple[object, ...], Risk] | None,
) -> DecisionSummary:
    from etki.domain import DecisionSummary, Risk

    level = risk.get("level", "low")
    signals = tuple(risk.get("signals", ()))
    look = bool(risk.get("pmo_look_24h", False))
    key = (level, signals, look)
    shared = risks.get(key) if risks is not None else None
    if shared is None:
        shared = Risk(level=level, signals=signals, pmo_look_24h=look)
        if risks is not None:
            risks[key] = shared
    return DecisionSummary(
        verdict=verdict, confidence=confidence, cited_clauses=tuple(refs), risk=shared
    )


def decision_summary(
    decision_json: str,
    verdict: str,
    confidence: float,
    risks: dict[tuple[object, ...], Risk] | None = None,
) -> DecisionSummary:
    """A :class:`~etki.domain.DecisionSummary` from a stored decision's JSON text and its
    verdict and confidence columns: only ``cited_clauses``, ``risk``, ``sure`` and
    ``impacted_modules`` are decoded
    (falls back to the whole document when the text is not the canonical form).
    ``risks`` shares equal :class:`Risk` values between calls."""
    try:
        refs = _json_member(decision_json, "cited_clauses", last=False)
        risk = _json_member(decision_json, "risk", last=True)
        if not isinstance(refs, list) or not isinstance(risk, dict):
            raise ValueError("shape")
        # absent for an engine before 3.0.0 (not sure); else the last "sure": (only
        # "verdict" follows it, and no nested member has that name)
        sure = (
            _json_member(decision_json, "sure", last=True) if '"sure":' in decision_json else False
        )
        # the last "impacted_modules": (no member after it, up to "verdict", has one)
        modules = _json_member(decision_json, "impacted_modules", last=True)
        if not isinstance(modules, list):
            raise ValueError("shape")
    except ValueError:
        whole = json.loads(decision_json)
        refs, risk = whole.get("cited_clauses", []), whole.get("risk", {})
        sure = whole.get("sure", False)
        modules = whole.get("impacted_modules", [])
    summary = _summary(refs, risk, verdict, confidence, risks)
    deciding = deciding_in_json(decision_json, summary.cited_clauses)
    if deciding or sure is True:
        summary = replace(summary, deciding=deciding, sure=sure is True)
    if modules:
        summary = replace(summary, impacted_modules=tuple(modules))
    return summary


# --- opening the store -------------------------------------------------------------------


def sqlite_file(url: str) -> Path | None:
    """The file of a ``sqlite:///PATH`` URL as SQLAlchemy reads it (``sqlite:////abs``
    is absolute, ``sqlite:///rel`` relative to the cwd, ``~`` expanded), or None for a
    URL whose reading this module does not repeat (a driver name, query parameters,
    percent escapes, an in-memory database)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or any(ch in url for ch in "?#%"):
        return None
    database = url[len(prefix) :]
    if not database or database == ":memory:":
        return None
    return Path(database).expanduser()


def postgres_params(url: str) -> dict[str, Any] | None:
    """``psycopg.connect`` keywords of a ``postgresql://`` or ``postgresql+psycopg://``
    URL as SQLAlchemy passes them (user, password and query values unquoted; a query
    parameter such as ``options`` or ``connect_timeout`` passed on; absent parts left
    to libpq and its ``PG*`` variables), or None for a URL this module does not read
    (another driver, a repeated query parameter, several or bracketed hosts, a percent
    escape in the host or database)."""
    from urllib.parse import parse_qsl

    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("postgresql", "postgresql+psycopg") or "#" in rest:
        return None
    rest, _, query = rest.partition("?")
    netloc, _, database = rest.partition("/")
    userinfo, at, hostport = netloc.rpartition("@")
    if any(ch in hostport + database for ch in "%[],/") or "@" in hostport:
        return None
    params: dict[str, Any] = {}
    if at:
        user, colon, password = userinfo.partition(":")
        if user:
            params["user"] = unquote(user)
        if colon:
            params["password"] = unquote(password)
    host, colon, port = hostport.partition(":")
    if host:
        params["host"] = host
    if colon:
        if not port.isdigit():
            return None
        params["port"] = int(port)
    if database:
        params["dbname"] = database
    pairs = parse_qsl(query, keep_blank_values=True)
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys) or set(keys) & set(params) or "dbname" in keys:
        return None
    params.update(pairs)
    return params


def _sqlite_connection(path: Path) -> Any:
    """``path`` opened read-only as :func:`etki.store.db._read_only_sqlite` does
    (``mode=ro``; ``immutable=1`` for a checkpointed WAL store in a folder this process
    cannot write)."""
    import sqlite3

    uri = path.resolve().as_uri() + "?mode=ro"
    if not os.access(path.parent, os.W_OK) and not path.with_name(path.name + "-shm").exists():
        uri += "&immutable=1"
    conn = sqlite3.connect(uri, uri=True, timeout=SQLITE_BUSY_TIMEOUT_S)
    conn.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
    return conn


def _postgres_connection(params: dict[str, Any]) -> Any:
    """A read-only psycopg connection with the timeouts :func:`etki.store.db.make_engine`
    sets: ``ETKI_DB_CONNECT_TIMEOUT`` as libpq's ``connect_timeout`` (whole seconds)
    unless the URL gives one, and ``ETKI_DB_STATEMENT_TIMEOUT`` as ``SET
    statement_timeout`` unless the URL's ``options`` (else ``PGOPTIONS``) sets one."""
    import psycopg

    from etki.config import db_timeouts

    connect_s, statement_s = db_timeouts()
    kwargs = dict(params)
    if connect_s > 0 and "connect_timeout" not in kwargs:
        kwargs["connect_timeout"] = max(1, math.ceil(connect_s))
    conn = psycopg.connect(**kwargs)
    options = kwargs.get("options") or os.environ.get("PGOPTIONS") or ""
    if statement_s > 0 and "statement_timeout" not in options:
        conn.execute(f"SET statement_timeout = {max(1, round(statement_s * 1000))}")
        conn.commit()
    conn.read_only = True
    return conn


def open_store(db_url: str) -> LeanStore:
    """The store at ``db_url`` (``ETKI_DB_URL``, :attr:`etki.config.Settings.db_url`)
    opened for reading, checked to be at :data:`HEAD_REVISION`. Raises
    :class:`Fallback` for anything the ORM path must answer (see the module docstring),
    and when ``ETKI_LEAN_READ`` is ``0`` (also ``off``, ``false``, ``no``: every read
    through the ORM, to compare the two)."""
    if os.environ.get("ETKI_LEAN_READ", "").strip().lower() in ("0", "off", "false", "no"):
        raise Fallback("ETKI_LEAN_READ is off")
    path = sqlite_file(db_url)
    params = None if path is not None else postgres_params(db_url)
    if path is None and params is None:
        raise Fallback("a URL this module does not read")
    try:
        if path is not None:
            if not path.is_file():
                raise Fallback("no SQLite file")
            store = LeanStore(_sqlite_connection(path), "sqlite")
        else:
            assert params is not None
            store = LeanStore(_postgres_connection(params), "postgresql")
        store.check_revision()
    except Fallback:
        raise
    except Exception as exc:  # a driver's error: the ORM path reports it as today
        raise Fallback(f"{type(exc).__name__} on opening") from exc
    return store


# --- the queries ---------------------------------------------------------------------------

CASE_COLUMNS = (
    "c.id, c.request_id, c.title, c.submitted_by, c.submitted_at, c.created_at, "
    "c.version, d.verdict, d.confidence, d.decision_json, "
    "r.ruling, r.action, r.reviewer, r.reason, r.ruled_at, r.version"
)
"""The columns of :meth:`LeanStore._summary`: a queue row without the request text."""
CASES = (
    f"SELECT {CASE_COLUMNS} FROM cases c JOIN decisions d ON d.case_id = c.id "
    "LEFT JOIN rulings r ON r.case_id = c.id WHERE c.project_id = ?"
)
RULED_HEADS = (
    # the refs each ruled case's decision cites, as its ruling's row keeps them
    # (migration 0008; NULL only in a row no writer of this schema made)
    "SELECT c.id, r.ruling, r.cited_refs "
    "FROM cases c JOIN rulings r ON r.case_id = c.id "
    f"WHERE c.project_id = ? ORDER BY {ARRIVAL}"
)

RESOLUTIONS = (
    "SELECT id, project_id, clause_ref, verdict, text, reviewer, at "
    "FROM clause_resolutions WHERE project_id = ? ORDER BY id"
)
CLAIMS = (
    "SELECT e.case_id, e.kind, e.actor, e.at, e.until FROM case_events e "
    "WHERE e.id IN (SELECT max(id) FROM case_events WHERE project_id = ? "
    "AND kind IN ('claim', 'release') GROUP BY case_id) "
    "AND e.case_id IN (SELECT id FROM cases WHERE project_id = ? AND status = 'pending')"
)

ASSIGNS = (
    "SELECT e.case_id, e.kind, e.actor, e.at, e.text FROM case_events e "
    "WHERE e.id IN (SELECT max(id) FROM case_events WHERE project_id = ? "
    "AND kind IN ('assign', 'unassign') GROUP BY case_id) "
    "AND e.case_id IN (SELECT id FROM cases WHERE project_id = ? AND status = 'pending')"
)
"""The assignment in force of each assigned pending case (issue 35 item 5), as
:meth:`etki.store.repository.assignments.AssignmentStore.live_assignments` reads it."""

PENDING_COUNT = "SELECT count(*) FROM cases WHERE project_id = ? AND status = 'pending'"
"""How many cases of one project are pending (:meth:`LeanStore.pending_count`)."""


@dataclass(frozen=True)
class QueuePart:
    """What ``etki queue`` reads of one project: ``shown``, the rows it prints (oldest
    first), and for the disputes among their clauses (:func:`etki.memory.disputes_counted`,
    computed by the caller: the store imports nothing above it; the queue reads of the
    clause memory only whether a cited clause's dispute is open) ``counts``, the
    per-clause counts of the clauses the shown rows cite (``clause_tallies``, migration
    0013), ``ruled``, the :data:`RuledRow` of the ruled cases citing one of them that has
    a resolution, and ``resolutions``, the project's resolutions (oldest first):
    :func:`etki.store.lean_disputes.dispute_read`."""

    shown: list[CaseSummary]
    counts: list[tuple[str, str, int, int]]
    ruled: list[RuledRow]
    resolutions: list[ClauseResolution]


@dataclass(frozen=True)
class QueueRead:
    """What ``etki queue`` prints: one :class:`QueuePart` per project (by id) and
    ``claims`` (case id -> live claim) and ``assignments`` (case id -> assignment in
    force), the values the ORM path reads; ``archived``: ``(project id, pending cases)``
    of each archived project holding pending cases, by id, when no project was named (the
    queue does not offer them; a PMO trial read "no cases waiting" over 44 of them)."""

    parts: list[QueuePart]
    claims: dict[str, CaseEvent]
    assignments: dict[str, CaseEvent]
    archived: list[tuple[str, int]] = field(default_factory=list)


class LeanStore:
    """One DB-API connection to a store at :data:`HEAD_REVISION`, read-only. Every
    method raises the driver's error as it comes (:func:`lean_call` turns it into
    :class:`Fallback`)."""

    def __init__(self, conn: Any, dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def sql(self, query: str) -> str:
        """``query`` for this store: ``%s`` placeholders for psycopg and the
        substring-position function (``{pos}``) of the dialect."""
        if self.dialect == "postgresql":
            return query.replace("?", "%s").replace("{pos}", "strpos")
        return query.replace("{pos}", "instr")

    def rows(self, query: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """All rows of ``query`` (written with ``?`` placeholders)."""
        cur = self.conn.cursor()
        try:
            cur.execute(self.sql(query), tuple(params))
            return list(cur.fetchall())
        finally:
            cur.close()

    def check_revision(self) -> None:
        """Raise :class:`Fallback` unless the store is stamped :data:`HEAD_REVISION`."""
        try:
            found = self.rows("SELECT version_num FROM alembic_version")
        except Exception as exc:
            raise Fallback("no alembic_version") from exc
        if [r[0] for r in found] != [HEAD_REVISION]:
            raise Fallback(f"revision {found!r}")

    def project_ids(self) -> list[str]:
        """The stored project ids, sorted (by the database, as the repository does)."""
        return [r[0] for r in self.rows("SELECT id FROM projects ORDER BY id")]

    def archived_ids(self) -> list[str]:
        """The archived project ids, sorted (:data:`ARCHIVED_SQL`, as the repository's
        ``archived_project_ids``)."""
        return [r[0] for r in self.rows(ARCHIVED_SQL)]

    def project_list(self) -> list[tuple[str, bool]]:
        """``(id, archived)`` of every stored project, sorted by id (``etki projects``)."""
        archived = set(self.archived_ids())
        return [(pid, pid in archived) for pid in self.project_ids()]

    def require_project(self, project_id: str, ids: Iterable[str] | None = None) -> None:
        """Raise :class:`NotFoundError` (the repository's wording, naming the stored ids)
        when ``project_id`` is not stored."""
        known = list(self.project_ids() if ids is None else ids)
        if project_id not in known:
            named = ", ".join(known) or "none yet (run `etki init PROJECT_DIR`)"
            raise NotFoundError(f"no project '{project_id}' in the store; known: {named}")

    def _summary(
        self, project_id: str, row: Sequence[Any], risks: dict[tuple[object, ...], Risk]
    ) -> CaseSummary:
        from etki.domain import CaseSummary

        case_id, request_id, title, submitted_by, submitted_at, created_at, version = row[:7]
        verdict, confidence, decision_json = row[7:10]
        return CaseSummary(
            case_id=case_id,
            project_id=project_id,
            request_id=request_id,
            title=title,
            text="",  # not read: no read command prints it
            submitted_by=submitted_by,
            submitted_at=submitted_at,
            created_at=created_at,
            version=version,
            decision=decision_summary(decision_json, verdict, confidence, risks),
            ruling=ruling_of(case_id, verdict, *row[10:]),
        )

    def cases(
        self, project_id: str, *, status: str | None, risks: dict[tuple[object, ...], Risk]
    ) -> list[CaseSummary]:
        """The project's cases as queue rows (``status`` ``pending`` or ``ruled``, None:
        all), oldest first; ``text`` is empty (not read)."""
        where, params = (
            (" AND c.status = ?", [project_id, status]) if status else ("", [project_id])
        )
        return [
            self._summary(project_id, r, risks)
            for r in self.rows(f"{CASES}{where} ORDER BY {ARRIVAL}", params)
        ]

    def ruled_heads(self, project_id: str) -> list[tuple[str, str, list[str] | None]]:
        """``(case id, ruling, cited refs)`` of every ruled case of the project, oldest
        first, from the summary its ruling's row keeps (:mod:`etki.store.summary`;
        refs None for a row without it: the whole case must be read to know them)."""
        found = self.rows(RULED_HEADS, [project_id])
        refs = iter(decode_refs([r[2] for r in found if r[2] is not None]))
        return [
            (case_id, ruling, None if cited is None else list(next(refs)))
            for case_id, ruling, cited in found
        ]

    def ruled_citing(
        self,
        project_id: str,
        refs: set[str],
        risks: dict[tuple[object, ...], Risk],
        heads: list[tuple[str, str, list[str] | None]] | None = None,
    ) -> list[CaseSummary]:
        """The ruled cases of the project whose decision cites one of ``refs``, oldest
        first: their heads (:meth:`ruled_heads`, or ``heads`` already read) decide which,
        then the whole rows of those (and of any whose head did not say) are read."""
        if not refs:
            return []
        from etki.store.lean_disputes import citing_ids

        order: dict[str, int] = {}
        found_ids = citing_ids(self, project_id, refs) if heads is None else None
        if found_ids is not None:  # through ruling_refs' index (migration 0013)
            order = {case_id: i for i, case_id in enumerate(found_ids)}
        for i, (case_id, _ruling, cited) in enumerate(
            []
            if found_ids is not None
            else self.ruled_heads(project_id)
            if heads is None
            else heads
        ):
            if cited is None or not refs.isdisjoint(cited):
                order[case_id] = i
        wanted = sorted(order, key=order.__getitem__)
        out: list[CaseSummary] = []
        for at in range(0, len(wanted), CHUNK):
            ids = wanted[at : at + CHUNK]
            marks = ", ".join("?" * len(ids))
            found = self.rows(f"{CASES} AND c.id IN ({marks})", [project_id, *ids])
            out += [self._summary(project_id, r, risks) for r in found]
        out.sort(key=lambda c: order[c.case_id])
        return [c for c in out if c.ruling is not None]

    def resolutions(self, project_id: str) -> list[ClauseResolution]:
        """Every resolution of a disputed clause of the project, oldest first."""
        return [
            ClauseResolution(
                id=i,
                project_id=p,
                ref=ref,
                verdict=cast("Verdict", verdict),
                reason=text,
                reviewer=reviewer,
                at=at,
            )
            for i, p, ref, verdict, text, reviewer, at in self.rows(RESOLUTIONS, [project_id])
        ]

    def live_claims(self, project_id: str, now: str) -> dict[str, CaseEvent]:
        """case id -> the live claim of every claimed pending case of the project (as
        :meth:`etki.store.repository.events.EventStore.live_claims`); ``now`` is
        ISO-8601 UTC to the second."""
        from etki.domain import CaseEvent

        return {
            case_id: CaseEvent(at=at, kind="claim", actor=actor, until=until)
            for case_id, kind, actor, at, until in self.rows(CLAIMS, [project_id, project_id])
            if kind == "claim" and until and until > now
        }

    def live_assignments(self, project_id: str) -> dict[str, CaseEvent]:
        """case id -> the assignment in force (``after``: the assignee) of every assigned
        pending case of the project (:data:`ASSIGNS`)."""
        from etki.domain import CaseEvent

        return {
            case_id: CaseEvent(at=at, kind="assign", actor=actor, after=assignee)
            for case_id, kind, actor, at, assignee in self.rows(ASSIGNS, [project_id, project_id])
            if kind == "assign"
        }

    def queue(self, project: str | None, *, every: bool) -> QueueRead:
        """What ``etki queue [--project ID] [--all]`` prints (``every``: ruled cases
        too). Raises :class:`NotFoundError` for an unknown ``project``."""
        ids = self.project_ids()
        archived = set(self.archived_ids())
        if project:
            self.require_project(project, ids)
            if project in archived:
                raise ProjectArchivedError(project, "has no queue")
        ids = [pid for pid in ids if pid not in archived]
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        parts: list[QueuePart] = []
        claims: dict[str, CaseEvent] = {}
        assignments: dict[str, CaseEvent] = {}
        risks: dict[tuple[object, ...], Risk] = {}
        for pid in [project] if project else ids:
            shown = self.cases(pid, status=None if every else "pending", risks=risks)
            cited = {ref for c in shown for ref in c.decision.cited_clauses}
            if cited:
                from etki.store.lean_disputes import dispute_read

                got = dispute_read(self, pid, cited)
                parts.append(QueuePart(shown, got.counts, got.ruled, got.resolutions))
            else:
                parts.append(QueuePart(shown, [], [], []))
            claims.update(self.live_claims(pid, now))
            assignments.update(self.live_assignments(pid))
        held = [] if project else [(pid, self.pending_count(pid)) for pid in sorted(archived)]
        return QueueRead(parts, claims, assignments, [(p, n) for p, n in held if n])

    def module_ids(self, project: str | None) -> list[str]:
        """The module ids ``project`` declares (every project not archived when None),
        sorted, each once (``etki queue --module`` checks the id typed against them)."""
        archived = set(self.archived_ids())
        ids = [project] if project else [p for p in self.project_ids() if p not in archived]
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        query = f"SELECT DISTINCT id FROM modules WHERE project_id IN ({marks})"
        return sorted(r[0] for r in self.rows(query, ids))

    def pending_count(self, project_id: str) -> int:
        """How many cases of the project are pending (``status = 'pending'``)."""
        found = self.rows(PENDING_COUNT, [project_id])
        return int(found[0][0]) if found else 0

    def chosen_project(self, given: str | None) -> str:
        """The project a command works on, as :meth:`etki.services.Desk.chosen_project`:
        ``given`` when stored, else the only stored project. Raises
        :class:`NotFoundError` for an unknown ``given``, :class:`~etki.errors.InputError`
        when none or several are stored and none was given."""
        ids = self.project_ids()
        if given:
            self.require_project(given, ids)
            return given
        return pick_project(ids, set(self.archived_ids()))

    def ruled_rows(self, project_id: str) -> list[RuledRow]:
        """``(case id, ruling, reviewer, ruled at, reason, cited refs, deciding ref)``
        of every ruled case of the project, in no set order (:data:`RULED_ROWS`): the
        :data:`etki.memory.RuledRow` the list of disputed clauses is computed from, read
        from the ruling's row (:mod:`etki.store.summary`); a row without the summary has
        its decision read (:meth:`summaries_of`)."""
        return self.ruled_of(self.rows(RULED_ROWS, [project_id]))

    def ruled_of(self, found: list[tuple[Any, ...]]) -> list[RuledRow]:
        """The :data:`RuledRow` of rows of :data:`RULED_ROWS` (:meth:`ruled_rows`)."""
        missing = self.summaries_of([r[0] for r in found if r[5] is None])
        rows = [r if r[5] is not None else (*r[:5], *missing[r[0]]) for r in found]
        refs = decode_refs([r[5] for r in rows])
        return [(*r[:5], cited, r[6]) for r, cited in zip(rows, refs, strict=True)]

    def summaries_of(self, case_ids: Sequence[str]) -> dict[str, tuple[str, str | None]]:
        """case id -> :func:`etki.store.summary.ruling_summary` of its stored decision,
        decoded whole (for a ruling row without the summary; usually none)."""
        out: dict[str, tuple[str, str | None]] = {}
        for at in range(0, len(case_ids), CHUNK):
            ids = case_ids[at : at + CHUNK]
            marks = ", ".join("?" * len(ids))
            query = f"SELECT case_id, decision_json FROM decisions WHERE case_id IN ({marks})"
            for case_id, doc in self.rows(query, ids):
                out[case_id] = ruling_summary(doc)
        return out

    def disputes(self, given: str | None) -> tuple[str, list[RuledRow], list[ClauseResolution]]:
        """What ``etki dispute list [--project ID]`` reads: the chosen project
        (:meth:`chosen_project`), the :meth:`ruled_rows` of its ruled cases and its
        resolutions; the caller computes :func:`etki.memory.disputes_of`. Every ruled
        case is read (on the 10k bench store most clauses are disputed), but only the
        columns the list is computed from."""
        project_id = self.chosen_project(given)
        return project_id, self.ruled_rows(project_id), self.resolutions(project_id)


def lean_call(db_url: str, read: str | Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``LeanStore.<read>(*args, **kwargs)`` on the store at ``db_url`` (``read`` a
    function: ``read(store, *args, **kwargs)``, e.g. :func:`etki.store.lean_case.show_read`), the connection
    closed after. Raises :class:`Fallback` when the ORM path must answer, and the
    read's own :class:`~etki.errors.EtkiError` (an unknown project) as it is."""
    store = open_store(db_url)
    try:
        if callable(read):
            return read(store, *args, **kwargs)
        return getattr(store, read)(*args, **kwargs)
    except (Fallback, EtkiError):
        raise
    except Exception as exc:  # a driver's error: the ORM path reports it as today
        raise Fallback(f"{type(exc).__name__} in {getattr(read, '__name__', read)}") from exc
    finally:
        store.close()
