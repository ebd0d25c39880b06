"""What the reviewer should do next when a service call fails.

Every error reaches the reviewer as one line saying what happened (the error's own
message, terminal-safe) plus one line of advice from :func:`advice`, as a toast or, for
refusals they must acknowledge, a modal. Never a traceback.
"""

from __future__ import annotations

from etki.console import error_summary
from etki.errors import (
    ConflictError,
    EtkiError,
    InputError,
    NoApproversError,
    NotFoundError,
    PermissionDeniedError,
    ProjectArchivedError,
)
from etki.text import printable


def one_line(exc: BaseException) -> str:
    """The first line of an exception's message (or its class name), terminal-safe. For a
    database error only its safe parts (:func:`etki.console.error_summary`: driver class,
    SQLSTATE, constraint, a fixed driver wording such as ``database is locked``), never the
    SQL or its parameters."""
    if _is_database_error(exc) and not isinstance(exc, EtkiError):
        return error_summary(exc)
    text = str(exc).strip().splitlines()
    return printable(text[0] if text else exc.__class__.__name__, multiline=False)


def _is_database_error(exc: BaseException) -> bool:
    module = type(exc).__module__ or ""
    return module.startswith(("sqlalchemy", "sqlite3", "psycopg"))


UPDATE_REVIEWERS = "etki init PROJECT_DIR --update-reviewers"
"""The command that loads a changed reviewer list (``PROJECT_DIR`` the engagement's
folder), as every refusal, banner and toast of the desk names it."""


def advice(exc: BaseException, doing: str = "") -> str:
    """One sentence: what to do next after ``exc`` while ``doing`` something."""
    if isinstance(exc, ConflictError):
        return "Nothing was recorded. Look at the case again; the queue has been reloaded."
    if isinstance(exc, NoApproversError):  # its message names the field and the command
        return "Nothing was assigned."
    if isinstance(exc, PermissionDeniedError):
        return (
            "Ask a project approver to list you in etki.yaml (role: approver) and "
            f"load it with `{UPDATE_REVIEWERS}`, or set ETKI_REVIEWER to your "
            "listed name."
        )
    if isinstance(exc, NotFoundError):
        return (
            "It is no longer in the store (erased or re-loaded): press Ctrl+R to "
            "reload, or Ctrl+P to open another project."
        )
    if isinstance(exc, ProjectArchivedError):  # its message says how to unarchive
        return "Nothing was recorded; once it is unarchived, press Ctrl+R here."
    if isinstance(exc, InputError):
        return "Correct the input and try again."
    if _is_database_error(exc):
        return (
            "The database did not answer. Check ETKI_DB_URL and that the database is "
            "reachable, then press Ctrl+R (the queue also retries by itself)."
        )
    if isinstance(exc, OSError):
        return "A file could not be read or written; check the path and its permissions."
    if isinstance(exc, EtkiError):
        return "Press Ctrl+R to reload and try again."
    return (
        "Press Ctrl+R to reload and try again; if it keeps failing, run the same step "
        "with the `etki` command to see the full error."
    )
