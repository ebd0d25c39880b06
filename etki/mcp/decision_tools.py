"""The decision-memory tools (issue 33 item 3), over every ruled case, agreed ones too:

* ``decisions(query, verdict?, ruling?, since?, limit?)``: ruled cases by relevance;
* ``precedents_for_clause(ref)``: what past rulings say about a clause (``5.2`` alone,
  ``CONTRACT#5.2`` or ``clause:CONTRACT#5.2``);
* ``disputed_clauses()``: clauses whose rulings disagree, with their history;
* ``recent_decisions(since?, limit?)``: the newest rulings first;
* ``triage(text)``: what the engine would say of a text, as ``etki triage`` (nothing is
  stored).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from etki.errors import NotFoundError, clip
from etki.mcp.briefs import DECISION_SCHEMA, EtkiTool, check_since, check_text, decision_hit
from etki.mcp.memory import CLAUSE_NUMBER, ProjectMemory
from etki.text import printable

__all__ = ["clause_ids", "tools"]

Verdict = Literal["IN_SCOPE", "CHANGE_REQUEST", "REJECT"]

MAX_LISTED = 50
"""At most this many decisions per clause, and history entries per disputed clause, are
listed (``decision_count`` and ``history_count`` count all)."""

MAX_TRIAGE_CHARS = 20000
"""``triage`` reads a text up to this many characters (a request, not a document)."""


def clause_ids(memory: ProjectMemory, ref: str) -> list[str]:
    """Clause node ids for ``ref``: ``clause:C#5.2``, ``C#5.2`` or a number alone
    (every contract's clause of that number). Raises ``NotFoundError`` naming the ref."""
    graph = memory.port().graph
    ref = ref.strip()
    candidates = [ref if ref.startswith("clause:") else f"clause:{ref}"]
    found = [c for c in candidates if graph.node(c) is not None]
    if not found and CLAUSE_NUMBER.fullmatch(ref.removeprefix("clause:").strip()):
        number = ref.removeprefix("clause:").strip()
        found = [n.id for n in graph.nodes_of("clause") if str(n.get("number") or "") == number]
    if not found:
        raise NotFoundError(
            f"precedents_for_clause: no clause '{ref[:200]}' in project {memory.project_id} "
            "(give a number such as 5.2 or a ref such as CONTRACT#5.2)"
        )
    return found


def tools(memory: ProjectMemory) -> list[EtkiTool]:
    """The decision-memory tools over ``memory``."""

    def wiki_on() -> bool:
        return memory.wiki_root() is not None

    def decisions(
        query: Annotated[str, Field(max_length=2000)],
        verdict: Verdict | None = None,
        ruling: Verdict | None = None,
        since: Annotated[str | None, Field(max_length=40)] = None,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
    ) -> dict[str, Any]:
        """Ruled cases by relevance to ``query``. Relevance floor: a hit shares at least
        one content word with the query (after the stop words of every project language
        and case/accent folding; an acronym counts as its name written as a phrase),
        i.e. coordination level 1 (Salton and McGill, *Introduction to Modern
        Information Retrieval*, 1983: a document matching no query term is not
        retrieved); a query sharing none with any decision gets no hit and a ``note``
        saying so, never the best of unrelated decisions."""
        query = check_text("decisions", "query", query)
        after = check_since("decisions", since)
        by_id = {c.case_id: c for c in memory.ruled()}
        hits = []
        for doc in memory.decision_ranker().rank(query, len(by_id) or 1):
            case = by_id[doc.id]
            r = case.ruling
            assert r is not None
            if verdict and r.verdict != verdict or ruling and r.ruling != ruling:
                continue
            if after and r.ruled_at < after:
                continue
            hits.append({**decision_hit(case, wiki_on()), "score": doc.score})
            if len(hits) >= limit:
                break
        out: dict[str, Any] = {"decisions": hits, "ruled_cases": len(by_id)}
        if not hits:
            said = printable(clip(query, 80), multiline=False)
            out["note"] = (
                f"no decision matches '{said}' (a hit shares at least one content word "
                "with the query)"
                + (" under the filters given" if verdict or ruling or after else "")
            )
        return out

    def precedents_for_clause(ref: Annotated[str, Field(max_length=300)]) -> dict[str, Any]:
        ref = check_text("precedents_for_clause", "ref", ref)
        ids = clause_ids(memory, ref)
        memo = memory.desk.clause_memory(memory.project_id)
        graph = memory.port().graph
        ruled = memory.ruled()
        clauses = []
        for nid in ids:
            cref = nid.removeprefix("clause:")
            m = memo.get(cref)
            citing = [c for c in ruled if cref in c.decision.cited_clauses]
            # the precedents are the overrides the store counts for the clause: those
            # whose ruling is about it (etki.memory.clause_memory), not every override
            # that cites it among others (a trial listed one and counted none)
            about = [cid for cid, _, refs, ovr in (m.counted if m else ()) if ovr and cref in refs]
            clauses.append(
                {
                    "id": nid,
                    "title": graph.node(nid).title,
                    "precedent_count": len(about),
                    "disputed": bool(m and m.disputed),
                    "resolved": bool(m and m.resolved),
                    "decision_count": len(citing),
                    "decisions": [
                        decision_hit(c, wiki_on()) for c in list(reversed(citing))[:MAX_LISTED]
                    ],
                    "precedents": [f"precedent:{cid}" for cid in about][:MAX_LISTED],
                    "overrides_citing": [
                        f"precedent:{c.case_id}"
                        for c in citing
                        if c.ruling is not None and c.ruling.is_override and c.case_id not in about
                    ][:MAX_LISTED],
                }
            )
        return {"clauses": clauses}

    def disputed_clauses() -> dict[str, Any]:
        graph = memory.port().graph
        out = []
        for d in memory.desk.disputed(memory.project_id):
            node = graph.node(f"clause:{d.ref}")
            out.append(
                {
                    "id": f"clause:{d.ref}",
                    "title": node.title if node is not None else "",
                    "rulings": list(d.rulings),
                    "resolved": d.resolved,
                    "history_count": len(d.history),
                    "history": [
                        {"id": f"decision:{cid}", "ruling": rl, "reviewer": who, "ruled_at": at}
                        for cid, rl, who, at in d.history[-MAX_LISTED:]
                    ],
                }
            )
        return {"disputed": out[:MAX_LISTED], "disputed_count": len(out)}

    def recent_decisions(
        since: Annotated[str | None, Field(max_length=40)] = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> dict[str, Any]:
        after = check_since("recent_decisions", since)
        ruled = [c for c in memory.ruled() if c.ruling is not None]
        ruled.sort(key=lambda c: (c.ruling.ruled_at if c.ruling else "", c.case_id), reverse=True)
        if after:
            ruled = [c for c in ruled if c.ruling is not None and c.ruling.ruled_at >= after]
        return {"decisions": [decision_hit(c, wiki_on()) for c in ruled[:limit]]}

    def triage(text: Annotated[str, Field(max_length=MAX_TRIAGE_CHARS)]) -> dict[str, Any]:
        from etki.triage import case_id_for

        text = check_text("triage", "text", text)
        pid = memory.project_id
        decision = memory.desk.triage_text(pid, case_id_for(pid, "adhoc\0" + text), text)
        # nothing is stored, so the case id the engine works under names no case:
        # left out, so no id in a result dangles (issue 33 trial)
        proposal = {k: v for k, v in decision.to_dict().items() if k != "case_id"}
        return {"stored": False, "decision": proposal}

    hits = {"type": "array", "items": DECISION_SCHEMA}
    return [
        EtkiTool(
            "decisions",
            "Search the ruled decisions",
            "Search every ruled request of the project (agreed rulings and overrides) by "
            "relevance to the query (a hit shares at least one content word with it; "
            "none shared: no hit and a note 'no decision matches ...'); filter by the "
            "engine's verdict, the reviewer's "
            "ruling or a date. Each hit has verdict, ruling, reviewer, date, reason and "
            'cited clauses. Example: {"query": "mobile app", "ruling": '
            '"CHANGE_REQUEST", "since": "2026-11-01"}',
            decisions,
            {
                "properties": {
                    "decisions": hits,
                    "ruled_cases": {"type": "integer"},
                    "note": {"type": "string"},
                },
                "required": ["decisions", "ruled_cases"],
            },
        ),
        EtkiTool(
            "precedents_for_clause",
            "What rulings say about a clause",
            "Every ruled request citing a clause, newest first, its precedents (overrides "
            "whose ruling is about the clause, as many as precedent_count), other overrides "
            "that merely cite it (overrides_citing) and whether its rulings disagree. A number alone finds that clause in every "
            'contract. Example: {"ref": "5.2"}',
            precedents_for_clause,
            {
                "properties": {"clauses": {"type": "array", "items": {"type": "object"}}},
                "required": ["clauses"],
            },
        ),
        EtkiTool(
            "disputed_clauses",
            "Disputed clauses",
            "Clauses whose rulings disagree, with every ruling about them and whether the "
            "PMO resolved the dispute. Example: {}",
            disputed_clauses,
            {
                "properties": {"disputed": {"type": "array", "items": {"type": "object"}}},
                "required": ["disputed"],
            },
        ),
        EtkiTool(
            "recent_decisions",
            "Recent decisions",
            "The newest rulings first, optionally since a date. Example: "
            '{"since": "2026-11-01", "limit": 10}',
            recent_decisions,
            {"properties": {"decisions": hits}, "required": ["decisions"]},
        ),
        EtkiTool(
            "triage",
            "Triage a text (stores nothing)",
            "What the engine would propose for a request text, as `etki triage --json`: "
            "verdict, confidence, cited clauses, evidence. Nothing is stored "
            "(stored: false), so the answer has no case id: there is no case to read "
            "with show_case. Example: "
            '{"text": "Please also build an iOS app for field staff."}',
            triage,
            {
                "properties": {"stored": {"type": "boolean"}, "decision": {"type": "object"}},
                "required": ["stored", "decision"],
            },
        ),
    ]
