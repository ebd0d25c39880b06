"""Cross-encoder rerank client (one job: score candidate texts against a question).

Configured by ``ETKI_RERANK_BASE_URL``: Hugging Face TEI's ``/rerank`` route
(``POST {base}/rerank`` unless the URL already ends in ``/rerank``) with
``{"query": str, "texts": [str], "truncate": true}``, answered by ``[{"index": int,
"score": float}, ...]``.

At most :data:`MAX_CANDIDATES` texts go out per call, with a hard deadline of
:data:`TIMEOUT` seconds (``ETKI_RERANK_TIMEOUT``) for the whole exchange, whatever the
server sends (:func:`etki.endpoints.post_json`).
The answer must give every index exactly once with a finite score; anything else raises
:class:`~etki.endpoints.EndpointError` and the caller keeps plain BFS packing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from urllib.parse import urlsplit

from etki.config import DEFAULT_RERANK_TIMEOUT
from etki.endpoints import EndpointError, join_url, post_json

__all__ = ["MAX_CANDIDATES", "TIMEOUT", "RerankClient"]

MAX_CANDIDATES = 100
"""At most this many candidates are sent to the reranker (issue 5, item 3)."""

TIMEOUT = DEFAULT_RERANK_TIMEOUT
"""Hard deadline of one rerank call, seconds: packing is an optimisation, so it may cost
a few seconds at most before plain BFS is used instead (the default of
``ETKI_RERANK_TIMEOUT``, :data:`etki.config.DEFAULT_RERANK_TIMEOUT`)."""


class RerankClient:
    """TEI ``/rerank`` at ``base_url``; ``timeout`` seconds hard deadline per call."""

    def __init__(self, base_url: str, *, timeout: float = TIMEOUT) -> None:
        path = urlsplit(base_url).path.rstrip("/")
        self.url = (
            base_url.rstrip("/") if path.endswith("/rerank") else join_url(base_url, "rerank")
        )
        self.timeout = timeout

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in the order given. Raises ``ValueError`` for more than
        :data:`MAX_CANDIDATES` texts and :class:`EndpointError` for any endpoint fault."""
        if len(texts) > MAX_CANDIDATES:
            raise ValueError(f"at most {MAX_CANDIDATES} rerank candidates, got {len(texts)}")
        if not texts:
            return []
        body = post_json(
            self.url,
            {"query": query, "texts": list(texts), "truncate": True},
            timeout=self.timeout,
            setting="ETKI_RERANK_TIMEOUT",
        ).body
        if not isinstance(body, list):
            raise EndpointError("body", "rerank answer is not a list")
        out: list[float | None] = [None] * len(texts)
        for item in body:
            idx = item.get("index") if isinstance(item, dict) else None
            score = item.get("score") if isinstance(item, dict) else None
            if (
                not isinstance(idx, int)
                or isinstance(idx, bool)
                or not 0 <= idx < len(texts)
                or out[idx] is not None
            ):
                raise EndpointError("body", "rerank indexes are out of range or repeated")
            if (
                isinstance(score, bool)
                or not isinstance(score, int | float)
                or not math.isfinite(score)
            ):
                raise EndpointError("body", "a rerank score is not a finite number")
            out[idx] = float(score)
        if any(s is None for s in out):
            raise EndpointError("body", "rerank answer misses some candidates")
        return [float(s) for s in out if s is not None]
