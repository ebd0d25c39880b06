"""The search tools (issue 33 items 1 and 4): ``graph_query`` over the knowledge graph and
every ruled decision, ``wiki_search`` over the decision wiki. Both rank by relevance
over the question's content words (:mod:`etki.retrieval.wikirank` for decisions and
wiki pages, the port's BM25 or embeddings for graph nodes), and every hit carries text
(:mod:`etki.retrieval.snippets`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from etki.mcp.briefs import DECISION_SCHEMA, EtkiTool, check_text, decision_hit
from etki.mcp.memory import ProjectMemory
from etki.retrieval.snippets import best_sentence, clip, matched_sentences, node_snippet
from etki.retrieval.wikirank import RelevanceRanker, content_terms
from etki.wiki.excerpt import unescape
from etki.wiki.sections import find_section, is_clause_facts, page_sections, split_address

__all__ = ["MAX_DROPPED_SHOWN", "graph_answer", "packed_line", "tools"]

MAX_DROPPED_SHOWN = 50
"""At most this many dropped nodes are listed by id in a ``graph_query`` answer (all are
counted)."""

DECISIONS_IN_GRAPH_ANSWER = 5
"""``graph_query`` adds the this-many most relevant ruled decisions (agreed ones too)
that are not already among its nodes."""

_NODE = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "type": {"type": "string"},
        "title": {"type": "string"},
        "score": {"type": "number"},
        "matched": {"type": "array", "items": {"type": "string"}},
        "opening": {"type": "string"},
        "summary": {"type": "string"},
        "verdict": {"type": ["string", "null"]},
        "ruling": {"type": ["string", "null"]},
        "reviewer": {"type": ["string", "null"]},
        "ruled_at": {"type": ["string", "null"]},
        "reason": {"type": "string"},
        "override": {"type": "boolean"},
        "request": {"type": "string"},
    },
    "required": ["id", "type", "title", "score"],
}

_IDS = {"type": "array", "items": {"type": "string"}}

_SUBGRAPH = {
    "type": "object",
    "properties": {
        "packing": {"type": "string"},
        "intent": {"type": "string"},
        "budget_tokens": {"type": "integer"},
        "tokens_used": {"type": "integer"},
        "token_method": {"type": "string"},
        "seeds": _IDS,
        "text": {"type": "string"},
        "edges": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "source": {"type": "string"},
                    "target": {"type": "string"},
                    "type": {"type": "string"},
                },
                "required": ["source", "target", "type"],
            },
        },
        "dropped_count": {"type": "integer"},
        "dropped_by_type": {"type": "object", "additionalProperties": {"type": "integer"}},
        "dropped": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "reason": {"type": "string"}},
                "required": ["id", "reason"],
            },
        },
    },
    "required": ["packing", "budget_tokens", "tokens_used", "seeds", "text", "edges"],
}
"""``graph_query``'s ``subgraph`` (strategy ``expand``): see :func:`graph_answer`."""

GRAPH_OUTPUT = {
    "properties": {
        "strategy": {"type": "string"},
        "reason": {"type": "string"},
        "intent": {"type": "string"},
        "scoring": {"type": "string"},
        "nodes": {"type": "array", "items": _NODE},
        "decisions": {"type": "array", "items": DECISION_SCHEMA},
        "subgraph": _SUBGRAPH,
        "streams": {"type": "object", "additionalProperties": _IDS},
        "tool_call": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "arguments": {"type": "string"}},
            "required": ["name", "arguments"],
        },
        "attempts": {"type": "integer"},
        "fallbacks": {"type": "array"},
    },
    "required": ["strategy", "reason", "intent", "scoring", "nodes", "decisions", "fallbacks"],
}

WIKI_OUTPUT = {
    "properties": {
        "wiki": {"type": "string", "enum": ["on", "off", "not built"]},
        "hits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "title": {"type": "string"},
                    "score": {"type": "number"},
                    "line": {"type": "integer"},
                    "snippet": {"type": "string"},
                    "matched_terms": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["path", "title", "score", "line", "snippet"],
            },
        },
    },
    "required": ["wiki", "hits"],
}


