"""Who acts: the asserted reviewer name and the process that asserts it (issue 11 item 9).

A reviewer name (``ETKI_REVIEWER``, or a ``name`` under ``reviewers`` in ``etki.yaml``)
is an assertion: anyone who can run Etki can set it. Beside every audit row Etki
therefore records what the operating system says about the acting process
(:class:`ProcessIdentity`): the OS account, the host, the process id and the program
(``etki rule``, ``etki erase``, ``etki init``, ``etki-tui``, ``etki mcp``).

Names are compared in one canonical form, :func:`reviewer_name`: Unicode NFC with the
white space at both ends removed. ``Ju\\u0308rgen`` (``u`` + combining diaeresis, as
some keyboards and macOS file names type it) is the same name as ``Jürgen``. Case is
*not* folded: ``jürgen`` and ``Jürgen`` stay two names, because folding would widen who
counts as an approver (Turkish ``I``/``ı``/``İ``/``i`` fold differently from other
languages) and an approver list is an allow-list; inner white space is kept as typed.
"""

from __future__ import annotations

import getpass
import os
import re
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = [
    "Listed",
    "ProcessIdentity",
    "current_process",
    "is_listed_approver",
    "name_folds",
    "similar_name",
    "program",
    "reviewer_name",
    "set_program",
]

_PROGRAM: str | None = None
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_CACHE: dict[tuple[int, str], ProcessIdentity] = {}


def reviewer_name(name: str) -> str:
    """``name`` in the form Etki compares and stores reviewer names in: Unicode NFC,
    surrounding white space stripped, case kept (module docstring)."""
    return unicodedata.normalize("NFC", name).strip()


class Listed(Protocol):
    """A person on a project's list as far as :func:`is_listed_approver` reads it: a
    ``name`` and a ``role`` (``approver`` or ``viewer``). :class:`etki.domain.Reviewer` is
    one; spelled here so this helper stays below :mod:`etki.domain` (the ``etki`` layers
    contract in pyproject.toml)."""

    @property
    def name(self) -> str: ...

    @property
    def role(self) -> str: ...


def is_listed_approver(reviewers: Iterable[Listed], name: str) -> bool:
    """Whether ``name`` is an approver among ``reviewers``, both sides compared as :func:`reviewer_name` (a list stored before names
    were normalised may hold NFD spellings)."""
    who = reviewer_name(name)
    return any(r.role == "approver" and reviewer_name(r.name) == who for r in reviewers)


_SPELLED_OUT = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}
"""German umlauts as typed without them (``Mueller`` for ``Müller``)."""
_PLAIN = str.maketrans({"ı": "i", "İ": "I", "ß": "ss", "ẞ": "SS", "ø": "o", "Ø": "O", "ł": "l"})
"""Letters that lose no mark in NFKD but have a plain ASCII spelling."""


def _strip_marks(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name.translate(_PLAIN))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def name_folds(name: str) -> frozenset[str]:
    """The spellings of ``name`` typed without its Turkish or German letters, for a
    *suggestion* only (never for the approver test, which stays exact:
    :func:`is_listed_approver`): marks dropped (``Ayşe Yılmaz`` -> ``ayse yilmaz``,
    ``İ`` -> ``i``, ``ı`` -> ``i``, ``ß`` -> ``ss``), umlauts also as ``ae``/``oe``/``ue``,
    case folded and inner white space collapsed. Pure."""
    nfc = reviewer_name(name)
    variants = {nfc, "".join(_SPELLED_OUT.get(ch, ch) for ch in nfc)}
    return frozenset(" ".join(_strip_marks(v).casefold().split()) for v in variants)


def similar_name(names: Iterable[str], typed: str) -> str | None:
    """The one name of ``names`` that ``typed`` spells without its Turkish or German
    letters or with other case (:func:`name_folds` share a spelling), as listed (NFC);
    None when ``typed`` is one of them exactly, when none is alike, or when several are
    (no guess between two people). What the desk offers as "did you mean 'Ayşe
    Yılmaz'?" to an ``ETKI_REVIEWER`` typed on a keyboard without them."""
    who = reviewer_name(typed)
    listed = list(dict.fromkeys(reviewer_name(n) for n in names))
    if who in listed:
        return None
    folds = name_folds(who)
    alike = [n for n in listed if name_folds(n) & folds]
    return alike[0] if len(alike) == 1 else None


def approver_hint(reviewers: Iterable[Listed], typed: str) -> str:
    """What a refusal adds when ``typed`` spells an approver of ``reviewers`` without
    its Turkish or German letters or in other case (:func:`similar_name`):
    ``"; did you mean 'Ayşe Yılmaz'? (ETKI_REVIEWER must be written as listed)"``, else
    ``""``. It names only the spelling of the name typed, never another approver (a
    refusal does not hand out the approver list). Pure."""
    approvers = [r.name for r in reviewers if r.role == "approver"]
    near = similar_name(approvers, typed)
    if near is None:
        return ""
    return f"; did you mean {near!r}? (ETKI_REVIEWER must be written as listed)"


def set_program(label: str) -> None:
    """Name the program this process runs as in the audit (``etki rule``, ``etki-tui``);
    set once by each entry point. Without it :func:`program` falls back to the script
    name."""
    global _PROGRAM
    _PROGRAM = label


def program() -> str:
    """The program label set by :func:`set_program`, else the base name of
    ``sys.argv[0]`` (``python`` when there is none)."""
    if _PROGRAM:
        return _PROGRAM
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else "python"
    return Path(argv0).name or "python"


def _os_user() -> str:
    """The account of the real user id from the password database, not ``$USER`` or
    ``$LOGNAME`` (which, like ``ETKI_REVIEWER``, any caller can set); ``uid N`` when
    the id has no entry (containers); ``getpass.getuser()`` where there is no ``pwd``
    module (Windows)."""
    try:
        import pwd
    except ImportError:  # not POSIX
        try:
            return getpass.getuser()
        except Exception:  # noqa: BLE001 - no user name known at all
            return "unknown"
    uid = os.getuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


@dataclass(frozen=True)
class ProcessIdentity:
    """What the OS says about the acting process, stored beside the asserted reviewer in
    every audit row: ``os_user`` (account name of the real uid), ``host``
    (``socket.gethostname()``), ``pid`` (``os.getpid()``) and ``program`` (see
    :func:`program`). Text that cannot be stored (NUL, lone surrogates from undecodable
    bytes in ``argv``) is replaced by U+FFFD."""

    os_user: str
    host: str
    pid: int
    program: str

    def columns(self) -> dict[str, object]:
        """The audit-row columns: ``{"os_user", "host", "pid", "program"}``."""
        return {
            "os_user": self.os_user,
            "host": self.host,
            "pid": self.pid,
            "program": self.program,
        }


def current_process() -> ProcessIdentity:
    """The :class:`ProcessIdentity` of the calling process, looked up once per process
    id and program label (a fork gets its own)."""
    key = (os.getpid(), program())
    found = _CACHE.get(key)
    if found is None:
        import socket  # here, not at the top: the CLI's start-up stays light

        clean = [_UNSTORABLE.sub("\ufffd", v) for v in (_os_user(), socket.gethostname(), key[1])]
        found = ProcessIdentity(os_user=clean[0], host=clean[1], pid=key[0], program=clean[2])
        _CACHE[key] = found
    return found
