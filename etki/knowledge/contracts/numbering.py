"""What the words of a heading or a link say (part of :mod:`etki.knowledge.contracts`, the
rules are in its docstring): a clause's number (:func:`clause_number`: bare ``2.1``, or
worded ``Madde 3``, never a law's or standard's number), its kind from its headings
(:func:`heading_category`, :func:`clause_kind`), and the node a wikilink points at
(:func:`link_target`) with the edge type an untyped link gets.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from etki.domain import CLAUSE_KINDS
from etki.text import fold, words

CONTEXT_SEPARATOR = " › "


_REVERSED_CANDIDATE = (
    "a candidate edge goes from a clause of this document: write its "
    "type from the clause's side ({1!r}, not {0!r})"
)


POOL_HEADINGS: frozenset[str] = frozenset(
    fold(name) for name in ("Unassigned edges", "Unzugeordnete Kanten", "Atanmamış bağlantılar")
)
"""Headings (folded) of the section holding a document's candidate edges."""


_BARE_NUMBER = re.compile(r"^(?P<num>\d{1,3}(?:\.\d{1,3})*|[A-Z](?:\.\d{1,3})+)(?:\.|\))?(?=\s|$)")


_WORDED_NUMBER = re.compile(
    r"^(?:section|sect|clause|article|art|madde|bolum|kisim|abschnitt|artikel|ziffer"
    r"|paragraph|para|§)\.?\s*(?P<num>\d{1,3}(?:\.\d{1,3})*)(?:\.|\))?(?=\W|$)"
)


_LEADING_SEPARATOR = re.compile(r"^[\s\-–—:.]+")


_LAW_AFTER_NUMBER = re.compile(
    r"^\W*(?:(?:of(?: the)?|des|der|dem|sayili)\s+)?(?:gdpr|dsgvo|bdsg|bgb|hgb|uwg|stgb"
    r"|kvkk|tbk|ttk|hmk|far|dfars|cfr|usc|u\s?s\s?c|ucc)\b"
    r"|\bof the [\w\s]*\b(?:act|law|regulation|directive)\b|\bact of \d{4}\b"
)
"""After a worded number, the name of a law or standard: ``Article 5 GDPR``, ``§ 307
BGB``, ``Madde 6 KVKK``, ``Section 508 of the Rehabilitation Act``. Abbreviations of the
laws contracts commonly cite (EU GDPR/DSGVO, German BGB/HGB/BDSG/UWG/StGB, Turkish
KVKK/TBK/TTK/HMK, US FAR/DFARS/CFR/U.S.C./UCC)."""


MAX_WORDED_SECTION = 99
"""A worded number with one component above this is a citation: contracts rarely have
a hundred top-level sections, laws do (``Section 508``, ``§ 307 BGB``)."""


_MARKED_NUMBER = re.compile(r"^\d(?:[\d.]|\*{1,3}|_{1,3})*")


def _unmark_number(text: str) -> str:
    """``text`` with the emphasis markers removed from its leading number.

    CommonMark leaves ``**`` literal where it touches a digit on one side and a dot on
    the other, so a heading printed as bold in parts (``5**.0** TASKS``, ``6**.6.**4
    Delivery``, ``6**.0 OPERATIONAL REQUIREMENTS**``, all in the e-QIP PWS) reaches the
    parser with the asterisks in its number; rendered, the reader sees ``5.0``,
    ``6.6.4`` and ``6.0``. The markers are dropped from the number, and when the number
    held an odd count of marker runs (its partner closes the title), that same run is
    dropped from the end of the title. Text whose number holds no marker is returned
    as it is."""
    match = _MARKED_NUMBER.match(text)
    if match is None or not any(c in "*_" for c in match.group()):
        return text
    prefix, rest = match.group(), text[match.end() :]
    runs = re.findall(r"\*+|_+", prefix)
    if len(runs) % 2 and rest.endswith(runs[-1]):
        rest = rest[: -len(runs[-1])].rstrip()
    return re.sub(r"[*_]", "", prefix) + rest