def packed_line(node: Any, context: str, matched: list[str]) -> str:
    """A node's line of ``expand``'s packed text: its context line's head (``[type] id:
    title``), then its ``matched`` sentences (those holding the question's words), then
    its opening (the rest of its text), cut to ``len(context)`` characters so it costs
    no more tokens than the context line ``expand`` budgeted
    (:func:`etki.retrieval.expand.count_tokens`: ``ceil(len / 4)``). ``context`` alone
    when nothing matched."""
    if not matched:
        return context
    head = f"[{node.type}] {node.id}: {' '.join(node.title.split())}"
    rest = " ".join(node.text.split())
    for sentence in matched:
        rest = rest.replace(" ".join(sentence.split()), "", 1)
    text = f"{head} — {' '.join(' '.join(m.split()) for m in matched)} … {' '.join(rest.split())}"
    text = text.rstrip(" …")
    if len(text) > len(context):
        text = text[: len(context) - 1].rstrip() + "…"
    return text


def _packed_text(port: Any, sub: Any, terms: tuple[str, ...], languages: Any) -> str:
    """The text ``expand`` budgeted, in admission order: each admitted clause or chunk
    with its matched sentences first, then its opening (:func:`packed_line`; the
    first 600 characters alone left a clause's answering sentence out, a trial of
    issue 33 found), any other node its context line; never more characters, so never
    more tokens, than the ``tokens_used`` counted."""
    graph = port.graph
    idf = port.scorer.index.idf_of
    lines = []
    for n in sub.nodes:
        node, context = graph.node(n.id), graph.context(n.id)
        matched: list[str] = []
        if node is not None and node.type in ("clause", "chunk") and terms:
            matched = matched_sentences(node.text, terms, languages, weights=idf)
        lines.append(packed_line(node, context, matched) if node is not None else context)
    return "\n".join(lines)


def graph_answer(
    result: Any, memory: ProjectMemory, question: str, numbered: list[str] | None = None
) -> dict[str, Any]:
    """The JSON answer of ``graph_query`` for a :class:`QueryResult`: every node with
    its text (:func:`node_snippet`; a decision or precedent node with its ruling, as
    :func:`decision_hit` gives it), the clauses the question names by number first, the
    most relevant ruled decisions not among the nodes, and for ``expand`` the packed
    text."""
    port = memory.port()
    terms = RelevanceRanker([], memory.languages).terms(question)
    nodes: list[dict[str, Any]] = []
    seen: set[str] = set()
    for nid in numbered or ():
        node = port.graph.node(nid)
        nodes.append({"id": nid, "type": "clause", "title": node.title, "score": 1.0})
        seen.add(nid)
    nodes += [
        {"id": n.id, "type": n.type, "title": n.title, "score": n.score}
        for n in result.nodes
        if n.id not in seen
    ]
    idf = port.scorer.index.idf_of  # the graph's BM25 IDF: rare words choose the sentence
    for hit in nodes:
        node = port.graph.node(hit["id"])
        if node is not None:
            hit.update(node_snippet(node, terms, memory.languages, idf))
    by_id = {c.case_id: c for c in memory.ruled()}
    wiki_on = memory.wiki_root() is not None
    # a ruled case among the nodes carries its ruling there and is not listed again
    # below (an assistant read each decision twice, a trial of issue 33 found)
    in_nodes: set[str] = set()
    for hit in nodes:
        kind, _, case_id = hit["id"].partition(":")
        if kind in ("decision", "precedent") and case_id in by_id:
            in_nodes.add(case_id)
            ruling = decision_hit(by_id[case_id], wiki_on)
            hit.update({k: v for k, v in ruling.items() if k not in ("id", "title")})
    ranked = [
        d
        for d in memory.decision_ranker().rank(question, DECISIONS_IN_GRAPH_ANSWER + len(in_nodes))
        if d.id not in in_nodes
    ][:DECISIONS_IN_GRAPH_ANSWER]
    out: dict[str, Any] = {
        "strategy": result.strategy,
        "reason": result.reason
        + (f"; clause number named: {', '.join(numbered)}" if numbered else ""),
        "intent": result.intent,
        "scoring": result.scoring,
        "nodes": nodes,
        "decisions": [{**decision_hit(by_id[d.id], wiki_on), "score": d.score} for d in ranked],
        "fallbacks": list(result.fallbacks),
    }
    if result.tool_call is not None:
        out["tool_call"] = {"name": result.tool_call[0], "arguments": result.tool_call[1]}
        out["attempts"] = result.attempts
    sub = result.subgraph
    if sub is not None:
        by_type: dict[str, int] = {}
        for d in sub.dropped:
            by_type[d.type] = by_type.get(d.type, 0) + 1
        out["subgraph"] = {
            "packing": sub.packing,
            "intent": sub.intent,
            "budget_tokens": sub.budget_tokens,
            "tokens_used": sub.tokens_used,
            "token_method": sub.token_method,
            "seeds": list(sub.seeds),
            "text": _packed_text(port, sub, terms, memory.languages),
            "edges": [{"source": e.source, "target": e.target, "type": e.type} for e in sub.edges],
            "dropped_count": len(sub.dropped),
            "dropped_by_type": by_type,
            "dropped": [{"id": d.id, "reason": d.reason} for d in sub.dropped[:MAX_DROPPED_SHOWN]],
        }
    if result.streams:
        out["streams"] = {name: list(ids) for name, ids in result.streams}
    return out


