"""Error types. Every message names what is wrong and, where it applies, the file,
line and field, so that a reviewer or PMO can act on it without reading a traceback."""

from __future__ import annotations

import errno
import re

LONG_VALUE = 200
"""Most characters of one value (a quoted id or query, a path) an error message repeats;
a longer one is cut with its length (:func:`clip`)."""
_N = LONG_VALUE + 1
_LONG = re.compile(rf"(?<!\w)'[^'\n]{{{_N},}}'(?!\w)|(?<!\w)\"[^\"\n]{{{_N},}}\"(?!\w)|\S{{{_N},}}")
"""A long value: quoted (an opening quote not after a letter, a closing one not before
one, so the text between two quoted values, ``'demo' … 'Mallory'``, is no value) or a
run without white space."""


def clip(value: str, limit: int = LONG_VALUE) -> str:
    """``value``, or its first ``limit`` characters followed by ``…(N characters)`` (N:
    the whole value's length) when it is longer, so a message never repeats a 100 kB query
    or path.

    >>> clip("x" * 300, 5)
    'xxxxx…(300 characters)'
    """
    return value if len(value) <= limit else f"{value[:limit]}…({len(value)} characters)"


def clip_values(message: str) -> str:
    """``message`` with every value longer than :data:`LONG_VALUE` characters cut by
    :func:`clip`: a quoted one (``'…'``, ``"…"``, its quotes kept) and any run without
    white space (a path, an id)."""

    def cut(match: re.Match[str]) -> str:
        text = match.group()
        if text[0] in "'\"" and text[-1] == text[0] and len(text) > 1:
            return text[0] + clip(text[1:-1]) + text[0]
        return clip(text)

    return _LONG.sub(cut, message)


class EtkiError(Exception):
    """Base class of every error Etki raises on purpose. ``exit_code`` is what the CLI
    returns for it: 2 for bad input, 1 for an internal failure."""

    exit_code = 1


class InputError(EtkiError):
    """Bad input from a user or a file (CLI exit code 2)."""

    exit_code = 2


class ProjectFormatError(InputError):
    """A malformed file in a project folder.

    Attributes: ``path`` (the file), ``line`` (1-based, or ``None`` when the whole file is
    at fault), ``field`` (dotted field name or ``None``) and ``problem`` (what is wrong).
    """

    def __init__(
        self, path: str, problem: str, *, line: int | None = None, field: str | None = None
    ) -> None:
        self.path, self.line, self.field, self.problem = str(path), line, field, problem
        where = self.path + (f":{line}" if line is not None else "")
        what = f" field '{field}'" if field else ""
        super().__init__(f"{where}:{what} {problem}".replace(": ", ": ", 1))


class NotFoundError(InputError):
    """A project, case, clause or page that does not exist."""


class CaseErasedError(NotFoundError):
    """A write to a case that an erasure (``etki erase``) removed, or was removing while
    the write waited for the case (issue 30 item 1): nothing was written, no audit row
    either (the write's text would outlive the erasure). ``case_id`` names the case;
    ``during`` is True when the write saw the case, waited for the erasure's lock and
    found the case gone (the message then says "is being erased"). A
    :class:`NotFoundError` (exit 2): there is no case to write to."""

    def __init__(self, case_id: str, *, during: bool = False) -> None:
        self.case_id, self.during = case_id, during
        state = (
            "is being erased (an erasure held it while this waited, and removed it)"
            if during
            else "was erased (`etki erase`)"
        )
        super().__init__(f"case {case_id} {state}: nothing was written to it")


