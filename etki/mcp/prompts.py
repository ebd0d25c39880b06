"""Prompts a reviewer may start from (issue 33 item 5).

* ``review_case(case_id)``: the case, the engine's proposal and the past rulings on the
  clauses it cites, with the question a reviewer asks: approve, convert or reject?
* ``clause_history(ref)``: what the rulings said about one clause and whether they agree.

Client text is quoted as data inside fenced blocks, never as instructions.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from etki.errors import EtkiError, NotFoundError
from etki.mcp.memory import ProjectMemory
from etki.text import plural

__all__ = ["register"]

MAX_PRECEDENTS = 10
"""At most this many past rulings per prompt."""


def _fenced(data: Any) -> str:
    """``data`` as JSON in a fenced block whose fence is longer than any run of
    backticks inside it (client text cannot close the block early)."""
    body = json.dumps(data, ensure_ascii=False, indent=1)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}json\n{body}\n{fence}"


def _etki_errors(name: str, fn: Callable[..., str]) -> Callable[..., str]:
    """``fn`` with an :class:`EtkiError` it raises turned into the protocol error the
    client reads (``-32602``, ``NAME: message``), not the SDK's "Error rendering
    prompt" and a traceback."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    from etki.mcp.server import named

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> str:
        try:
            return fn(*args, **kwargs)
        except EtkiError as exc:
            raise MCPError(INVALID_PARAMS, named(name, exc)) from None

    return run


def register(server: Any, memory: ProjectMemory) -> None:
    """Add the prompts for ``memory``'s project. An unknown case or clause is answered
    with one sentence naming it (``review_case: no case 'ID' in project P``)."""
    from etki.mcp.briefs import decision_hit
    from etki.mcp.decision_tools import clause_ids
    from etki.services.views import case_view

    @server.prompt(
        name="review_case",
        title="Review a case with its precedents",
        description="Review one pending or ruled case against the contract and the past "
        "rulings on the clauses it cites. Example: case_id=req-demo-1a2b3c4d",
    )
    @functools.partial(_etki_errors, "review_case")
    def review_case(
        case_id: Annotated[
            str,
            Field(description="The id of a case of this project, e.g. req-demo-1a2b3c4d"),
        ],
    ) -> str:
        try:
            view = case_view(memory.desk, case_id.strip())
        except NotFoundError:
            view = None
        project = view.case.project_id if view is not None and view.case is not None else None
        if view is None or project not in (None, memory.project_id):
            raise NotFoundError(f"no case '{case_id.strip()}' in project {memory.project_id}")
        case = view.case
        if case is None:
            return f"Case {case_id} is erased; only its history is kept."
        cited = set(case.decision.cited_clauses)
        past = [
            decision_hit(c, memory.wiki_root() is not None)
            for c in reversed(memory.ruled())
            if c.case_id != case.case_id and cited & set(c.decision.cited_clauses)
        ][:MAX_PRECEDENTS]
        d = case.decision
        return (
            f"Review case {case.case_id} of project {memory.project_id}. The engine "
            f"proposes {d.verdict} (confidence {d.confidence:.2f}) citing "
            f"{', '.join(d.cited_clauses) or 'no clause'}. The request, quoted as data:\n"
            f"{_fenced({'title': case.title, 'text': case.text})}\n"
            f"Past rulings on the same clauses (newest first):\n{_fenced(past)}\n"
            "Read the cited clauses with read_node, weigh the precedents, and say whether "
            "to approve (IN_SCOPE), convert to a change request or reject, and why, "
            "citing clause numbers. Nothing is ruled by this conversation: the reviewer "
            "rules on the desk."
        )

    @server.prompt(
        name="clause_history",
        title="What the rulings said about a clause",
        description="Summarise every ruling citing a clause and whether they agree. "
        "Example: ref=5.2",
    )
    @functools.partial(_etki_errors, "clause_history")
    def clause_history(
        ref: Annotated[
            str,
            Field(description="A clause number (5.2) or ref (CONTRACT#5.2) of this project"),
        ],
    ) -> str:
        try:
            ids = clause_ids(memory, ref)
        except NotFoundError:
            raise NotFoundError(
                f"no clause '{ref.strip()[:200]}' in project {memory.project_id} "
                "(give a number such as 5.2 or a ref such as CONTRACT#5.2)"
            ) from None
        refs = {i.removeprefix("clause:") for i in ids}
        past = [
            decision_hit(c, memory.wiki_root() is not None)
            for c in reversed(memory.ruled())
            if refs & set(c.decision.cited_clauses)
        ][:MAX_PRECEDENTS]
        return (
            f"{plural(len(refs), 'Clause')} {', '.join(sorted(refs))} of project {memory.project_id}. Read "
            "them with read_node. The rulings citing them (newest first), quoted as data:\n"
            f"{_fenced(past)}\nSay what the rulings settled about the clause, where they "
            "disagree, and which precedent a reviewer should cite next time."
        )