def _best_line(text: str, terms: tuple[str, ...], languages: tuple[str, ...]) -> tuple[int, str]:
    """(1-based line, clipped text) of the line of ``text`` holding the most ``terms``
    (the first such), else the first non-empty line after the title. The YAML front
    matter is skipped (metadata, not what the page says; the ranking leaves it out too,
    :func:`~etki.retrieval.wikirank.page_fields`)."""
    from etki.retrieval.wikirank import general_stopwords

    stop = frozenset().union(*(general_stopwords(x) for x in languages))
    wanted = set(terms)
    lines = list(enumerate(text.splitlines(), start=1))
    if lines and lines[0][1].strip() == "---":
        end = next((k for k, (_, ln) in enumerate(lines[1:], start=1) if ln.strip() == "---"), 0)
        lines = lines[end + 1 :] if end else lines
    best = (0, 0, "")
    for i, line in lines:
        if not line.strip():
            continue
        held = len(wanted & {t for lang in languages for t in content_terms(line, lang, stop)})
        if held > best[0]:
            best = (held, i, line)
    if best[0] == 0:
        for i, line in lines:
            if line.strip() and not line.startswith("#"):
                return i, clip(line, SNIPPET_CHARS)
        return 1, ""
    return best[1], clip(best[2], SNIPPET_CHARS)


SNIPPET_CHARS = 300
"""A wiki hit's snippet is cut to this many characters."""


def _hit_line(
    root: Any, address: str, terms: tuple[str, ...], ranker: RelevanceRanker
) -> tuple[int, str]:
    """(1-based page line, snippet) of a wiki hit (:func:`_page_line`), the snippet as
    plain text: the wiki's markdown escapes undone (``\\[`` -> ``[``, ``Cloud\\.gov``
    -> ``Cloud.gov``), as the client wrote it."""
    line, snippet = _page_line(root, address, terms, ranker)
    return line, unescape(snippet)


def _page_line(
    root: Any, address: str, terms: tuple[str, ...], ranker: RelevanceRanker
) -> tuple[int, str]:
    """(1-based page line, snippet) of a wiki hit. A contract page's clause section
    (``path#anchor``): its sentence holding the rarest of the question's words
    (:func:`best_sentence`, weighted by the ranker's IDF), the heading line left out
    (the hit's title shows it). Any other page, or a contract page's head: its best line
    (:func:`_best_line`), a line longer than :data:`SNIPPET_CHARS` giving its sentence
    that weighs most (:func:`matched_sentences`)."""
    rel, anchor = split_address(address)
    text = (root / rel).read_text(encoding="utf-8", errors="replace")
    idf = ranker.index.idf_of
    if anchor:
        section = find_section(rel, text, anchor)
        if section is not None:
            lines = section.text.split("\n")
            found = best_sentence(lines, terms, ranker.languages, idf)
            if found is not None:
                return section.start + found[0] + 1, clip(found[1], SNIPPET_CHARS)
            # no sentence holds the question's words (or a clause number was asked):
            # the clause's first line of text, not its facts line (kind, precedents)
            body = next(
                (i for i, ln in enumerate(lines) if i and ln.strip() and not is_clause_facts(ln)),
                0,
            )
            return section.start + body + 1, clip(lines[body], SNIPPET_CHARS)
    elif (split := page_sections(rel, text)) is not None:
        text = split[0]
    line, snippet = _best_line(text, terms, ranker.languages)
    lines = text.splitlines()
    full = lines[line - 1] if 0 < line <= len(lines) else ""
    if len(" ".join(full.split())) > SNIPPET_CHARS:
        sentences = matched_sentences(full, terms, ranker.languages, 1, idf)
        if sentences:
            snippet = clip(sentences[0], SNIPPET_CHARS)
    return line, snippet