class ConflictError(EtkiError):
    """Optimistic-locking conflict: the case was ruled or changed by someone else after
    it was read.

    Attributes: ``case_id``, ``ruled_by``, ``ruled_at`` (ISO-8601 string) and ``ruling``
    (the ruling now in force, None while pending), so the UI can say who and when and ask
    the reviewer to reload; ``version`` (the case's version now) and ``seen`` (the
    version the reviewer gave), both None when the versions were not the cause. The
    message says "was already ruled" when a ruling stands in the way of a new one, and
    "changed since you saw it: it is at version V, you saw N" when the versions differ
    (a stale ``--expected-version``, or an amendment made meanwhile). It ends with
    ``then``, what to do next (the desk's default: reload the queue; ``etki rule`` says
    how to amend, :meth:`told`). The CLI exits 2 for it: the case is no longer open to
    this ruling.
    """

    exit_code = 2

    def __init__(
        self,
        case_id: str,
        ruled_by: str | None = None,
        ruled_at: str | None = None,
        ruling: str | None = None,
        *,
        version: int | None = None,
        seen: int | None = None,
        then: str = "reload the queue and look again",
    ) -> None:
        self.case_id, self.ruled_by, self.ruled_at, self.ruling = (
            case_id,
            ruled_by,
            ruled_at,
            ruling,
        )
        self.version, self.seen = version, seen
        who = f" by {ruled_by}" if ruled_by else ""
        when = f" at {ruled_at}" if ruled_at else ""
        what = f" ({ruling})" if ruling else ""
        if version is not None and seen is not None and version != seen:
            now = f" (now ruled {ruling}{who}{when})" if ruling else " (still pending)"
            problem = f"changed since you saw it: it is at version {version}, you saw {seen}{now}"
        else:
            problem = f"was already ruled{what}{who}{when}"
        super().__init__(f"case {case_id} {problem}; {then}")

    @property
    def already_ruled(self) -> bool:
        """A ruling stands in the way of a new one (the message says "was already
        ruled"), not a version the reviewer saw going stale."""
        stale = self.version is not None and self.seen is not None and self.version != self.seen
        return self.ruling is not None and not stale

    def told(self, then: str) -> ConflictError:
        """The same conflict whose message ends with ``then`` (what to do next, in the
        words of the command that met it: ``etki rule`` names ``--amend``)."""
        return ConflictError(
            self.case_id,
            self.ruled_by,
            self.ruled_at,
            self.ruling,
            version=self.version,
            seen=self.seen,
            then=then,
        )


class NotAChangeRequestError(InputError):
    """A change-request document asked for a case whose current ruling is not
    CHANGE_REQUEST (pending, approved or rejected): it has none. ``case_id`` and
    ``ruling`` (None when pending) say which and why."""

    def __init__(self, case_id: str, ruling: str | None) -> None:
        self.case_id, self.ruling = case_id, ruling
        state = "is pending" if ruling is None else f"is ruled {ruling}"
        super().__init__(
            f"case {case_id} {state}, not CHANGE_REQUEST: only a case converted to a change "
            "request has a change-request document"
        )


class ProjectArchivedError(InputError):
    """A new request, an import or a queue asked of an archived project (issue 35 item 6).
    ``project_id`` names it; ``what`` says what was refused (``takes no new requests``)."""

    def __init__(self, project_id: str, what: str) -> None:
        self.project_id = project_id
        super().__init__(
            f"project '{project_id}' is archived and {what}; its wiki, search, reports "
            f"and cases stay readable (`etki report --project {project_id}`, `etki wiki "
            f"search`, `etki show CASE`). To work on it again: "
            f"`etki project unarchive {project_id}`"
        )


class ResolutionConflictError(EtkiError):
    """Optimistic locking of a disputed clause's resolution: another resolution of
    ``ref`` was recorded after the one the PMO saw (``resolved_by``, ``resolved_at``,
    ``verdict``: the newest, now in force). Nothing was recorded; exit 2."""

    exit_code = 2

    def __init__(self, ref: str, resolved_by: str, resolved_at: str, verdict: str) -> None:
        self.ref, self.resolved_by, self.resolved_at, self.verdict = (
            ref,
            resolved_by,
            resolved_at,
            verdict,
        )
        super().__init__(
            f"clause {ref} was resolved meanwhile (rule {verdict}) by {resolved_by} at "
            f"{resolved_at}; nothing was recorded: read it again and resolve it anew if needed"
        )


class PermissionDeniedError(InputError):
    """The reviewer is not an approver of the project."""


class NoApproversError(PermissionDeniedError):
    """A case cannot be assigned: the project's ``etki.yaml`` lists no approvers (the
    real engagements ship none). The message names the file, the field to fill and the
    command that loads it, as the CLI and the desk show it."""


class VocabularyError(InputError):
    """An edge type that the edge vocabulary does not know."""


