"""The evidence chain of a decision and the one place its text format is defined.

The engine writes each step as a sentence (:class:`EvidenceStep`); a few parts of those
sentences are read back elsewhere, and this module owns each of them, writer and parser
together, so a change of wording cannot break a reader silently:

* the **deciding marker** (:data:`DECIDING`): the ``classify`` step names the decisive
  clause as ``deciding sentence: REF (role, role rule: RULE)``
  (:func:`deciding_clause_text`); :func:`deciding_ref` reads it back from a decision,
  :func:`deciding_in_json` from a stored decision's JSON (the queue reads it in SQL with
  :data:`DECIDING`, :mod:`etki.store.repository.cases`);
* the **risk wording** (:data:`RISK_WORDING`): the ``risk`` step quotes the request's
  words that raised a signal (:func:`risk_wording_text`); :func:`risk_wording` reads them
  back (the desk's risk line, ``etki show``);
* the **disputed signal** (:data:`DISPUTED_SIGNAL`): the risk signal a cited disputed
  clause raises;
* the **quoted sentences** (:data:`QUOTE_OPEN`, :data:`QUOTE_CLOSE`): the ``sureness``
  and ``exclusion_check`` steps quote contract sentences as ``REF “sentence”`` (the
  engine's ``_quoted``, :func:`etki.triage.explain.clip`: whitespace runs made single
  spaces, cut to 140 characters ending in ``…``); :func:`quoted_sentences` reads them
  back with the side each is quoted for, :func:`deciding_step` the deciding clause's
  role, and :func:`reasoning_quote` the deciding sentence as the reasoning quotes it
  (``REF: “sentence”``, :class:`etki.triage.explain.Grounds`) when no step does (the
  desk quotes them first and marks them in the clause,
  :mod:`etki_tui.queue.evidence`). ``tests/test_evidence_format.py`` reads every quote
  of the golden decisions back, so a change of the engine's wording fails there;
* the **quoted sentence** itself: the whole sentence a scored part comes from
  (:func:`whole_sentences`, :data:`SENTENCE_END`: ``.``, ``!``, ``?`` and paragraph
  ends, never ``;`` or ``:``), up to :data:`QUOTE_CHARS` characters
  (:func:`quoted_sentence`), so ``etki show``, the decision page and the desk quote
  the same sentence;
* the **listed items** of a lead-in: a quoted sentence ending in ``:`` (``… the
  following deliverables:``) is followed in the quote by the list under it in its
  clause (:func:`lead_in_list`: at most :data:`LISTED_MAX` items, the rest counted),
  each after :data:`LIST_MARK` (:func:`with_listed`); :func:`split_listed` reads them
  back (the desk shows them one a line). One rule for every quote: the deciding
  sentence, an exclusion's lead-in, and the desk's nearest sentence and older
  decisions' quotes (engine 3.2.2).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Sequence, Set
from dataclasses import dataclass, replace
from functools import lru_cache

__all__ = [
    "DECIDING",
    "DISPUTED_SIGNAL",
    "QUOTE_CLOSE",
    "QUOTE_OPEN",
    "RISK_WORDING",
    "DecidingClause",
    "EvidenceStep",
    "LISTED_ITEM_CHARS",
    "LISTED_MAX",
    "LISTED_MORE",
    "LIST_MARK",
    "QUOTE_CHARS",
    "SENTENCE_END",
    "SentenceQuote",
    "deciding_clause_text",
    "deciding_step",
    "deciding_in_json",
    "deciding_ref",
    "deciding_ref_among",
    "lead_in_list",
    "quoted_sentence",
    "quoted_sentences",
    "reasoning_quote",
    "risk_wording",
    "risk_wording_text",
    "split_listed",
    "whole_sentences",
    "with_listed",
]


@dataclass(frozen=True)
class EvidenceStep:
    """One step of the evidence chain: ``step`` (a short name such as ``score_clauses``),
    ``detail`` (a sentence) and ``scores`` (sorted (name, value) pairs, values rounded)."""

    step: str
    detail: str
    scores: tuple[tuple[str, float], ...] = ()


DISPUTED_SIGNAL = "disputed_clause"
"""The risk signal a cited clause disputed by past rulings raises (:mod:`etki.triage.risk`,
:func:`etki.memory.current_risk`); the other signals come from the request's words."""