def clause_number(heading: str, *, worded: bool = True) -> tuple[str | None, str]:
    """``(number, title)`` of a heading's text.

    ``"3.2 Single sign-on"`` -> ``("3.2", "Single sign-on")``; ``"1. Scope"`` ->
    ``("1", "Scope")``; ``"Madde 2 – Ücret"`` -> ``("2", "Madde 2 – Ücret")`` (a worded
    number stays in the title); ``"Payment terms"`` -> ``(None, "Payment terms")``.
    Components have at most three digits, so ``2024 Roadmap`` has no number.

    A number after a citing word (Section, Article, Paragraph, §, Madde, Artikel,
    Abschnitt ...) is the heading's own number only when ``worded`` (the parser passes
    False for a document that numbers its sections with bare numbers, where ``Section
    508 Compliance`` or ``§ 4 Haftung`` cite a law or another document), when it is not
    followed by the name of a law (:data:`_LAW_AFTER_NUMBER`: ``Article 5 GDPR``) and
    when a one-part number is at most :data:`MAX_WORDED_SECTION`. Otherwise the heading
    has no number: ``"Section 508 Compliance"`` -> ``(None, "Section 508 Compliance")``.
    Names of standards (``ISO 27001``, ``FAR 52.246-6``) never give a number.
    """
    text = _unmark_number(" ".join(heading.split()))
    match = _BARE_NUMBER.match(text)
    if match:
        title = _LEADING_SEPARATOR.sub("", text[match.end() :])
        return match.group("num"), title
    folded = fold(text)
    match = _WORDED_NUMBER.match(folded)
    if (
        match
        and worded
        and not _LAW_AFTER_NUMBER.search(folded[match.end() :])
        and ("." in match.group("num") or int(match.group("num")) <= MAX_WORDED_SECTION)
    ):
        return match.group("num"), text
    return None, text


def _normalize_number(number: str) -> str:
    """Printed number -> comparison form: ``2.0`` and ``2`` are the same section."""
    parts = number.split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def _parent_numbers(norm: str) -> list[str]:
    parts = norm.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


_EXCLUSION = re.compile(
    r"\bout of scope\b|\bnot in scope\b|\bexclu(?:de|ded|des|ding|sion|sions)\b"
    r"|\bnot included\b|\bnot covered\b|\bkapsam disi\w*|\bkapsamdisi\w*|\bharic\b"
    r"|\bdahil degil\w*|\bausgeschlossen\w*|\b\w*ausschluss\w*|\b\w*ausschlusse\b"
    r"|\bnicht im leistungsumfang\b|\bnicht (?:enthalten|umfasst|inbegriffen)\b"
)


_ASSUMPTION = re.compile(
    r"\bassum(?:e|ed|es|ption|ptions)\b|\bvarsayim\w*|\bannahme\w*|\bdependenc(?:y|ies)\b"
    r"|\bprerequisites?\b|\bon kosul\w*|\bvoraussetzung\w*|\bbagimlilik\w*"
    r"|\babhangigkeit\w*|\bmitwirkung\w*|\b(?:client|customer) (?:responsibilit|obligation)\w*"
)


_SLA = re.compile(
    r"\bservice levels?\b|\bservicelevel\w*|\bslas?\b|\bavailability\b|\buptime\b"
    r"|\b(?:response|resolution) times?\b|\bhizmet seviye\w*|\byanit sure\w*"
    r"|\bcozum sure\w*|\bverfugbarkeit\w*|\breaktionszeit\w*|\bwiederherstellungszeit\w*"
)


_SCOPE_CUE = re.compile(
    r"\bscope\b|\binclu(?:de|ded|des|sion|sions)\b|\bkapsam\w*|\bdahil\w*"
    r"|\bleistungsumfang\b|\bumfang\b|\benthalten\b"
)


_CONJUNCTION = re.compile(r"\b(?:and|or|ve|veya|ile|und|oder|sowie)\b")


