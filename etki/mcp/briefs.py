"""The short forms the MCP tools return (one job: a decision or a check of an argument in
the words every tool uses).

A decision hit's ``id`` is ``decision:{case_id}`` (read it with ``read_node`` or
``show_case``); its ``page`` the wiki path of its decision page (read it with
``read_page`` or as the resource ``etki://PROJECT/decisions/...``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from etki.domain import CaseRecord
from etki.errors import InputError
from etki.retrieval.snippets import clip, clip_text, ruling_brief

__all__ = ["DECISION_SCHEMA", "EtkiTool", "check_since", "check_text", "decision_hit"]

_SINCE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?$")

DECISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "case_id": {"type": "string"},
        "title": {"type": "string"},
        "request": {"type": "string"},
        "verdict": {"type": "string"},
        "ruling": {"type": "string"},
        "reviewer": {"type": "string"},
        "ruled_at": {"type": "string"},
        "reason": {"type": "string"},
        "override": {"type": "boolean"},
        "cited_clauses": {"type": "array", "items": {"type": "string"}},
        "page": {"type": ["string", "null"]},
    },
    "required": ["id", "case_id", "verdict", "ruling", "reviewer", "ruled_at", "reason"],
}
"""The JSON schema of one :func:`decision_hit`."""


def decision_hit(case: CaseRecord, wiki_on: bool = True) -> dict[str, Any]:
    """A ruled case as a hit: ``id`` (``decision:{case_id}``), ``case_id``, ``title``,
    ``request`` (its text, its lines kept, clipped to 400 characters), the :func:`ruling_brief` fields
    (``verdict ruling reviewer ruled_at reason override``), ``cited_clauses`` (refs) and
    ``page`` (its wiki decision page, None when the wiki is off). Raises
    ``ValueError`` for a pending case."""
    from etki.wiki.paths import decision_path

    r = case.ruling
    if r is None:
        raise ValueError(f"{case.case_id} is not ruled")
    brief = ruling_brief(
        {
            "verdict": r.verdict,
            "ruling": r.ruling,
            "reviewer": r.reviewer,
            "ruled_at": r.ruled_at,
            "reason": r.reason,
        }
    )
    return {
        "id": f"decision:{case.case_id}",
        "case_id": case.case_id,
        "title": clip(case.title, 200),
        "request": clip_text(case.text, 400),
        **brief,
        "cited_clauses": list(case.decision.cited_clauses),
        "page": decision_path(case) if wiki_on else None,
    }


def check_text(tool: str, name: str, value: str) -> str:
    """``value`` stripped; raises :class:`InputError` ``TOOL: NAME is empty`` when
    nothing is left (for the search tools: ``query is empty``)."""
    if not value.strip():
        raise InputError(f"{tool}: {name} is empty")
    return value.strip()


def check_since(tool: str, since: str | None) -> str | None:
    """``since`` as given (an ISO-8601 date ``2026-11-01`` or UTC time
    ``2026-11-01T09:00:00Z``), or None; raises :class:`InputError` naming the argument
    and the accepted forms for anything else, an impossible date or time
    (``2026-13-45``, ``T25:00``) too."""
    from datetime import datetime

    if since is None or not since.strip():
        return None
    value = since.strip()
    try:
        if not _SINCE.match(value):
            raise ValueError(value)
        datetime.fromisoformat(value.removesuffix("Z"))  # 2026-13-45, 25:00 are no dates
    except ValueError:
        raise InputError(
            f"{tool}: argument 'since' must be a real date such as 2026-11-01 "
            "or a UTC time such as 2026-11-01T09:00:00Z"
        ) from None
    return value


class EtkiTool:
    """One tool as registered: ``name``, ``title``, ``description`` (with an example),
    the function, and the ``output`` JSON schema (an object schema: its ``properties``
    and ``required`` keys)."""

    def __init__(
        self,
        name: str,
        title: str,
        description: str,
        fn: Callable[..., Any],
        output: dict[str, Any],
    ) -> None:
        self.name, self.title, self.description = name, title, description
        self.fn, self.output = fn, output