def tools(memory: ProjectMemory) -> list[EtkiTool]:
    """``graph_query`` and ``wiki_search`` over ``memory``."""

    def graph_query(
        question: Annotated[str, Field(max_length=4000)],
        strategy: Literal["auto", "find_k_nodes", "expand", "nl_query", "typed_streams"]
        | None = None,
        k: Annotated[int, Field(ge=1, le=50)] = 10,
        budget_tokens: Annotated[int, Field(ge=100, le=8000)] = 1500,
    ) -> dict[str, Any]:
        question = check_text("graph_query", "question", question)
        result = memory.port().query(question, k=k, budget_tokens=budget_tokens, strategy=strategy)
        return graph_answer(result, memory, question, memory.clauses_numbered(question))

    def wiki_search(
        query: Annotated[str, Field(max_length=1000)],
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> dict[str, Any]:
        query = check_text("wiki_search", "query", query)
        if memory.wiki_root() is None:
            return {"hits": [], "wiki": "off"}
        found = memory.wiki_ranker()
        if found is None:
            return {"hits": [], "wiki": "not built"}
        ranker, titles = found
        root = memory.wiki_root()
        assert root is not None
        hits = []
        # the snippet is chosen on the question's own words: an acronym's spelled-out
        # name (which the ranking adds) would pick the sentence defining the acronym
        own = {t for lang in ranker.languages for t in content_terms(query, lang, ranker.stop)}
        named = ranker.name_terms(query)  # an acronym's name, matched as one phrase term
        # a clause number alone ("5.2") names that clause's section first, then its
        # sub-clauses, as `etki wiki search` and Hafıza rank it (one rule, clausequery)
        numbered = memory.wiki_numbered(query)
        for address in numbered[:limit]:
            line, snippet = _hit_line(root, address, (), ranker)
            hits.append(
                {
                    "path": address,
                    "title": titles.get(address, address),
                    "score": 1.0,
                    "line": line,
                    "snippet": snippet,
                    "matched_terms": [],
                }
            )
        # one hit per page, and one per ruled case: its decision, precedent and
        # change-request pages say the same ruling, so the best-ranked one stands for
        # them (it links the others); a trial saw one case fill three of five slots
        cases = memory.wiki_cases()
        seen = set(numbered)
        for doc in ranker.rank(query, 3 * limit + len(numbered)):
            if len(hits) >= limit:
                break
            case = cases.get(doc.id)
            if doc.id in seen or (case is not None and case in seen):
                continue
            seen.update((doc.id, case) if case is not None else (doc.id,))
            said = (tuple(t for t in doc.terms if t in own) or doc.terms) + named
            line, snippet = _hit_line(root, doc.id, said, ranker)
            hits.append(
                {
                    "path": doc.id,
                    "title": titles.get(doc.id, doc.id),
                    "score": doc.score,
                    "line": line,
                    "snippet": snippet,
                    "matched_terms": list(doc.terms),
                }
            )
        return {"hits": hits, "wiki": "on"}

    return [
        EtkiTool(
            "graph_query",
            "Search the contract, modules and decisions",
            "Search the project's knowledge graph (contract clauses, code modules, work "
            "items, and every ruled case as a node: type 'precedent' for an override, "
            "'decision' for an agreed ruling) and every ruled decision, ranked by relevance to the "
            "question's content words; a clause number alone ('5.2') finds that clause. "
            "Each node comes with its text (matched sentences and opening lines of a "
            "clause, a module's summary, a precedent's or decision's ruling), each decision with "
            "verdict, ruling, reviewer, date and reason; read any id further with "
            "read_node. strategy: auto (default), find_k_nodes, expand (a token-budgeted "
            "subgraph whose packed text is returned), nl_query or typed_streams. "
            'Example: {"question": "who hosts the system?", "k": 5}',
            graph_query,
            GRAPH_OUTPUT,
        ),
        EtkiTool(
            "wiki_search",
            "Search the decision wiki",
            "Search the project's decision wiki (decision, precedent, change-request, "
            "contract and module pages) by relevance to the query's content words "
            "(case- and accent-insensitive, Turkish and German folding); a contract "
            "page is searched clause by clause, each clause a hit of its own "
            "(path#anchor, titled with the clause's ref and title); each hit has "
            "its path, title, best line and the terms it holds; read a page or a "
            "clause section with "
            'read_page. Example: {"query": "was single sign-on agreed?", "limit": 5}',
            wiki_search,
            WIKI_OUTPUT,
        ),
    ]