RISK_WORDING = "wording "
"""What the engine's ``risk`` evidence step writes before the request's own words that
raised a signal (``medium: wording “password”, “yetkisiz” -> PMO look within 24h; …``)."""

_QUOTED = re.compile("“([^”]*)”")


def risk_wording(evidence: Sequence[EvidenceStep]) -> tuple[str, ...]:
    """The request's words, as the client wrote them, that the ``risk`` step of
    ``evidence`` quotes as raising a signal (``("password",)``); ``()`` when the step is
    absent or quotes none (a low risk, or one raised by a disputed clause only). Read
    from the step's detail, which :data:`RISK_WORDING` opens (the engine's format)."""
    for step in evidence:
        if step.step != "risk":
            continue
        start = step.detail.find(RISK_WORDING)
        if start < 0:
            return ()
        part = step.detail[start + len(RISK_WORDING) :]
        part = part.split(";", 1)[0].split(" -> ", 1)[0]
        return tuple(_QUOTED.findall(part))
    return ()


def risk_wording_text(words: Sequence[str]) -> str:
    """The part of the ``risk`` step that quotes the request's ``words`` that raised a
    signal: ``wording “a”, “b”``; read back by :func:`risk_wording`."""
    return RISK_WORDING + ", ".join(f"“{w}”" for w in words)


DECIDING = "deciding sentence: "
"""The marker before the decisive clause's ref in the ``classify`` step."""


def deciding_in_json(text: str | None, cited: Iterable[str]) -> str | None:
    """:func:`deciding_ref` from the text of a stored decision's JSON, or from the part
    of it that starts at its ``deciding sentence: `` (what a queue read cuts out in SQL
    instead of decoding the evidence chain): the JSON string there is decoded up to its
    closing quote. None when there is none or it names no ref of ``cited``."""
    at = text.find(DECIDING) if text else -1
    if text is None or at < 0:
        return None
    rest = text[at + len(DECIDING) :]
    end = 0
    while True:  # the first quote not escaped by a backslash ends the JSON string
        end = rest.find('"', end)
        backslashes = len(rest[:end]) - len(rest[:end].rstrip("\\")) if end > 0 else 0
        if end < 0 or backslashes % 2 == 0:
            break
        end += 1
    piece = rest if end < 0 else rest[:end]
    try:
        detail = json.loads('"' + piece + '"')
    except ValueError:  # a cut fragment may end inside an escape: drop from it on
        try:
            detail = json.loads('"' + piece[: piece.rfind("\\")] + '"')
        except ValueError:
            return None
    return deciding_ref((("classify", DECIDING + detail),), cited)


def deciding_ref(details: Iterable[tuple[str, str]], candidates: Iterable[str]) -> str | None:
    """The ref of the decisive evidence: the ``deciding sentence: REF`` of the
    ``classify`` step among ``details`` ((step name, detail) pairs of a decision's
    evidence, :meth:`etki.triage.engine.TriageEngine.triage`), when it is one of
    ``candidates``; None otherwise. Longest refs are tried first (``MSA#4.8.1`` before
    ``MSA#4.8``)."""
    ordered = sorted(dict.fromkeys(candidates), key=len, reverse=True)
    for step, detail in details:
        if step != "classify" or DECIDING not in detail:
            continue
        rest = detail.split(DECIDING, 1)[1]
        for ref in ordered:
            if rest.startswith(ref) and not re.match(r"\w|\.\w", rest[len(ref) :]):
                return ref
    return None


