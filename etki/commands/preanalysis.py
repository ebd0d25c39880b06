"""``etki preanalyse``: ask the configured chat model for a developer pre-analysis.

    etki preanalyse CASE_ID [--json]           write a new pre-analysis of one case
    etki preanalyse --project ID --missing     one for every case of the project that
                                               has none yet (stops once the model
                                               looks down)

Needs ``ETKI_LLM_BASE_URL`` and ``ETKI_LLM_MODEL`` (exit 2 without them: nothing is
called). The pre-analysis is saved whatever the model answers (``status`` ``error``
with the reason when it answered nothing usable: exit 1, the endpoint is not bad
input), shown on the case's decision page and in the desk's detail pane, and never an
input to the verdict (:mod:`etki.preanalysis`). Every line is model text printed
literally (:mod:`etki.console`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from etki.console import echo, echo_lines, emit_json
from etki.errors import InputError

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import Preanalysis

__all__ = ["preanalysis_dict", "preanalysis_lines", "register"]

_TITLES = (
    ("affected_modules", "modules"),
    ("approach", "approach"),
    ("open_questions", "question"),
)


def preanalysis_lines(p: Preanalysis | None) -> list[str]:
    """A saved pre-analysis as lines for the terminal (model text: the caller prints
    it through :mod:`etki.console`)."""
    from etki.preanalysis import NO_MODEL

    if p is None:
        return [f"pre-analysis: none ({NO_MODEL}, or none asked for)"]
    head = f"pre-analysis by {p.model} ({p.prompt_version}) at {p.created_at}"
    if p.status != "ok" or p.body is None:
        return [head, f"  failed: {p.error or 'no reason given'}"]
    b = p.body
    out = [head + " (beside the verdict, never part of it)"]
    for key, label in _TITLES:
        out += [f"  {label:<10}{c.text}  [{c.node}]" for c in getattr(b, key)]
    if b.effort is not None:
        out.append(f"  {'effort':<10}{b.effort.text}  [{b.effort.node}]")
    if b.dropped:
        out.append(
            "  dropped   claims naming nodes not in the context block: "
            + ", ".join(f"{s} {n}" for s, n in b.dropped)
        )
    return out


def preanalysis_dict(p: Preanalysis | None) -> dict[str, Any] | None:
    """A saved pre-analysis as JSON-ready data (None stays None)."""
    if p is None:
        return None
    return {
        "case_id": p.case_id,
        "model": p.model,
        "prompt_version": p.prompt_version,
        "status": p.status,
        "created_at": p.created_at,
        "error": p.error,
        "body": p.body.to_dict() if p.body is not None else None,
    }


def _preanalyse(args: argparse.Namespace, settings: Settings) -> int:
    from etki.services import Desk

    desk = Desk.open(settings, create=False)
    if args.missing:
        if not args.project or args.case_id:
            raise InputError("preanalyse --missing: give --project ID and no case id")
        run = desk.preanalyse_missing(args.project)
        echo(run.line(), multiline=False)
        return 1 if run.failed or run.skipped else 0
    if not args.case_id:
        raise InputError("preanalyse: give a case id (or --project ID --missing)")
    args.case_id = desk.case_id_for(args.case_id)
    saved, wiki_error = desk.preanalyse(args.case_id)
    if args.json:
        emit_json(preanalysis_dict(saved), indent=1, sort_keys=True)
    else:
        echo_lines(preanalysis_lines(saved))
    if wiki_error:
        echo(f"warning: {wiki_error}", file=sys.stderr, multiline=False)
    return 0 if saved.status == "ok" else 1


def register(sub: Any) -> None:
    """Add ``preanalyse`` to the ``etki`` parser."""
    p = sub.add_parser(
        "preanalyse", help="ask the chat model for a developer pre-analysis of a case"
    )
    p.add_argument("case_id", nargs="?")
    p.add_argument("--project", help="with --missing: the project")
    p.add_argument("--missing", action="store_true", help="every case of --project without one yet")
    p.add_argument("--json", action="store_true", help="the saved pre-analysis as JSON")
    p.set_defaults(handler=_preanalyse)