class StoreError(EtkiError):
    """The store (the SQLite file or the PostgreSQL database) cannot be used as asked:
    disk full or an I/O failure (exit 1; the base class). ``location`` is the SQLite
    file's path or the database URL with its password masked (never the password)."""

    exit_code = 1

    def __init__(self, location: str, problem: str) -> None:
        self.location, self.problem = location, problem
        super().__init__(problem)


class StoreMissingError(StoreError):
    """A command that needs an existing store found none at ``location`` (exit 2): the
    SQLite file does not exist, or the database holds no Etki tables. Nothing is
    created; ``etki init PROJECT_DIR`` makes the store."""

    exit_code = 2


class StoreUnusableError(StoreError):
    """The store at ``location`` is there but cannot be used for this command (exit 2):
    not a database or corrupt, read-only for a command that writes, or at an older
    schema revision when opened read-only. The message says what to do."""

    exit_code = 2


def os_error_message(exc: OSError) -> str:
    """One line for an ``OSError`` of a file Etki read or wrote: ``disk full: cannot
    write FILE`` for ENOSPC/EDQUOT, else ``FILE: what the system said`` (just what it
    said when it names no file)."""
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        where = str(exc.filename) if exc.filename is not None else "a file"
        return (
            f"disk full: cannot write {where} ({exc.strerror or exc}); free some space "
            "there and run the command again"
        )
    if exc.filename is None:  # Etki's own OSErrors (an unsafe wiki path) say it all
        return clip_values(str(exc.strerror or exc))
    return f"{clip(str(exc.filename))}: {exc.strerror or exc}"


def is_database_error(exc: BaseException) -> bool:
    """Whether ``exc`` comes from the database layer (SQLAlchemy, sqlite3, psycopg): its
    message can quote the SQL statement and its parameters (client text)."""
    module = type(exc).__module__ or ""
    return module.startswith(("sqlalchemy", "sqlite3", "psycopg", "_sqlite3"))


def error_text(exc: BaseException) -> str:
    """What a best-effort step's failure says in a warning: a database error as its safe
    summary (:func:`database_parts`, as :func:`etki.console.error_summary` gives it: the driver's error class, SQLSTATE,
    constraint; never the SQL, its parameters or request text), an ``OSError`` as
    :func:`os_error_message` (``disk full: cannot write FOLDER ...``), anything else as
    its message; every long value cut with its length (:func:`clip_values`)."""
    if is_database_error(exc):
        parts = database_parts(exc)
        name = type(exc).__name__
        return f"{name} ({'; '.join(parts)})" if parts else name
    return os_error_message(exc) if isinstance(exc, OSError) else clip_values(str(exc))


def error_line(exc: BaseException) -> str:
    """``Type: what`` of a failure reported in a list (the erasure's wiki errors): the
    type's name and :func:`error_text` (a database error's summary names its type)."""
    said = error_text(exc)
    return said if is_database_error(exc) else f"{type(exc).__name__}: {said}"


class ReviewersChangedError(InputError):
    """``etki init`` would change who may act on an already stored project (its
    ``etki.yaml`` reviewers differ from the stored list) and ``--update-reviewers`` was
    not given. Nothing was stored. ``changes`` lists what would change, one phrase each
    (``add approver 'Mallory'``)."""

    def __init__(self, message: str, changes: tuple[str, ...] = ()) -> None:
        self.changes = changes
        super().__init__(message)


class StoreUnavailableError(EtkiError):
    """The database server could not be reached: it refused the connection, or accepted
    it and did not answer within ``ETKI_DB_CONNECT_TIMEOUT`` (CLI exit code 1).

    Attributes: ``server`` (``host:port``, never the user or password) and ``reason``
    (what failed, e.g. ``did not answer within 10 s``)."""

    def __init__(self, server: str, reason: str, hint: str = "") -> None:
        self.server, self.reason = server, reason
        super().__init__(
            f"the PostgreSQL server at {server} {reason}" + (f"; {hint}" if hint else "")
        )


class StatementTimeoutError(EtkiError):
    """The database server cancelled a statement that ran or waited (for a lock another
    session holds) longer than ``ETKI_DB_STATEMENT_TIMEOUT`` (CLI exit code 1; nothing of
    the statement's transaction is stored). Attributes: ``server`` (``host:port``) and
    ``seconds`` (the limit; None when it is not Etki's: the ``options`` of ETKI_DB_URL or
    a setting of the server)."""

    def __init__(self, server: str, seconds: float | None) -> None:
        self.server, self.seconds = server, seconds
        limit = (
            f"{seconds:g} s (ETKI_DB_STATEMENT_TIMEOUT)"
            if seconds is not None
            else "its statement_timeout (set in ETKI_DB_URL's options or on the server)"
        )
        super().__init__(
            f"the PostgreSQL server at {server} cancelled a statement that ran longer "
            f"than {limit}; another session may hold a lock it waits for: finish that "
            "session, or raise the limit (0: none)"
        )