def deciding_ref_among(
    details: Iterable[tuple[str, str]],
    refs: Set[str],
    longest: int,
    also: Collection[str] = (),
) -> str | None:
    """:func:`deciding_ref` with the candidates given as a set ``refs`` whose longest
    ref has ``longest`` characters: the same ref, found without sorting the candidates
    (a project's thousands of refs, for every override of ``etki report``, issue 32
    item 1). :func:`deciding_ref` returns the longest candidate that starts the text
    after the marker and is not followed by a word character (two refs of one length
    that both start it are the same ref), so the prefixes of that text are looked up in
    ``refs`` and ``also`` (a few more candidates, none longer than ``longest``), longest
    first."""
    for step, detail in details:
        if step != "classify" or DECIDING not in detail:
            continue
        rest = detail.split(DECIDING, 1)[1]
        for length in range(min(len(rest), longest), -1, -1):
            ref = rest[:length]
            if (ref in refs or ref in also) and not re.match(r"\w|\.\w", rest[length:]):
                return ref
    return None


def deciding_clause_text(ref: str, role: str, rule: str) -> str:
    """What the ``classify`` step appends to name the decisive clause ``ref`` (its
    sentence's ``role`` and the ``rule`` that gave the role):
    ``"; deciding sentence: REF (role, role rule: RULE)"``; read back by
    :func:`deciding_ref`."""
    return f"; {DECIDING}{ref} ({role}, role rule: {rule})"


SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
"""Where a quoted contract sentence ends inside a paragraph (a paragraph, list item,
table cell or heading, its lines joined): after ``.``, ``!`` or ``?`` and white space.
Never after ``;`` or ``:``: the engine scores the parts of a sentence between
semicolons on their own (:func:`etki.triage.contract.split_units`), but a part quoted
alone reads as a fragment (a trial of issue 34 item 2: tdrs 2.2 was quoted from "and
allowing the state, territory, and tribal users …", the words after a semicolon), and a
lead-in ending in ``:`` goes on in the list under it (quoted after it,
:func:`lead_in_list`)."""


def whole_sentences(block: str) -> list[str]:
    """The sentences of ``block`` (one paragraph, list item, table cell or heading: its
    whitespace runs are made single spaces first) split at :data:`SENTENCE_END`, each
    stripped, empty ones dropped. Letters are never changed (Turkish ``İ``/``ı``, German
    ``ß`` are kept as written)."""
    flat = " ".join(block.split())
    return [s.strip() for s in SENTENCE_END.split(flat) if s.strip()]


QUOTE_CHARS = 600
"""Most characters of a quoted contract sentence; the same bound as the desk's
completion of an older decision's clipped quote
(:data:`etki_tui.queue.evidence.SENTENCE_MAX_CHARS`). Engine 3.2.0 quoted at most 140
and cut the rest (``…``); a sentence of 480 characters (tdrs 2.2) is a real contract's
ordinary long sentence, and the words that matched were in its last 100. Longer than
this, the part that was scored is quoted instead (:func:`quoted_sentence`)."""


def quoted_sentence(
    part: str, whole: str, clip: Callable[[str, int], str], markdown: str = ""
) -> str:
    """The text the evidence quotes for a scored sentence ``part`` (a sentence or, when
    the sentence has semicolons, the part of it between them) whose whole sentence
    (:func:`whole_sentences`) is ``whole``: ``whole`` when it holds at most
    :data:`QUOTE_CHARS` characters, else ``part`` (a 700-character sentence quoted whole
    buries the part that matched); cut to :data:`QUOTE_CHARS` by ``clip`` (the engine's
    :func:`etki.triage.explain.clip`: whitespace runs single, ``…`` at the cut) either
    way. ``whole`` empty: ``part``. ``markdown``: the text of the sentence's clause;
    when the quoted sentence is a lead-in ending in ``:`` and not cut, the list under
    it there follows it (:func:`lead_in_list`, :func:`with_listed`; engine 3.2.2)."""
    whole = " ".join(whole.split())
    chosen = whole if whole and len(whole) <= QUOTE_CHARS else part
    quoted = clip(chosen, QUOTE_CHARS)
    return with_listed(quoted, lead_in_list(quoted, markdown)) if markdown else quoted


