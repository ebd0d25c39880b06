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
  clause raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "DECIDING",
    "DISPUTED_SIGNAL",
    "RISK_WORDING",
    "EvidenceStep",
    "deciding_clause_text",
    "deciding_in_json",
    "deciding_ref",
    "risk_wording",
    "risk_wording_text",
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


def deciding_clause_text(ref: str, role: str, rule: str) -> str:
    """What the ``classify`` step appends to name the decisive clause ``ref`` (its
    sentence's ``role`` and the ``rule`` that gave the role):
    ``"; deciding sentence: REF (role, role rule: RULE)"``; read back by
    :func:`deciding_ref`."""
    return f"; {DECIDING}{ref} ({role}, role rule: {rule})"
