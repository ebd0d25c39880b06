"""The store's administration: which store a desk is on (:func:`store_label`), the
seat a desk takes (:class:`Seat`), the approval service wired to the wiki
(:func:`approval_service`) and schema revisions (:func:`schema_upgrade`,
:func:`schema_revision`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from etki.approval import ApprovalService
from etki.config import Settings
from etki.store import CaseFileRepository

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Seat:
    """Who sits at the desk for one project, as :meth:`Desk.seat` reads it from the
    stored ``etki.yaml`` reviewers. ``reviewer``: the acting name (``ETKI_REVIEWER`` or
    the OS user, NFC: :func:`etki.identity.reviewer_name`; untrusted text, show it
    literally). ``role``: ``approver``, ``viewer`` (listed with another role) or ``not
    listed``. ``open``: the project lists no reviewers, so anyone may rule (``role`` is
    then ``approver``). ``may_rule``: whether a ruling of theirs would be taken now:
    :func:`etki.approval.require_approver` accepts them and the project is not
    archived."""

    reviewer: str
    role: str
    may_rule: bool
    open: bool = False
    did_you_mean: str | None = None
    """A listed reviewer name the acting one spells without its Turkish or German
    letters (``Ayse Yilmaz`` for ``Ayşe Yılmaz``: :func:`etki.identity.similar_name`),
    for a desk whose reviewer is not listed; None otherwise."""
    archived: bool = False
    """The project is archived (issue 35 item 6): it takes no rulings, notes, estimates,
    claims or new requests from anyone (``may_rule`` is then False whatever the role)
    until ``etki project unarchive``."""


def store_label(url: object) -> str:
    """Where a store lives, for people, never with a user name or password: ``sqlite
    PATH`` (the path as configured; ``sqlite (in memory)`` for ``:memory:``) or
    ``postgres HOST[:PORT]/DB`` (``localhost`` when the URL names no host). ``url``: a
    database URL string or a SQLAlchemy ``URL``; anything that does not parse reads
    ``unknown store``."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)  # type: ignore[arg-type]  # a URL parses too
    except (ArgumentError, ValueError, TypeError):
        return "unknown store"
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        path = parsed.database or ""
        return "sqlite (in memory)" if path in ("", ":memory:") else f"sqlite {path}"
    host = parsed.host or "localhost"
    port = f":{parsed.port}" if parsed.port else ""
    name = "postgres" if backend == "postgresql" else backend
    return f"{name} {host}{port}/{parsed.database or ''}"


def approval_service(
    repo: CaseFileRepository, settings: Settings, *, hook: Callable[[str], object] | None = None
) -> ApprovalService:
    """An :class:`~etki.approval.ApprovalService` with the HITL ingest hook wired in:
    ``hook`` when given; else, when the wiki is on (``settings.wiki_dir``), a
    :class:`etki.wiki.projection.WikiProjector` over ``repo`` (its ``project_case`` is
    the hook and it is kept in ``ApprovalService.projector``); else no hook. The one
    place rulings are tied to the wiki, so approval never imports it."""
    if hook is None and settings.wiki_dir is not None:
        from etki.wiki.projection import WikiProjector

        projector = WikiProjector(repo, settings)
        return ApprovalService(repo, settings, hook=projector.project_case, projector=projector)
    return ApprovalService(repo, settings, hook=hook)


def schema_upgrade(settings: Settings, revision: str = "head") -> tuple[str | None, str]:
    """Bring the schema of ``settings.db_url`` to ``revision`` (``etki db upgrade``):
    ``(before, after)`` revisions, ``before`` None for an empty database
    (:func:`etki.store.migrate.upgrade`)."""
    from etki.store.db import make_engine
    from etki.store.migrate import upgrade

    engine = make_engine(settings.db_url)
    try:
        return upgrade(engine, revision)
    finally:
        engine.dispose()


def schema_revision(settings: Settings) -> tuple[str | None, str]:
    """``(current, head)`` schema revisions of ``settings.db_url`` (``etki db current``),
    read through a read-only engine that creates nothing; ``current`` None when the
    database is not stamped."""
    from etki.store.db import make_engine
    from etki.store.migrate import current_revision, head_revision

    engine = make_engine(settings.db_url, read_only=True)
    try:
        return current_revision(engine), head_revision()
    finally:
        engine.dispose()
