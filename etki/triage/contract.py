"""Contract reading (one job: what each clause and each of its sentences *does*).

A clause has a **role** from its title (and its parent's):

* ``admin``: contract administration: people, money, procurement, evaluation
  (:data:`etki.triage.cues.ADMIN_TITLE`), and instructions to offerors or the
  evaluation of offers (:data:`etki.triage.offers.OFFERS_TITLE`, engine 3.2.3: FAR
  15.204-1 Sections L/M, 52.215-1, 15.304/15.305; 2014/24/EU Art. 58/67; VOB/A; Turkish
  4734 Art. 10/37; how the buyer chooses among offers binds no work after award, so a
  section titled only "Instructions to Offerors" is not scope);
* ``context``: background that describes but does not oblige (``CONTEXT_TITLE``);
* ``scope``: everything else, and always a title with scope wording (``SCOPE_TITLE``).

A clause of kind ``context`` (a title page or preamble, as the loader marks it) is
always ``context``, and passes no role on to the clauses below it. A clause without
telling title words inherits ``admin``/``context`` from its parent:
``ScopeClause.parent``, else the nearest existing clause whose number is a prefix of
this one (``7.2.4`` -> ``7.2`` -> ``7``), else the first clause of the same top-level
section (the loader merges an empty parent heading into its first child, whose title
then carries the parent's words: ``Administration › Government Personnel``).

Each sentence of the clause text (markdown and HTML stripped; list items, table cells
and blank-line blocks are sentence boundaries) gets a **sentence role**:

* ``exclusion``: any sentence of a clause of kind ``exclusion``, or a sentence with
  exclusion wording ("not included", "no migration", "kapsam dışı", "nicht enthalten"),
  unless it sends the work to a change request (then ``future``);
* ``context``: any sentence of a clause of kind ``context`` (a title page or preamble);
* ``admin``: any sentence of an ``admin`` clause;
* ``context``: a sentence of a ``context`` (background) clause without a modal verb
  (:data:`etki.triage.cues.MODAL_VERBS`); one with a modal verb goes on to the rules
  below, and is an ``obligation`` if none of them holds;
* ``client``: a sentence assigning a duty or decision to a party other than the
  contractor ("OFA will be responsible for ...", "ACF will determine ...");
* ``future``: possible later work ("extensible ... future development") or work the
  contract routes to a change request ("require a Change Request");
* ``assumption``: a sentence of a clause of kind ``assumption``;
* ``obligation``: everything else: work the contract asks of the contractor.

The first matching rule in that order wins; :func:`role_of` returns its name
(:data:`ROLE_RULES`) with the role, and the engine shows it in the evidence chain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from etki.domain import ScopeClause, whole_sentences
from etki.knowledge.contracts import heading_category
from etki.triage import cues
from etki.triage.normalise import cue_words
from etki.triage.offers import OFFERS_TITLE

CLAUSE_ROLES: tuple[str, ...] = ("scope", "admin", "context")
SENTENCE_ROLES: tuple[str, ...] = (
    "obligation",
    "exclusion",
    "client",
    "future",
    "context",
    "assumption",
    "admin",
)


@dataclass(frozen=True)
class Sentence:
    """One sentence of a clause: ``clause`` (index into the analysed clauses), ``text``
    (plain text), ``role`` (one of :data:`SENTENCE_ROLES`), ``cues`` (texts of the
    wording cues that decided the role, sorted), ``rule`` (the :data:`ROLE_RULES`
    entry that assigned it) and ``whole``: the whole sentence ``text`` is part of when
    ``text`` is a part between semicolons (:func:`split_whole_units`; what the evidence
    quotes, :func:`etki.domain.quoted_sentence`), else ``""`` (``text`` is whole)."""

    clause: int
    text: str
    role: str
    cues: tuple[str, ...] = ()
    rule: str = "contractor obligation (default)"
    whole: str = ""

    @property
    def quoted(self) -> str:
        """The whole sentence this one is (part of): :attr:`whole` or :attr:`text`."""
        return self.whole or self.text


@dataclass(frozen=True)
class ClauseInfo:
    """A clause with its role, its sentences and how strongly it puts defect resolution
    in scope (``defect_support``: number of distinct bug-fixing, troubleshooting,
    incident or warranty cues in its title and text; 0 = none)."""

    clause: ScopeClause
    role: str
    sentences: tuple[Sentence, ...]
    defect_support: int


_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"<[^>]+>")
_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)]*)\)")
_BLOCK_SPLIT = re.compile(r"\n\s*\n|\n\s*(?:[-*+]|\d+[.)])\s+|\|")
_PART_SPLIT = re.compile(r"(?<=;)\s+")
_NOISE = re.compile(r"[>*_`#]+")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def plain_text(markdown: str) -> str:
    """Markdown/HTML to plain text: comments and tags removed, ``[text](url)`` -> text,
    emphasis, quote and heading marks removed. Line structure is kept."""
    text = _COMMENT.sub(" ", markdown)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _TAG.sub(" ", text)
    return _NOISE.sub(" ", text)


_UNIT_SPLIT = re.compile(r"(\n\s*\n|\n\s*(?:[-*+]|\d+[.)])\s+|\|)")


_ATX = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_SETEXT = re.compile(r"^[^\n]+\n\s{0,3}(?:=+|-+)\s*$")


def split_units(markdown: str) -> list[tuple[str, str]]:
    """:func:`split_whole_units` without the whole sentences."""
    return [(text, kind) for text, kind, _ in split_whole_units(markdown)]


def split_whole_units(markdown: str) -> list[tuple[str, str, str]]:
    """``(sentence, kind, whole)`` for each sentence of a clause body, in order,
    whitespace-collapsed, empty ones dropped; ``kind`` is ``"item"`` for the sentences
    of a list item (``-``, ``*``, ``+``, ``1.``, ``1)``), ``"heading"`` for a sub-heading
    the loader kept in the clause's text (an ATX ``### Title`` or a setext title
    underlined with ``===``/``---``) and ``"text"`` otherwise.

    Boundaries: blank lines, list items, table cells (``|``), and ``. ! ? ;`` followed by
    white space. Table rule rows (``---``) vanish because they hold no word. ``whole``:
    the sentence a part between semicolons comes from (split only at ``. ! ?`` and the
    block's edges, :func:`etki.domain.whole_sentences`), ``""`` for a sentence with no
    semicolon boundary (it is whole); it is quoted, never scored."""
    text = _COMMENT.sub(" ", markdown)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = re.sub(r"</?(?:p|td|th|tr|li|br|div|blockquote)[^>]*>", "\n\n", text)
    parts = _UNIT_SPLIT.split(text)
    out: list[tuple[str, str, str]] = []
    for k in range(0, len(parts), 2):
        block = parts[k]
        sep = parts[k - 1] if k else ""
        if _ATX.match(block) or _SETEXT.match(block.strip("\n")):
            kind = "heading"
            block = re.sub(r"\n\s{0,3}(?:=+|-+)\s*$", "", block.strip("\n"))
        elif bool(_BULLET.match(block)) or (sep not in ("", "|") and sep.strip() != ""):
            kind = "item"
        else:
            kind = "text"
        flat = " ".join(_NOISE.sub(" ", _TAG.sub(" ", _BULLET.sub("", block))).split())
        wholes = [flat] if kind == "heading" else whole_sentences(flat)
        for whole in wholes:
            pieces = [whole] if kind == "heading" else _PART_SPLIT.split(whole)
            kept = [p.strip() for p in pieces if any(ch.isalnum() for ch in p)]
            for sentence in kept:  # the same parts as a split at ". ! ? ;" of ``flat``
                out.append((sentence, kind, whole if len(pieces) > 1 else ""))
    return out


def split_sentences(markdown: str) -> list[str]:
    """The sentences of :func:`split_units`, without their kind."""
    return [text for text, _ in split_units(markdown)]


def _number_key(number: str) -> str:
    parts = [p for p in number.strip().strip(".").split(".") if p != ""]
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def _title_role(title: str) -> str | None:
    ws = cue_words(title)
    if cues.SCOPE_TITLE.find(ws):
        return "scope"
    if cues.ADMIN_TITLE.find(ws) or OFFERS_TITLE.find(ws):
        return "admin"
    if cues.CONTEXT_TITLE.find(ws):
        return "context"
    return None


def _parents(clauses: Sequence[ScopeClause]) -> list[int | None]:
    """Index of each clause's parent in ``clauses`` (see the module docstring: the
    ``parent`` ref, else the nearest clause whose number is a prefix, else the first
    clause of the same top-level section when it comes earlier), or None."""
    by_ref = {c.ref: i for i, c in enumerate(clauses)}
    by_number: dict[tuple[str, str], int] = {}
    for i, c in enumerate(clauses):
        by_number.setdefault((c.contract_id, _number_key(c.number)), i)
    first_of_top: dict[tuple[str, str], int] = {}
    for i, c in enumerate(clauses):
        key = _number_key(c.number)
        if key[:1].isdigit():
            first_of_top.setdefault((c.contract_id, key.split(".")[0]), i)

    def parent_of(i: int) -> int | None:
        c = clauses[i]
        if c.parent and c.parent in by_ref and by_ref[c.parent] != i:
            return by_ref[c.parent]
        key = _number_key(c.number)
        while "." in key:
            key = key.rsplit(".", 1)[0]
            j = by_number.get((c.contract_id, key))
            if j is not None and j != i:
                return j
        # an empty parent heading merged into its first child: that child stands for it
        j = first_of_top.get((c.contract_id, _number_key(c.number).split(".")[0]))
        return j if j is not None and j < i else None

    return [parent_of(i) for i in range(len(clauses))]


def clause_roles(clauses: Sequence[ScopeClause]) -> list[str]:
    """Role of each clause (same order), see the module docstring."""
    parents = _parents(clauses)
    own = [_title_role(c.title) for c in clauses]
    memo: dict[int, str] = {}

    def role(i: int, depth: int = 0) -> str:
        if i in memo:
            return memo[i]
        r = "context" if clauses[i].kind == "context" else own[i]
        if r is None:
            p = parents[i] if depth < 16 else None
            # a title page above every section passes nothing on: it is context by kind
            r = role(p, depth + 1) if p is not None and clauses[p].kind != "context" else "scope"
        memo[i] = r
        return r

    return [role(i) for i in range(len(clauses))]


def background_clauses(clauses: Sequence[ScopeClause]) -> list[bool]:
    """Whether each clause (same order) is background to the contractor's work, for
    ranking (issue 33: such a clause counts half in retrieval,
    :data:`etki.retrieval.lexical.CONTEXT_WEIGHT`): its role (:func:`clause_roles`) is
    ``context``, or its title or an ancestor's names instructions to offerors or the
    evaluation of offers (:data:`etki.triage.offers.OFFERS_TITLE`: how the buyer chooses
    among offers binds no work after award) and its own title has no scope wording
    (:data:`etki.triage.cues.SCOPE_TITLE`, which is never background). The engine reads
    the same wording in :func:`clause_roles` (such a title is ``admin``, engine 3.2.3),
    so a clause marked here is ``admin`` for triage unless its own title has a word of
    another role and none of ``admin``."""
    roles = clause_roles(clauses)
    parents = _parents(clauses)
    memo: dict[int, bool] = {}

    def offers(i: int, depth: int = 0) -> bool:
        if i not in memo:
            p = parents[i] if depth < 16 else None
            memo[i] = bool(OFFERS_TITLE.find(cue_words(clauses[i].title))) or (
                p is not None and offers(p, depth + 1)
            )
        return memo[i]

    return [
        r == "context" or (offers(i) and not cues.SCOPE_TITLE.find(cue_words(clauses[i].title)))
        for i, r in enumerate(roles)
    ]


def _is_client_duty(ws: Sequence[str]) -> bool:
    """A duty/decision cue whose subject is not the contractor (see module docstring).

    English sentences (they hold an English function word, :data:`cues.ENGLISH_MARKERS`):
    the cue must follow a modal (will, shall, must), or for a duty noun ("responsible",
    "duty") also a copula (is, are, remain); the subject is the words before it. So "TANF
    is a block grant" or "their own software" assign nothing. A present-tense duty verb
    ("The Municipality provides and operates ...") counts without a modal when its
    subject names the client (:data:`cues.CLIENT`) and not the contractor, and so does a
    passive duty verb whose agent is the client ("... will be provided by the
    Government", :data:`cues.PASSIVE_DUTY`). Other languages put the
    subject anywhere, so the whole sentence is searched for the contractor. A contractor
    word right after a negation ("not the contractor") does not count."""
    duty = cues.RESPONSIBILITY.positions(ws)
    english = any(w in cues.ENGLISH_MARKERS for w in ws)
    if english:
        for pos in cues.PASSIVE_DUTY.positions(ws):
            agent = ws[pos + 2 : pos + 5]  # "provided by [the] Government ..."
            if cues.CLIENT.find(agent) and not cues.CONTRACTOR.find(agent):
                return True
        verbs = cues.PRESENT_DUTY.positions(ws)
        if verbs:  # the first one is the main verb; later ones sit in sub-clauses
            subject = ws[: verbs[0]]
            if (
                not any(w in cues.MODALS for w in subject)
                and cues.CLIENT.find(subject)
                and not cues.CONTRACTOR.find(subject)
            ):
                return True
    if not duty:
        return False
    if english:
        nouns = set(cues.DUTY_NOUNS.positions(ws))
        subject_end = None
        for pos in duty:
            markers = cues.MODALS | (cues.COPULAS if pos in nouns else frozenset())
            head = next((i for i, w in enumerate(ws[:pos]) if w in markers), None)
            if head is not None:
                subject_end = head
                break
        if subject_end is None:
            return False
        scope = ws[:subject_end]
    else:
        scope = ws
    for pos in cues.CONTRACTOR.positions(scope):
        if not any(w in cues.NEGATION for w in scope[max(0, pos - 2) : pos]):
            return False
    return True


def role_of(text: str, clause_role: str, clause_kind: str) -> tuple[str, tuple[str, ...], str]:
    """``(role, cues, rule)`` of one sentence: its role (:data:`SENTENCE_ROLES`), the cue
    texts that decided it and the name of the rule that assigned it (:data:`ROLE_RULES`),
    tried in the order of the module docstring.

    A sentence that excludes something (or any sentence of an exclusion clause) but
    sends it to a change request ("... are excluded and require a Change Request") is
    ``future``: the contract itself routes it to a CR. In a ``context`` clause
    (background) a sentence with a modal verb ("will", "shall", "must"; Turkish
    future/necessity suffixes; German "wird", "soll", "muss") is read like a scope
    sentence: it says what is to be done, not what is (a short statement of objectives
    often puts its scope in its background)."""
    ws = cue_words(text)
    route = cues.CHANGE_ROUTE.find(ws)
    if clause_kind == "exclusion":
        if route:
            return "future", tuple(c.text for c in route), "exclusion clause, change route"
        return "exclusion", ("clause kind: exclusion",), "exclusion clause"
    if clause_kind == "context":
        return "context", (), "context clause (title page or preamble)"
    if clause_role == "admin":
        return "admin", (), "administration clause"
    if clause_role == "context":
        modal = cues.MODAL_VERBS.find(ws)
        if not modal:
            return "context", (), "background clause"
    found = cues.EXCLUSION.find(ws)
    if found:
        if route:
            return "future", tuple(c.text for c in found + route), "exclusion wording, change route"
        return "exclusion", tuple(c.text for c in found), "exclusion wording"
    if _is_client_duty(ws):
        return (
            "client",
            tuple(
                c.text
                for c in cues.RESPONSIBILITY.find(ws)
                + cues.PRESENT_DUTY.find(ws)
                + cues.PASSIVE_DUTY.find(ws)
            ),
            "duty of another party",
        )
    found = cues.FUTURE.find(ws) + route
    if found:
        return "future", tuple(c.text for c in found), "future or optional work"
    if clause_kind == "assumption":
        return "assumption", (), "assumption clause"
    if clause_role == "context":
        return (
            "obligation",
            tuple(c.text for c in cues.MODAL_VERBS.find(ws)),
            "modal sentence in background",
        )
    return "obligation", (), "contractor obligation (default)"


ROLE_RULES: tuple[str, ...] = (
    "exclusion clause, change route",
    "exclusion clause",
    "context clause (title page or preamble)",
    "administration clause",
    "background clause",
    "exclusion wording, change route",
    "exclusion wording",
    "duty of another party",
    "future or optional work",
    "assumption clause",
    "modal sentence in background",
    "contractor obligation (default)",
    "list item under a lead-in",
)
"""Names of the sentence-role rules, in the order they are tried (shown in evidence and
by ``etki index show --sentences``)."""


def sentence_role(text: str, clause_role: str, clause_kind: str) -> tuple[str, tuple[str, ...]]:
    """``(role, cues)`` of one sentence: :func:`role_of` without the rule name."""
    role, found, _ = role_of(text, clause_role, clause_kind)
    return role, found


LEAD_IN_ROLES = frozenset(("exclusion", "client", "future"))
"""Roles a lead-in sentence passes on to the list below it."""

LEAD_IN_RULE = "list item under a lead-in"
"""Rule name of a list item that takes its lead-in's role."""


def analyse(clauses: Sequence[ScopeClause]) -> tuple[ClauseInfo, ...]:
    """Analyse every clause (same order as given). Pure; deterministic.

    A list item that would be an ``obligation`` by itself takes the role of the
    sentence that introduces its list when that lead-in ends with a colon and is an
    exclusion, another party's duty or future work ("The Contractor will not be
    responsible for the following:" + "- Hosting of the system"): scope statements list
    what they exclude under one such sentence, or under a sub-heading worded as one
    (e-QIP's PWS: "### The contractor will not be responsible to perform the
    following:"). Below a sub-heading kept in the clause's
    text (an unnumbered sub-heading the loader folded into its numbered section), the
    sub-heading's own title words decide the clause role as a clause title does
    ("### Key Personnel" under "5. OPERATIONAL REQUIREMENTS" is administration) and,
    in an inclusion clause, its kind as a heading decides a clause's kind
    (:func:`etki.knowledge.contracts.heading_category`: "### Out of scope" makes the
    sentences below it exclusions); the clause's own role and kind hold again where
    the sub-heading names none."""
    roles = clause_roles(clauses)
    out: list[ClauseInfo] = []
    for i, (clause, role) in enumerate(zip(clauses, roles, strict=True)):
        sentences = []
        lead: Sentence | None = None
        part_role: str = role  # a sub-heading's own words override these two
        part_kind: str = clause.kind
        for text, kind, whole in split_whole_units(clause.text):
            if kind == "heading":
                own = _title_role(text)
                part_role = own if own is not None else role
                part_kind = (
                    heading_category(text) or clause.kind
                    if clause.kind == "inclusion"
                    else clause.kind
                )
                lead = None
            srole, why, rule = role_of(text, part_role, part_kind)
            if kind == "item" and lead is not None and srole == "obligation":
                srole, why, rule = lead.role, lead.cues, LEAD_IN_RULE
            sentence = Sentence(i, text, srole, tuple(sorted(set(why))), rule, whole)
            sentences.append(sentence)
            if kind in ("text", "heading"):
                lead = sentence if (text.endswith(":") and srole in LEAD_IN_ROLES) else None
        support = (
            len(cues.DEFECT_SUPPORT.find(cue_words(clause.title + "\n" + clause.plain)))
            if role == "scope"
            else 0
        )
        out.append(ClauseInfo(clause, role, tuple(sentences), support))
    return tuple(out)
