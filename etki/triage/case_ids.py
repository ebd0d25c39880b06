"""Case ids: the stable, short id a stored request gets (``req-{project}-{digest}``).

:func:`case_id_for` derives the id from the project and request ids (SHA-256, 8 hex
digits by default); :func:`assign_case_ids` hands out ids to new requests of a project so
that a collision of the short digest never drops a request and an erased case's id is
never given again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

__all__ = ["CASE_ID_DIGITS", "assign_case_ids", "case_id_for"]

CASE_ID_DIGITS = (8, 12, 16, 24, 32, 64)
"""Hex digits of the case-id digest, shortest first. 8 digits (32 bits) keep ids short
for people; two requests of one project meet in 8 digits with probability about
n^2 / 2^33 (birthday bound: 69% for n = 100,000), so :func:`assign_case_ids` moves the
later request of a colliding pair to the next length."""


def case_id_for(project_id: str, request_id: str, digits: int = 8) -> str:
    """Stable case id: ``req-{project_id}-{h}`` where ``h`` is the first ``digits`` hex
    digits (one of :data:`CASE_ID_DIGITS`) of SHA-256 of ``project_id + "\\0" +
    request_id`` (UTF-8). Two requests may share the 8-digit id; stored ids are handed
    out by :func:`assign_case_ids`, which resolves that.

    >>> case_id_for("demo", "R-1") == case_id_for("demo", "R-1")
    True
    """
    if digits not in CASE_ID_DIGITS:
        raise ValueError(f"digits must be one of {CASE_ID_DIGITS}, not {digits!r}")
    digest = hashlib.sha256((project_id + "\0" + request_id).encode("utf-8")).hexdigest()
    return f"req-{project_id}-{digest[:digits]}"


def assign_case_ids(
    project_id: str, request_ids: Iterable[str], owners: Mapping[str, str | None]
) -> dict[str, str | None]:
    """Case ids for new requests of ``project_id``, in order, never reusing a taken id.

    ``owners`` maps each case id already in use to the request id that holds it, or to
    ``None`` for an erased case (its tombstone keeps no request id). For each request the
    8-digit :func:`case_id_for` id is taken when free; when another request holds it,
    the next length of :data:`CASE_ID_DIGITS` is tried, and so on, so a collision never
    drops a request. A request whose walk reaches an erased case's id maps to ``None``:
    erased requests are never stored again (a request that merely collides with an
    erased one is skipped too — the tombstone keeps no request id to tell them apart;
    at 8 digits that is about n / 2^32 per erased case).

    Returns {request id: case id or None}; request ids that ``owners`` already lists
    as holders keep their stored id. Raises ``ValueError`` if all 64 hex digits collide
    (a SHA-256 collision)."""
    taken = dict(owners)
    held = {req: cid for cid, req in taken.items() if req is not None}
    out: dict[str, str | None] = {}
    for request_id in request_ids:
        if request_id in held:
            out[request_id] = held[request_id]
            continue
        candidate: str | None = None
        for digits in CASE_ID_DIGITS:
            candidate = case_id_for(project_id, request_id, digits)
            if candidate not in taken or taken[candidate] is None:
                break  # free, or erased: the walk that gave this request its id ends here
        else:
            raise ValueError(f"request {request_id!r}: every case id length is taken")
        if candidate in taken:  # an erased case: never stored again
            out[request_id] = None
            continue
        taken[candidate] = request_id
        held[request_id] = candidate
        out[request_id] = candidate
    return out
