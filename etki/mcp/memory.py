"""What the MCP tools read (one job: the project's port, ruled cases and rankers, kept
while the store and the wiki do not change).

The retrieval port is rebuilt when the index hash or the set of ruled cases changed
since the last call, so precedents ruled meanwhile are seen; the decision ranker when
the ruled cases changed; the wiki ranker when a page was added, removed or rewritten
(its path, size and modification time). Nothing here writes.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from etki.config import Settings
from etki.domain import CaseRecord
from etki.errors import InputError
from etki.retrieval.lexical import CONTEXT_WEIGHT
from etki.retrieval.wikirank import RelevanceRanker, page_fields
from etki.wiki.sections import page_sections

__all__ = ["CLAUSE_NUMBER", "ProjectMemory", "decision_text"]

_CASE_ID = re.compile(r"^case_id: ([^\s'\"]+)$", re.MULTILINE)
"""The one case a wiki page is about, as its YAML front matter names it."""

CLAUSE_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{1,3}){0,4})(?![\w]|\.\d)")
"""A clause number as a reviewer writes it: ``5.2``, ``2.2.1``, ``7``."""

MAX_WIKI_PAGE_CHARS = 20000
"""A wiki page (or a contract page's head or clause section) is ranked on its first
this-many characters."""


def decision_text(case: CaseRecord) -> str:
    """What a decision is ranked on: the request's title and text, the ruling, the
    reviewer's reason and the cited clause refs."""
    r = case.ruling
    said = f"{r.ruling} {r.reason}" if r is not None else ""
    return "\n".join((case.title, case.text, said, " ".join(case.decision.cited_clauses))).strip()


class ProjectMemory:
    """The project served by ``etki mcp``: ``--project``, or the only stored one.

    Raises :class:`InputError` when none is given and the store holds not exactly one,
    ``NotFoundError`` for an unknown id."""

    def __init__(self, settings: Settings, project_id: str | None) -> None:
        from etki.services import Desk

        self.settings = settings
        self.desk = Desk.open(settings, read_only=True)
        stored = self.desk.project_ids()
        if project_id is None:
            if len(stored) != 1:
                raise InputError(
                    "etki mcp: give --project; stored projects: "
                    + (", ".join(stored) or "none (run `etki init PROJECT_DIR`)")
                )
            project_id = stored[0]
        project = self.desk.project(project_id)  # a clear NotFoundError for an unknown id
        self.project_id = project_id
        self.languages: tuple[str, ...] = tuple(project.config.languages) or ("en",)
        self._lock = threading.Lock()
        self._key: tuple[str, tuple[tuple[str, int], ...]] | None = None
        self._port: Any = None
        self._ruled: list[CaseRecord] = []
        self._decisions: RelevanceRanker | None = None
        self._wiki_key: tuple[tuple[tuple[str, int, int], ...], frozenset[str]] | None = None
        self._wiki: RelevanceRanker | None = None
        self._wiki_titles: dict[str, str] = {}
        self._wiki_starts: dict[str, int] = {}
        self._wiki_cases: dict[str, str] = {}

    def _refresh(self) -> None:
        ruled = self.desk.queue(self.project_id, status="ruled")
        key = (
            self.desk.index_hash(self.project_id),
            tuple(sorted((c.case_id, c.version) for c in ruled)),
        )
        if self._port is None or key != self._key:
            self._port = self.desk.graph_port(self.project_id)
            self._ruled = ruled
            self._decisions = None
            self._key = key

    def port(self) -> Any:
        """The :class:`~etki.retrieval.port.GraphQueryPort` of the project, current."""
        with self._lock:
            self._refresh()
            return self._port

    def ruled(self) -> list[CaseRecord]:
        """Every ruled case of the project (agreed and overridden), oldest first."""
        with self._lock:
            self._refresh()
            return list(self._ruled)

    def decision_ranker(self) -> RelevanceRanker:
        """A :class:`RelevanceRanker` over the ruled cases (:func:`decision_text`), ids
        the case ids; its acronyms are the project's (the graph's table, the one
        :mod:`etki.retrieval.acronyms` rule ``graph_query`` uses)."""
        with self._lock:
            self._refresh()
            if self._decisions is None:
                self._decisions = RelevanceRanker(
                    [(c.case_id, decision_text(c)) for c in self._ruled],
                    self.languages,
                    acronym_table=self._port.scorer.acronyms,
                )
            return self._decisions

    def wiki_root(self) -> Path | None:
        """The project's wiki folder, or None when the wiki is off."""
        return self.settings.wiki_path(self.project_id)

    def wiki_ranker(self) -> tuple[RelevanceRanker, dict[str, str]] | None:
        """A ranker over the wiki's pages (ids: paths relative to the wiki, ``/``), each
        ranked on its :func:`~etki.retrieval.wikirank.page_fields` (title weighted, front
        matter and listing entries left out), and each page's title (its first heading);
        None when the wiki is off or not built.

        A contract page is ranked as its parts (:func:`etki.wiki.sections.page_sections`):
        its head under the page's path and every clause section as a document of its own,
        id ``path#anchor``, whose title field is the clause heading (``ref — title``,
        weighted as a page title is): the same BM25F scheme, so a question answered by a
        clause no ruling cites finds that clause instead of one long page ranked on its
        first :data:`MAX_WIKI_PAGE_CHARS` characters.

        A clause section of a clause the graph ranking counts as background
        (:attr:`etki.retrieval.lexical.LexicalScorer.background`: the one rule, read from
        the port's scorer) scores :data:`~etki.retrieval.lexical.CONTEXT_WEIGHT` times its
        BM25F score here too. The acronyms are the project's (the graph's table, as for
        ``graph_query`` and the decisions), then those the pages write themselves."""
        root = self.wiki_root()
        if root is None or not root.is_dir():
            return None
        scorer = self.port().scorer  # before the lock: port() takes it
        background = scorer.background
        files = sorted(p for p in root.rglob("*.md") if p.is_file())
        key = (
            tuple(
                (p.relative_to(root).as_posix(), p.stat().st_size, p.stat().st_mtime_ns)
                for p in files
            ),
            background,
        )
        with self._lock:
            if self._wiki is None or key != self._wiki_key:
                docs, titles, weights, starts, cases = [], {}, {}, {}, {}
                for p in files:
                    rel = p.relative_to(root).as_posix()
                    text = p.read_text(encoding="utf-8", errors="replace")
                    titles[rel] = _title(text, rel)
                    if (case := _CASE_ID.search(text[: text.find("\n---", 3) + 1])) is not None:
                        cases[rel] = case.group(1)
                    split = page_sections(rel, text)
                    if split is None:
                        docs.append((rel, page_fields(text[:MAX_WIKI_PAGE_CHARS])))
                        continue
                    head, sections = split
                    docs.append((rel, page_fields(head[:MAX_WIKI_PAGE_CHARS])))
                    for sec in sections:
                        body = sec.text.split("\n", 1)[1] if "\n" in sec.text else ""
                        field = f"# {sec.title}\n{body}"[:MAX_WIKI_PAGE_CHARS]
                        docs.append((f"{rel}#{sec.anchor}", page_fields(field)))
                        titles[f"{rel}#{sec.anchor}"] = sec.title
                        starts[f"{rel}#{sec.anchor}"] = sec.start
                        if f"clause:{unquote(sec.anchor)}" in background:
                            weights[f"{rel}#{sec.anchor}"] = CONTEXT_WEIGHT
                self._wiki = RelevanceRanker(
                    docs, self.languages, weights, acronym_table=scorer.acronyms
                )
                self._wiki_titles = titles
                self._wiki_starts = starts
                self._wiki_cases = cases
                self._wiki_key = key
            return self._wiki, dict(self._wiki_titles)

    def wiki_cases(self) -> dict[str, str]:
        """Page path -> the case id its front matter names (``case_id:``: a decision,
        precedent or change-request page; pages about no one case are absent), as of the
        last :meth:`wiki_ranker` build."""
        with self._lock:
            return dict(self._wiki_cases)

    def wiki_numbered(self, query: str) -> list[str]:
        """Addresses (``path#anchor``) of the wiki's clause sections a query that is a
        clause number alone names (``"5.2"``, ``"§ 5.2"``): the clause of that number
        first, then its sub-clauses in contract order, as ``etki wiki search`` and
        Hafıza rank them (:func:`etki.wiki.clausequery.clause_number` and
        :func:`~etki.wiki.clausequery.number_rank`, the one rule). Empty when the query
        is anything else or the wiki is off or not built."""
        from etki.wiki.clausequery import NO_NUMBER, clause_number, number_rank

        number = clause_number(query)
        if number is None or self.wiki_ranker() is None:
            return []
        with self._lock:
            starts = dict(self._wiki_starts)
        keyed = []
        for address, start in starts.items():
            rel, _, anchor = address.partition("#")
            at = number_rank(anchor, start, number)
            if at != NO_NUMBER:
                keyed.append((at, rel, address))
        return [address for _, _, address in sorted(keyed)]

    def clauses_numbered(self, question: str) -> list[str]:
        """Ids of the clauses whose number the question writes alone or names ("5.2",
        "clause 2.2", "what does 5.2 say"), in the order written, then by id."""
        numbers = CLAUSE_NUMBER.findall(question)
        if not numbers:
            return []
        graph = self.port().graph
        out: list[str] = []
        for number in numbers:
            if "." not in number and not re.fullmatch(
                r"\s*(?:clause|section|madde|bölüm|abschnitt|§)?\s*\d+\s*\??\s*",
                question,
                flags=re.IGNORECASE,
            ):
                continue  # a bare "7" inside a sentence is a count, not a clause
            for node in graph.nodes_of("clause"):
                if str(node.get("number") or "") == number and node.id not in out:
                    out.append(node.id)
        return out


def _title(text: str, rel: str) -> str:
    """A page's title as plain text (:func:`etki.wiki.excerpt.page_title`: its first
    heading, markdown escapes undone), as a section's title is."""
    from etki.wiki.excerpt import page_title

    return page_title(text, rel)
