"""Error types. Every message names what is wrong and, where it applies, the file,
line and field, so that a reviewer or PMO can act on it without reading a traceback."""

from __future__ import annotations


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

    def __init__(self, path: str, problem: str, *, line: int | None = None,
                 field: str | None = None) -> None:
        self.path, self.line, self.field, self.problem = str(path), line, field, problem
        where = self.path + (f":{line}" if line is not None else "")
        what = f" field '{field}'" if field else ""
        super().__init__(f"{where}:{what} {problem}".replace(": ", ": ", 1))


class NotFoundError(InputError):
    """A project, case, clause or page that does not exist."""


class ConflictError(EtkiError):
    """Optimistic-locking conflict: the case was ruled by someone else after it was read.

    Attributes: ``case_id``, ``ruled_by``, ``ruled_at`` (ISO-8601 string) and ``ruling``
    (the ruling that won), so the UI can say who and when and ask the reviewer to reload.
    The CLI exits 2 for it: the case is no longer open to this ruling.
    """

    exit_code = 2

    def __init__(self, case_id: str, ruled_by: str | None = None,
                 ruled_at: str | None = None, ruling: str | None = None) -> None:
        self.case_id, self.ruled_by, self.ruled_at, self.ruling = case_id, ruled_by, ruled_at, ruling
        who = f" by {ruled_by}" if ruled_by else ""
        when = f" at {ruled_at}" if ruled_at else ""
        what = f" ({ruling})" if ruling else ""
        super().__init__(
            f"case {case_id} was already ruled{what}{who}{when}; reload the queue and look again"
        )


class PermissionDeniedError(InputError):
    """The reviewer is not an approver of the project."""


class VocabularyError(InputError):
    """An edge type that the edge vocabulary does not know."""


class StoreUnavailableError(EtkiError):
    """The database server could not be reached: it refused the connection, or accepted
    it and did not answer within ``ETKI_DB_CONNECT_TIMEOUT`` (CLI exit code 1).

    Attributes: ``server`` (``host:port``, never the user or password) and ``reason``
    (what failed, e.g. ``did not answer within 10 s``)."""

    def __init__(self, server: str, reason: str, hint: str = "") -> None:
        self.server, self.reason = server, reason
        super().__init__(f"the PostgreSQL server at {server} {reason}"
                         + (f"; {hint}" if hint else ""))


class StatementTimeoutError(EtkiError):
    """The database server cancelled a statement that ran or waited (for a lock another
    session holds) longer than ``ETKI_DB_STATEMENT_TIMEOUT`` (CLI exit code 1; nothing of
    the statement's transaction is stored). Attributes: ``server`` (``host:port``) and
    ``seconds`` (the limit; None when it is not Etki's: the ``options`` of ETKI_DB_URL or
    a setting of the server)."""

    def __init__(self, server: str, seconds: float | None) -> None:
        self.server, self.seconds = server, seconds
        limit = (f"{seconds:g} s (ETKI_DB_STATEMENT_TIMEOUT)" if seconds is not None
                 else "its statement_timeout (set in ETKI_DB_URL's options or on the "
                      "server)")
        super().__init__(
            f"the PostgreSQL server at {server} cancelled a statement that ran longer "
            f"than {limit}; another session may hold a lock it waits for: finish that "
            "session, or raise the limit (0: none)")