LISTED_MAX = 8
"""Items of a lead-in's list quoted after it; more are counted (:data:`LISTED_MORE`)."""

LISTED_ITEM_CHARS = 200
"""Characters of one listed item quoted (a longer one is cut, its last one ``…``)."""

LISTED_MORE = "+{n} more"
"""The last listed item when the list has more than :data:`LISTED_MAX` (``n``: how many
more)."""

LIST_MARK = " · "
"""Opens each listed item in a quote's text: ``lead-in: · item · · nested item · +3
more`` (a nested item's ``· `` repeated once per level below the first). An item's own
`` · `` is written `` - `` and its ``”`` as ``"`` (the quote's end), so
:func:`split_listed` reads the items back as written."""

_LIST_LINE = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,3}[.)])\s+(?P<item>\S.*)$")


def _letters(text: str) -> str:
    """The letters and digits of ``text`` (NFC), in order: a quoted sentence and the
    markdown line it comes from differ in escapes, emphasis, links and white space, never
    in these."""
    return "".join(c for c in unicodedata.normalize("NFC", text) if c.isalnum())


@lru_cache(maxsize=256)
def lead_in_list(sentence: str, markdown: str) -> tuple[str, ...]:
    """The list a lead-in ``sentence`` introduces in its clause's ``markdown`` (``The
    Contractor will not be responsible to perform the following:`` — the excluded things
    are the list under it; talentmap 9's deciding ``… a mix of the following
    deliverables:`` likewise), each item as plain one-line text
    (:func:`etki.mdtext.plain.markdown_plain`, whitespace runs single), two leading spaces
    per nesting level, cut to :data:`LISTED_ITEM_CHARS`; at most :data:`LISTED_MAX`,
    then :data:`LISTED_MORE`. The items are the markdown list lines after the line that
    ends the sentence in its paragraph (matched by letters and digits, so a hard-wrapped
    lead-in is found too), blank lines between them
    allowed, up to the first line that is neither an item nor an item's indented
    continuation (joined to it). A nested item (indented deeper than the one before it)
    is an item of its own. ``()`` when ``sentence`` does not end in ``:``, ends in
    ``…`` (cut), is not found, or no list follows. Letters are never changed
    (``İ``/``ı``, ``ß``). Cached: a clause's text is scanned once per sentence."""
    if not sentence.rstrip().endswith(":"):
        return ()
    # markdown-it-py loads on first use: the lean read commands import this module and
    # must not pay for it (tests/test_import_hygiene.py)
    from etki.mdtext.plain import markdown_plain

    want = _letters(sentence)
    lines = markdown.splitlines()
    start, para = None, ""
    for i, line in enumerate(lines):  # the paragraph so far: a hard-wrapped lead-in too
        para = para + _letters(markdown_plain(line)) if line.strip() else ""
        if want and want in para:
            start = i + 1
            break
    if start is None:
        return ()
    items: list[tuple[int, str]] = []
    indents: list[int] = []  # the indent of each list level open now
    for line in lines[start:]:
        if not line.strip():
            continue
        found = _LIST_LINE.match(line)
        if found is not None:
            indent = len(found.group("indent").expandtabs(4))
            while indents and indent < indents[-1]:
                indents.pop()
            if not indents or indent > indents[-1]:
                indents.append(indent)
            items.append((len(indents) - 1, found.group("item")))
        elif items and line.startswith((" ", "\t")):
            depth, text = items[-1]
            items[-1] = (depth, text + " " + line.strip())  # a wrapped item goes on
        else:
            break
    out = []
    for depth, item in items[:LISTED_MAX]:
        text = " ".join((markdown_plain(item) or item).split())
        text = text if len(text) <= LISTED_ITEM_CHARS else text[: LISTED_ITEM_CHARS - 1] + "…"
        out.append("  " * min(depth, 4) + text)
    if len(items) > LISTED_MAX:
        out.append(LISTED_MORE.format(n=len(items) - LISTED_MAX))
    return tuple(out)


