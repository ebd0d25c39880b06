"""JSON objects inside a model's prose (one job: find them, within a bound).

Models wrap the JSON they were asked for in prose, code fences or control tokens
(``Sure! {"answer": "VALID"}``). :func:`json_objects` finds the top-level objects by
trying :meth:`json.JSONDecoder.raw_decode` at each ``{``. It is bounded three ways, so a
long or hostile answer costs a fixed amount of work: only the first
:data:`MAX_SCAN_CHARS` characters are scanned, at most :data:`MAX_OBJECTS` objects are
returned, and at most :data:`MAX_STARTS` decode attempts are made.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_OBJECTS", "MAX_SCAN_CHARS", "MAX_STARTS", "json_objects"]

MAX_SCAN_CHARS = 20_000
"""Only this many characters of an answer are searched for JSON. Etki's prompts ask for
one small object (a tool call, a verdict); 20 000 characters is far more than any honest
answer to them needs."""

MAX_OBJECTS = 20
"""At most this many JSON objects are read from one answer."""

MAX_STARTS = 256
"""At most this many ``{`` positions are tried (a decoded object is skipped whole, so its
inner braces cost nothing). Text full of braces that never close, where each attempt may
read to the end of the scanned text or to the recursion limit, then costs at most this
many passes over :data:`MAX_SCAN_CHARS` characters (about 0.1 s), not one per brace."""


def json_objects(text: str) -> list[dict[str, Any]]:
    """The top-level JSON objects in ``text``, in order (an object inside another is
    part of it, not returned on its own; arrays and scalars are skipped). Bounded as
    the module docstring says. Never raises."""
    text = text[:MAX_SCAN_CHARS]
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    i = starts = 0
    while len(found) < MAX_OBJECTS and starts < MAX_STARTS:
        j = text.find("{", i)
        if j < 0:
            break
        starts += 1
        try:
            obj, end = decoder.raw_decode(text, j)
        except (json.JSONDecodeError, RecursionError):
            i = j + 1
            continue
        if isinstance(obj, dict):
            found.append(obj)
        i = end
    return found