# --- safe facts of a database error (etki.console.error_summary, error_text) ----------

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]{0,126}")
_SQLSTATE = re.compile(r"[0-9A-Z]{5}")
_SAFE_DB_MESSAGE = re.compile(
    r"(?:UNIQUE|NOT NULL|CHECK|FOREIGN KEY|PRIMARY KEY) constraint failed"
    r"(?:: [\w.]+(?:, [\w.]+)*)?"
    r"|database is locked|database table is locked(?:: \w+)?|disk I/O error"
    r"|database or disk is full|attempt to write a readonly database"
    r"|unable to open database file|file is not a database"
    r"|database disk image is malformed|no such (?:table|column|index): [\w.]+"
    r"|(?:table|index) [\w.]+ already exists|interrupted"
    r"|server closed the connection(?: unexpectedly)?|the connection is (?:closed|lost)"
    r"|connection timeout expired|consuming input failed: server closed the connection "
    r"unexpectedly|canceling statement due to (?:statement|lock) timeout|deadlock detected"
    r"|could not serialize access due to (?:concurrent update|read/write dependencies "
    r"among transactions)|duplicate key value violates unique constraint \"[\w.$]+\""
    r"|relation \"[\w.$]+\" (?:does not|already) exists?"
)
"""Driver messages known to hold only schema names and fixed words (SQLite's and
PostgreSQL's wording); any other message is left out of the summary."""


def _qualified(exc: BaseException) -> str:
    cls = type(exc)
    module = cls.__module__ or ""
    return cls.__name__ if module in ("builtins", "") else f"{module}.{cls.__qualname__}"


def database_parts(exc: BaseException) -> list[str]:
    """Safe facts about a database error: the driver's class, SQLSTATE, the SQLite error
    name, constraint and table names, and the message only when it is one of
    :data:`_SAFE_DB_MESSAGE`."""
    orig = getattr(exc, "orig", None)
    err = orig if isinstance(orig, BaseException) else exc
    parts: list[str] = [_qualified(err)] if err is not exc else []
    state = getattr(err, "sqlstate", None) or getattr(err, "pgcode", None)
    if isinstance(state, str) and _SQLSTATE.fullmatch(state):
        parts.append(f"SQLSTATE {state}")
    name = getattr(err, "sqlite_errorname", None)
    if isinstance(name, str) and _IDENT.fullmatch(name):
        parts.append(name)
    diag = getattr(err, "diag", None)
    for label, attr in (("constraint", "constraint_name"), ("table", "table_name")):
        value = getattr(diag, attr, None) if diag is not None else None
        if isinstance(value, str) and _IDENT.fullmatch(value):
            parts.append(f"{label} {value}")
    lines = str(err.args[0]).strip().splitlines() if err.args else []
    message = lines[0].strip() if lines else ""
    if message and _SAFE_DB_MESSAGE.fullmatch(message):
        parts.append(message)
    if err is exc:  # SQLAlchemy's own error (a bad URL: its message may hold a password)
        where = where_raised(exc)
        if where:
            parts.append(f"raised at {where}")
    return parts


def where_raised(exc: BaseException) -> str | None:
    """``etki/x.py:123 in func`` of the innermost frame in Etki's own code (or the
    innermost frame at all): a code location, never data."""
    import traceback
    from pathlib import Path

    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    if not frames:
        return None
    home = Path(__file__).resolve().parent.parent
    own = [
        f
        for f in frames
        if Path(f.filename).resolve().is_relative_to(home / "etki")
        or Path(f.filename).resolve().is_relative_to(home / "etki_tui")
    ]
    frame = (own or frames)[-1]
    path = Path(frame.filename)
    try:
        shown = path.resolve().relative_to(home).as_posix()
    except ValueError:
        shown = path.name
    return f"{shown}:{frame.lineno} in {frame.name}"