_CATEGORIES = (("exclusion", _EXCLUSION), ("assumption", _ASSUMPTION), ("sla", _SLA))


def heading_category(heading: str) -> str | None:
    """``exclusion``, ``assumption`` or ``sla`` when ``heading`` names exactly one of them,
    else None. A mixed heading names none: ``Scope and exclusions`` (a scope word joined
    to the exclusion by and/ve/und/``,``/``&``), ``Assumptions and service levels``;
    ``Scope exclusions`` is an exclusion heading. A heading
    that is exactly a kind name (frontmatter ``kind``) is that kind."""
    if heading in CLAUSE_KINDS:
        return None if heading == "inclusion" else heading
    folded = " ".join(words(heading))
    found = [name for name, pattern in _CATEGORIES if pattern.search(folded)]
    if len(found) != 1:
        return None
    if (
        found[0] == "exclusion"
        and _SCOPE_CUE.search(_EXCLUSION.sub(" ", folded))
        and (_CONJUNCTION.search(folded) or any(c in heading for c in "&/,;+"))
    ):
        return None
    return found[0]


def clause_kind(headings: Sequence[str]) -> str:
    """The kind of a clause from its own heading and its enclosing headings.

    ``exclusion`` when any of ``headings`` is an exclusion heading (out of scope,
    exclusions, not included, kapsam dışı, hariç, ausgeschlossen, nicht im
    Leistungsumfang ...); else ``assumption`` when any is an assumption heading
    (assumptions, varsayımlar, Annahmen, dependencies ...); else ``sla`` when any is a
    service-level heading (service level, SLA, availability, response time, hizmet
    seviyesi ...); else ``inclusion``. So ``Availability of third-party interfaces``
    under ``Assumptions`` is an assumption. Each heading is judged by
    :func:`heading_category` on :func:`etki.text.words` (folded), so mixed headings such
    as ``Scope and exclusions`` do not turn everything below them into exclusions.
    """
    found = {heading_category(h) for h in headings}
    for kind in ("exclusion", "assumption", "sla", "context"):
        if kind in found:
            return kind
    return "inclusion"


_NODE_PREFIXES = ("module:", "workitem:", "clause:")


def link_target(
    target: str,
    heading: str | None,
    contract_id: str,
    module_ids: Collection[str] = (),
    workitem_ids: Collection[str] = (),
) -> str:
    """Node id a link points at, as far as one document can tell.

    ``module:auth`` / ``workitem:WI-1`` / ``clause:MSA#3.2`` stay as written;
    ``MSA#3.2`` (target with heading) -> ``clause:MSA#3.2`` (``#3.2`` alone means this
    contract); a bare name that is a known module or work item id gets its prefix; any
    other bare name is returned unchanged and resolved (or reported) by the index build.
    The part after ``#`` may be a number or a heading title; the index resolves it.
    """
    target = target.strip()
    if heading is not None:
        if target.startswith("clause:"):
            target = target[len("clause:") :]
        return f"clause:{target or contract_id}#{heading.strip()}"
    for prefix in _NODE_PREFIXES:
        if target.startswith(prefix):
            return prefix + target[len(prefix) :].strip()
    if "#" in target:
        contract, _, head = target.partition("#")
        return f"clause:{contract.strip() or contract_id}#{head.strip()}"
    if target in module_ids:
        return f"module:{target}"
    if target in workitem_ids:
        return f"workitem:{target}"
    return target


def _default_type(target_id: str, kind: str) -> str:
    if target_id.startswith("module:"):
        return "excludes" if kind == "exclusion" else "covers"
    if target_id.startswith("clause:"):
        return "cites"
    return "relates_to"


@dataclass
class _Link:
    target: str  # node id (or bare name)
    type: str | None  # canonical type when the link named one
    line: int  # file line, for errors
    text: str = ""  # as written: "[[MSA#3.2|SSO]]", "frontmatter edges[0]: ..."
