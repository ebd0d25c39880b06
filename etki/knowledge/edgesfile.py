"""The project's edges file, ``<project>/edges.yaml``: links a person accepted (``etki
index suggest --accept``) or wrote by hand. The loader reads them as ``mapped`` edges;
nothing else ever writes them, and nothing is written without an explicit accept.

::

    edges:
      - source: clause:MSA-2024-01#4.1      # node ids as in the index
        target: module:payments.gateway
        type: maps_to                        # any name of the edge vocabulary
        suggestion: s-1a2b3c4d               # optional: where it came from
        score: 92.5
        words: [payments, gateway]
        note: free text

Errors name the file, line and field (an unknown key, a missing field, an unknown type);
an edge whose ends name no node is not an error here: the index build reports it as
unresolved, with this file's line.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from etki.domain import Edge
from etki.errors import ProjectFormatError, VocabularyError
from etki.frontmatter import NoAliasSafeDumper, load_yaml, locate, normalize_newlines
from etki.knowledge.provenance import PROVENANCE_WEIGHTS
from etki.knowledge.vocabulary import EdgeSignatureError, EdgeVocabulary, UnknownEdgeTypeError

__all__ = ["EDGES_FILE", "accepted_entry", "accepted_ids", "load_edges", "write_edges"]

EDGES_FILE = "edges.yaml"
_KEYS = ("source", "target", "type", "suggestion", "score", "words", "note")
_HEADER = (
    "# Links accepted by a person (etki index suggest --accept) or written by hand.\n"
    "# Read by the loader as mapped edges of the knowledge index.\n"
)


def _raw(path: Path) -> tuple[str, list[Any]]:
    try:
        text = normalize_newlines(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ProjectFormatError(str(path), f"cannot read edges file: {exc}") from exc
    data = load_yaml(text, str(path))
    if data is None:
        return text, []
    if not isinstance(data, dict) or set(data) != {"edges"}:
        raise ProjectFormatError(str(path), "must be a mapping with one key, 'edges'", line=1)
    items = data["edges"] or []
    if not isinstance(items, list):
        raise ProjectFormatError(
            str(path), "'edges' must be a list", line=locate(text, ["edges"]), field="edges"
        )
    return text, items


def load_edges(
    path: str | Path, vocabulary: EdgeVocabulary, display: str = EDGES_FILE
) -> tuple[Edge, ...]:
    """The edges of the edges file at ``path`` as ``mapped`` edges (weight
    :data:`~etki.knowledge.provenance.PROVENANCE_WEIGHTS`, canonical type, location ``{display}:{line}``), in file order.

    Raises ProjectFormatError (file, line, field) for a malformed file or entry and
    :class:`UnknownEdgeTypeError` for a type the vocabulary lacks.
    """
    path = Path(path)
    text, items = _raw(path)
    out: list[Edge] = []
    for i, item in enumerate(items):
        fld = f"edges[{i}]"
        line = locate(text, ["edges", i])
        if not isinstance(item, dict):
            raise ProjectFormatError(
                str(path),
                "each edge must be a mapping {source, target, type}",
                line=line,
                field=fld,
            )
        for key in item:
            if key not in _KEYS:
                raise ProjectFormatError(
                    str(path),
                    f"unknown key; allowed keys: {', '.join(_KEYS)}",
                    line=locate(text, ["edges", i, str(key)]),
                    field=f"{fld}.{key}",
                )
        for key in ("source", "target", "type"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise ProjectFormatError(
                    str(path),
                    f"'{key}' is required and must be a string",
                    line=locate(text, ["edges", i, key]),
                    field=f"{fld}.{key}",
                )
        try:
            etype = vocabulary.canonical(item["type"])
        except VocabularyError as exc:
            raise UnknownEdgeTypeError(
                str(path), str(exc), line=locate(text, ["edges", i, "type"]), field=f"{fld}.type"
            ) from exc
        source, target = item["source"].strip(), item["target"].strip()
        written = f"{source} -[{item['type']}]-> {target}"
        try:
            source, target, etype = vocabulary.checked(source, target, etype)
        except VocabularyError as exc:
            raise EdgeSignatureError(
                str(path), f"{written}: {exc}", line=line, field=f"{fld}.type"
            ) from exc
        out.append(
            Edge(
                source,
                target,
                etype,
                "mapped",
                PROVENANCE_WEIGHTS["mapped"],
                f"{display}:{line}",
                written,
            )
        )
    return tuple(out)


def accepted_ids(path: str | Path) -> set[str]:
    """The ``suggestion`` ids recorded in the edges file at ``path`` (empty when it does
    not exist). Raises ProjectFormatError for a malformed file."""
    path = Path(path)
    if not path.is_file():
        return set()
    return {
        str(e["suggestion"]) for e in _raw(path)[1] if isinstance(e, dict) and e.get("suggestion")
    }


def accepted_entry(
    source: str,
    target: str,
    etype: str,
    *,
    suggestion: str | None = None,
    score: float | None = None,
    words: Iterable[str] = (),
) -> dict[str, Any]:
    """One entry of the edges file, in the order it is written."""
    entry: dict[str, Any] = {"source": source, "target": target, "type": etype}
    if suggestion:
        entry["suggestion"] = suggestion
    if score is not None:
        entry["score"] = score
    words = list(words)
    if words:
        entry["words"] = words
    return entry


def write_edges(path: str | Path, entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add ``entries`` to the edges file at ``path`` (created when missing), keeping its
    entries and skipping any (source, target, type) already there. Written atomically
    (temp file + rename). Returns the entries actually added. Raises ProjectFormatError
    when the existing file is malformed (it is then left untouched)."""
    path = Path(path)
    existing = _raw(path)[1] if path.is_file() else []
    keys = {
        (e.get("source"), e.get("target"), e.get("type")) for e in existing if isinstance(e, dict)
    }
    added = []
    for entry in entries:
        key = (entry["source"], entry["target"], entry["type"])
        if key not in keys:
            keys.add(key)
            added.append(entry)
    if not added:
        return []
    body = yaml.dump(
        {"edges": existing + added},
        Dumper=NoAliasSafeDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=None,
        width=2**31 - 1,
    )
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(_HEADER + body)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(path)  # a full disk names the file (issue 11 item 8)
        raise
    return added
