"""A contract document's frontmatter (part of :mod:`etki.knowledge.contracts`): id, kind,
title, ``edges``, ``status`` / ``clause_status`` and ``candidates``, each checked; a bad
value raises :class:`etki.errors.ProjectFormatError` naming the file, the YAML line and
the field (an unknown edge type :class:`etki.knowledge.vocabulary.UnknownEdgeTypeError`).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from etki.domain import CLAUSE_KINDS, CLAUSE_STATUSES, Edge
from etki.errors import ProjectFormatError, VocabularyError
from etki.frontmatter import frontmatter_block, locate, normalize_newlines, split_frontmatter
from etki.knowledge.contracts.numbering import _REVERSED_CANDIDATE, _Link, link_target
from etki.knowledge.provenance import PROVENANCE_WEIGHTS
from etki.knowledge.vocabulary import (
    EdgeSignatureError,
    EdgeVocabulary,
    UnknownEdgeTypeError,
)
from etki.text import fold


class _Frontmatter:
    """The frontmatter of one contract document: its id, kind, title, edges, statuses and
    candidate edges, each checked, a bad value raised as a ProjectFormatError naming the
    file, the YAML line and the field. The body (after the frontmatter) is ``body``."""

    def __init__(
        self,
        text: str,
        path: str,
        source: str,
        vocabulary: EdgeVocabulary,
        module_ids: Collection[str],
        workitem_ids: Collection[str],
    ) -> None:
        self.path, self.source, self.vocabulary = path, source, vocabulary
        self.module_ids, self.workitem_ids = module_ids, workitem_ids
        self.meta, self.body = split_frontmatter(text, path)
        self.yaml_text, _, self.first_line = frontmatter_block(normalize_newlines(text))

    def _meta_error(self, problem: str, keys: list[str | int], fld: str) -> ProjectFormatError:
        line = locate(self.yaml_text or "", keys, first_line=2) if self.yaml_text else None
        return ProjectFormatError(self.path, problem, line=line, field=fld)

    def contract_id(self) -> str:
        raw = self.meta.get("id", Path(self.source).stem)
        if not isinstance(raw, str) or not raw.strip():
            raise self._meta_error("contract id must be a non-empty string", ["id"], "id")
        cid = raw.strip()
        if any(c in cid for c in "#|[]/\\") or any(ord(c) < 0x20 for c in cid):
            raise self._meta_error(
                f"contract id {cid!r} may not contain # | [ ] / \\ or control characters",
                ["id"],
                "id",
            )
        return cid

    def meta_kind(self) -> str | None:
        kind = self.meta.get("kind")
        if kind is None:
            return None
        if kind not in CLAUSE_KINDS:
            raise self._meta_error(
                f"kind must be one of {', '.join(CLAUSE_KINDS)}", ["kind"], "kind"
            )
        return str(kind)

    def meta_title(self) -> str | None:
        title = self.meta.get("title")
        if title is None:
            return None
        if not isinstance(title, str):
            raise self._meta_error("title must be a string", ["title"], "title")
        return " ".join(title.split()) or None

    def meta_edges(self, contract_id: str) -> list[_Link]:
        raw = self.meta.get("edges")
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise self._meta_error("edges must be a list of {type, target}", ["edges"], "edges")
        links: list[_Link] = []
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise self._meta_error(
                    "each edge must be a mapping {type, target}", ["edges", i], f"edges[{i}]"
                )
            for key in ("type", "target"):
                if not isinstance(item.get(key), str) or not item[key].strip():
                    raise self._meta_error(
                        f"'{key}' is required and must be a string",
                        ["edges", i, key],
                        f"edges[{i}].{key}",
                    )
            try:
                etype = self.vocabulary.canonical(item["type"])
            except VocabularyError as exc:
                line = locate(self.yaml_text or "", ["edges", i, "type"], first_line=2)
                raise UnknownEdgeTypeError(
                    self.path, str(exc), line=line, field=f"edges[{i}].type"
                ) from exc
            target = link_target(
                item["target"], None, contract_id, self.module_ids, self.workitem_ids
            )
            line = locate(self.yaml_text or "", ["edges", i], first_line=2) or 1
            links.append(
                _Link(target, etype, line, f"edges[{i}]: {item['type']} -> {item['target']}")
            )
        return links

    def meta_status(self) -> tuple[str, dict[str, tuple[str, int]]]:
        """Frontmatter ``status`` (default ``stable``) and ``clause_status`` as
        number -> (status, file line). Raises ProjectFormatError for another value."""

        def status_of(value: object, keys: list[str | int], fld: str) -> str:
            folded = fold(value) if isinstance(value, str) else None
            if folded not in CLAUSE_STATUSES:
                raise self._meta_error(
                    f"status must be one of {', '.join(CLAUSE_STATUSES)}, not {value!r}", keys, fld
                )
            return folded

        default = "stable"
        if self.meta.get("status") is not None:
            default = status_of(self.meta["status"], ["status"], "status")
        raw = self.meta.get("clause_status")
        if raw is None:
            return default, {}
        if not isinstance(raw, dict):
            raise self._meta_error(
                "clause_status must be a mapping clause number -> status",
                ["clause_status"],
                "clause_status",
            )
        out: dict[str, tuple[str, int]] = {}
        for number, value in raw.items():
            keys: list[str | int] = ["clause_status", str(number)]
            line = locate(self.yaml_text or "", keys, first_line=2) or 1
            out[str(number)] = (status_of(value, keys, f"clause_status.{number}"), line)
        return default, out

    def meta_candidates(self, contract_id: str) -> list[Edge]:
        """Frontmatter ``candidates: [{target, type?, source?}]`` as pool edges (source
        ``clause:{contract}#{source}`` or ``""``, type canonical or ``""``)."""
        raw = self.meta.get("candidates")
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise self._meta_error(
                "candidates must be a list of {target, type, source}", ["candidates"], "candidates"
            )
        out: list[Edge] = []
        for i, item in enumerate(raw):
            fld = f"candidates[{i}]"
            if not isinstance(item, dict):
                raise self._meta_error(
                    "each candidate must be a mapping {target, type, source}",
                    ["candidates", i],
                    fld,
                )
            for key in ("target", "type", "source"):
                value = item.get(key)
                if key == "target" and value is None:
                    raise self._meta_error("'target' is required", ["candidates", i], fld)
                if value is not None and (not isinstance(value, str) or not value.strip()):
                    raise self._meta_error(
                        f"'{key}' must be a non-empty string",
                        ["candidates", i, key],
                        f"{fld}.{key}",
                    )
            etype = ""
            if item.get("type") is not None:
                try:
                    etype = self.vocabulary.canonical(item["type"])
                except VocabularyError as exc:
                    line = locate(self.yaml_text or "", ["candidates", i, "type"], first_line=2)
                    raise UnknownEdgeTypeError(
                        self.path, str(exc), line=line, field=f"{fld}.type"
                    ) from exc
            line = locate(self.yaml_text or "", ["candidates", i], first_line=2) or 1
            source = item.get("source")
            target = link_target(
                item["target"], None, contract_id, self.module_ids, self.workitem_ids
            )
            if etype in self.vocabulary.reversed_names:
                raise self._meta_error(
                    _REVERSED_CANDIDATE.format(etype, self.vocabulary.inverse(etype)),
                    ["candidates", i, "type"],
                    f"{fld}.type",
                )
            if etype:
                try:
                    self.vocabulary.checked(f"clause:{contract_id}#x", target, etype)
                except VocabularyError as exc:
                    raise EdgeSignatureError(
                        self.path, str(exc), line=line, field=f"{fld}.type"
                    ) from exc
            written = ", ".join(
                f"{k}: {item[k]}" for k in ("source", "type", "target") if item.get(k) is not None
            )
            out.append(
                Edge(
                    f"clause:{contract_id}#{source.strip()}" if source else "",
                    target,
                    etype,
                    "mapped",
                    PROVENANCE_WEIGHTS["mapped"],
                    f"{self.source}:{line}",
                    f"candidates[{i}]: {{{written}}}",
                )
            )
        return out