def with_listed(sentence: str, listed: Sequence[str]) -> str:
    """The quote text of a lead-in ``sentence`` followed by its ``listed`` items
    (:func:`lead_in_list`), each after :data:`LIST_MARK`, a nested one's two leading
    spaces per level written ``· ``; ``sentence`` itself when ``listed`` is empty."""
    out = [sentence]
    for item in listed:
        text = item.lstrip(" ")
        text = text.replace(LIST_MARK, " - ").replace(QUOTE_CLOSE, '"').lstrip("· ")
        out.append(LIST_MARK + "· " * ((len(item) - len(item.lstrip(" "))) // 2) + text)
    return "".join(out)


def split_listed(text: str) -> tuple[str, tuple[str, ...]]:
    """(sentence, items) of a quote's ``text`` written by :func:`with_listed`: the
    sentence up to the first ``:`` followed by :data:`LIST_MARK`, and the items after
    it, a nested one with two leading spaces per level (as :func:`lead_in_list` gives
    them); ``(text, ())`` when it has no list."""
    at = text.find(":" + LIST_MARK)
    if at < 0:
        return text, ()
    items = []
    for part in text[at + 1 + len(LIST_MARK) :].split(LIST_MARK):
        depth = 0
        while part.startswith("· "):
            part, depth = part[2:], depth + 1
        items.append("  " * depth + part)
    return text[: at + 1], tuple(items)


QUOTE_OPEN = "“"
"""Opens a contract sentence the evidence quotes (after its ref and a space)."""

QUOTE_CLOSE = "”"
"""Closes a quoted contract sentence."""

CLIP_MARK = "…"
"""Ends a quoted sentence the engine cut (:func:`etki.triage.explain.clip`)."""

_QUOTE = re.compile(r"(?P<ref>[^\s“”]+) “(?P<text>[^”]*)”")

AGAINST_LEADS = ("exclu", "another party", "client duty", "out of the contractor's remit")
"""Words of the lead-in before a quoted sentence (the engine's wording, ``closest
exclusion text:``, ``closest client duty text:``, ``an exclusion names it too:``, ``the
clause that covers it also excludes work or gives it to another party:``, ``a contract
sentence takes what it asks for out of the contractor's remit:``) that say it is quoted
as an exclusion or a duty of another party; ``routes`` says a change route; any other
lead-in (``a contract sentence asks for what it asks for:``, ``an obligation names it:``,
``but a clause names it:``) quotes an obligation."""

WEIGHED_LEAD = "also excludes work or gives it to another party"
"""The lead-in of the exclusion of the very clause an IN_SCOPE verdict rests on
(:mod:`etki.triage.sureness`): weighed against the verdict."""


@dataclass(frozen=True)
class SentenceQuote:
    """A contract sentence the evidence quotes. ``ref``: its clause; ``text``: the
    sentence as quoted (whitespace runs single spaces; :attr:`clipped` when the engine
    cut it, the ``…`` removed); ``side``: ``obligation``, ``against`` (an exclusion or
    another party's duty) or ``route`` (to a change request or later work); ``step``:
    the evidence step (``sureness`` or ``exclusion_check``); ``weighed``: an exclusion
    of the clause the verdict rests on; ``lead``: the step's words before it;
    ``listed``: the items of the list a lead-in ending in ``:`` introduces, as
    :func:`split_listed` reads them (``()`` for other sentences and older decisions)."""

    ref: str
    text: str
    clipped: bool
    side: str
    step: str
    weighed: bool
    lead: str
    listed: tuple[str, ...] = ()


def quoted_sentences(evidence: Iterable[EvidenceStep]) -> tuple[SentenceQuote, ...]:
    """Every contract sentence quoted by the ``sureness`` and ``exclusion_check`` steps
    of ``evidence``, in step order and then in the order written, each once (by ref and
    text; the first is kept, weighed when any of them is). ``()`` for an evidence chain with none (a defect verdict, a
    topic one with no exclusion near)."""
    seen: dict[tuple[str, str], int] = {}
    out: list[SentenceQuote] = []
    for step in evidence:
        if step.step not in ("sureness", "exclusion_check"):
            continue
        start = 0
        for match in _QUOTE.finditer(step.detail):
            lead = step.detail[start : match.start()]
            lead = re.split(r"; |\): ", lead)[-1].strip()
            start = match.end()
            text, listed = split_listed(match.group("text"))
            clipped = text.endswith(CLIP_MARK)
            text = text[: -len(CLIP_MARK)].rstrip() if clipped else text
            key = (match.group("ref"), text)
            low = lead.lower()
            if key in seen:
                if WEIGHED_LEAD in low:
                    out[seen[key]] = replace(out[seen[key]], weighed=True)
                continue
            seen[key] = len(out)
            side = (
                "against"
                if any(w in low for w in AGAINST_LEADS)
                else ("route" if "routes" in low else "obligation")
            )
            out.append(
                SentenceQuote(
                    match.group("ref"),
                    text,
                    clipped,
                    side,
                    step.step,
                    WEIGHED_LEAD in low,
                    lead,
                    listed,
                )
            )
    return tuple(out)


@dataclass(frozen=True)
class DecidingClause:
    """The clause the deciding rule rests on, as the ``classify`` step names it:
    ``ref``, the ``role`` of its deciding sentence (``obligation``, ``exclusion``,
    ``future`` …) and the ``rule`` that gave the role."""

    ref: str
    role: str
    rule: str


def deciding_step(
    evidence: Iterable[EvidenceStep], candidates: Iterable[str]
) -> DecidingClause | None:
    """The :class:`DecidingClause` of ``evidence`` (written by
    :func:`deciding_clause_text`), when its ref is one of ``candidates``; None when the
    ``classify`` step names none (no sentence of the rule's group matched)."""
    steps = [(s.step, s.detail) for s in evidence]
    ref = deciding_ref(steps, candidates)
    if ref is None:
        return None
    for step, detail in steps:
        if step != "classify" or DECIDING not in detail:
            continue
        rest = detail.split(DECIDING, 1)[1][len(ref) :]
        found = re.match(r" \((?P<role>[^,()]*), role rule: (?P<rule>.*)\)\s*$", rest)
        if found:
            return DecidingClause(ref, found.group("role"), found.group("rule"))
        return DecidingClause(ref, "", "")
    return None


def reasoning_quote(reasoning: str, ref: str) -> tuple[str, bool, tuple[str, ...]] | None:
    """(sentence, clipped, listed) of the first sentence of clause ``ref`` that a
    decision's ``reasoning`` quotes, written ``REF: “sentence”`` (the best sentence of the
    group the deciding rule rests on, :class:`etki.triage.explain.Grounds`; cut like the
    steps' quotes, ``clipped`` with the ``…`` removed; ``listed``: a lead-in's items,
    :func:`split_listed`); None when it quotes none of ``ref`` (a defect, a new
    capability: the reasoning names the clause only)."""
    at = reasoning.find(f"{ref}: {QUOTE_OPEN}")
    if at < 0 or (at > 0 and reasoning[at - 1] not in " ("):
        return None
    start = at + len(ref) + 2 + len(QUOTE_OPEN)
    end = reasoning.find(QUOTE_CLOSE, start)
    if end < 0:
        return None
    text, listed = split_listed(reasoning[start:end])
    clipped = text.endswith(CLIP_MARK)
    return (text[: -len(CLIP_MARK)].rstrip() if clipped else text), clipped, listed
