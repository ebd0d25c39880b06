"""Reading the gate model's VALID / INVALID answer (one job: a verdict or None).

:func:`parse_verdict` reads the answer however it is wrapped: control tokens (``<s>``,
``</s>``, ``<|im_end|>``, ``[OUT]``, ``[/INST]``), JSON inside prose
(``Sure! {"answer": "VALID"}``, found by the bounded :func:`etki.endpoints.json_objects`),
code fences, any letter case. An answer naming both or neither is unreadable (None),
never guessed. The request itself is :class:`etki.endpoints.ChatClient`'s.
"""

from __future__ import annotations

import re

from etki.endpoints import json_objects
from etki.text import fold

__all__ = ["parse_verdict"]

_CONTROL = re.compile(r"<\|?/?[A-Za-z_][\w|]{0,24}\|?>|\[/?[A-Z][A-Z_]{0,15}\]")
_FENCE = re.compile(r"```[a-zA-Z]*")
_WORDS = re.compile(r"[A-Za-z]+")
_ANSWER_KEYS = ("answer", "verdict", "result", "label", "decision", "valid", "output")


def _from_value(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _from_words(value)
    return None


def _from_words(text: str) -> bool | None:
    found = {fold(w) for w in _WORDS.findall(text)} & {"valid", "invalid"}
    if found == {"valid"}:
        return True
    if found == {"invalid"}:
        return False
    return None


def parse_verdict(answer: str) -> bool | None:
    """True for VALID, False for INVALID, None when the answer cannot be read (see the
    module docstring). A JSON object with an ``answer``/``verdict``/``result``/``label``/
    ``decision``/``valid``/``output`` field decides first; else the bare words do.

    >>> parse_verdict('<s>[OUT] {"answer": "INVALID"} [/OUT]</s>')
    False
    """
    text = _FENCE.sub(" ", _CONTROL.sub(" ", answer))
    for obj in json_objects(text):
        lowered = {fold(str(k)): v for k, v in obj.items()}
        for key in _ANSWER_KEYS:
            if key in lowered:
                found = _from_value(lowered[key])
                if found is not None:
                    return found
    return _from_words(text)
