"""The edge vocabulary: the single source of truth for edge types (DESIGN.md, "Knowledge
index").

Every edge of the knowledge index carries a *canonical* type from this vocabulary.
Aliases map to a canonical type (``requires``, ``needs`` -> ``depends_on``); names are
compared after :func:`etki.text.fold` with spaces and hyphens read as ``_``, so
``Depends-On`` is ``depends_on``. An unknown type raises
:class:`etki.errors.VocabularyError` listing the allowed types; it is never kept silently.

A project may add types and aliases in ``edge_vocabulary.yaml``::

    types:                 # new canonical types: a list, or a mapping type -> aliases
      funds: [pays_for, finances]
    aliases:               # alias -> canonical type (new, or redirecting a default alias)
      blocks: depends_on
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from etki.errors import ProjectFormatError, VocabularyError
from etki.frontmatter import load_yaml, locate, normalize_newlines
from etki.text import fold

__all__ = [
    "DEFAULT_TYPES",
    "DEFAULT_VOCABULARY",
    "EdgeVocabulary",
    "UnknownEdgeTypeError",
    "load_vocabulary",
    "normalize_type_name",
]

DEFAULT_TYPES: dict[str, tuple[str, ...]] = {
    "depends_on": ("requires", "needs", "depends", "uses", "imports", "relies_on"),
    "touches": ("modifies", "changes", "affects", "updates"),
    "implements": ("realizes", "realises", "fulfils", "fulfills", "delivers"),
    "covers": ("includes", "in_scope", "scopes"),
    "excludes": ("out_of_scope", "excluded", "not_covered"),
    "cites": ("references", "refers_to", "mentions", "see"),
    "relates_to": ("related", "related_to", "see_also", "links_to", "link"),
    "part_of": ("child_of", "belongs_to", "within"),
}
"""Canonical edge types and their default aliases.

* ``depends_on``: module -> module it needs (``modules.yaml`` ``depends_on``).
* ``touches``: work item -> module it changed.
* ``implements``: work item or module -> clause it delivers.
* ``covers`` / ``excludes``: clause -> module the clause puts in / out of scope.
* ``cites``: clause -> clause it refers to.
* ``relates_to``: anything else worth a link.
* ``part_of``: clause -> enclosing clause (derived from the heading structure).
"""

_NAME = re.compile(r"[a-z][a-z0-9_]*")


class UnknownEdgeTypeError(ProjectFormatError, VocabularyError):
    """An unknown edge type found in a project file: both a ProjectFormatError (file,
    line, field) and a VocabularyError (the allowed types are listed)."""


def normalize_type_name(name: str) -> str:
    """``"Depends-On "`` -> ``"depends_on"``: folded, spaces and hyphens become ``_``."""
    return re.sub(r"[\s\-]+", "_", fold(name).strip())


@dataclass(frozen=True)
class EdgeVocabulary:
    """Canonical edge ``types`` (sorted) and ``aliases`` ((alias, canonical) sorted)."""

    types: tuple[str, ...]
    aliases: tuple[tuple[str, str], ...] = ()

    def _table(self) -> dict[str, str]:
        table = {t: t for t in self.types}
        table.update(dict(self.aliases))
        return table

    def is_known(self, name: str) -> bool:
        """True when ``name`` is a canonical type or an alias."""
        return normalize_type_name(name) in self._table()

    def canonical(self, name: str) -> str:
        """The canonical type of ``name`` (itself or an alias).

        Raises VocabularyError naming the unknown type and listing the allowed types and
        aliases.
        """
        found = self._table().get(normalize_type_name(name))
        if found is None:
            raise VocabularyError(self.unknown_message(name))
        return found

    def unknown_message(self, name: str) -> str:
        """The message for an unknown type ``name`` (used by every error about it)."""
        aliases = ", ".join(f"{a}->{c}" for a, c in self.aliases)
        return (f"unknown edge type {name!r}; allowed types: {', '.join(self.types)}"
                f" (aliases: {aliases}); add it to edge_vocabulary.yaml to use it")

    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Every known name with its canonical type, canonical types mapping to
        themselves, sorted: the shape of ``Project.edge_types``."""
        return tuple(sorted(self._table().items()))

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> EdgeVocabulary:
        """Rebuild a vocabulary from :meth:`pairs` output (``Project.edge_types``)."""
        items = list(pairs)
        types = sorted({c for _, c in items})
        aliases = sorted((a, c) for a, c in items if a != c)
        return cls(tuple(types), tuple(aliases))

    def extended(self, types: Mapping[str, Iterable[str]] | None = None,
                 aliases: Mapping[str, str] | None = None) -> EdgeVocabulary:
        """A new vocabulary with more canonical ``types`` (type -> its aliases) and
        ``aliases`` (alias -> canonical type). A project alias may redirect a default
        alias; it may not rename a canonical type. Raises VocabularyError on a bad name, an
        alias of an unknown type, or an alias equal to a canonical type."""
        canon = set(self.types)
        table = dict(self.aliases)
        new_aliases: dict[str, str] = {}
        for raw, alias_list in (types or {}).items():
            name = normalize_type_name(raw)
            if not _NAME.fullmatch(name):
                raise VocabularyError(f"bad edge type name {raw!r}: use letters, digits and _")
            if name in table:
                raise VocabularyError(
                    f"edge type {raw!r} is already an alias of {table[name]!r}")
            canon.add(name)
            for alias in alias_list:
                new_aliases[normalize_type_name(alias)] = name
        for raw, target in (aliases or {}).items():
            new_aliases[normalize_type_name(raw)] = normalize_type_name(target)
        for alias, target in new_aliases.items():
            if not _NAME.fullmatch(alias):
                raise VocabularyError(f"bad alias name {alias!r}: use letters, digits and _")
            if alias in canon:
                raise VocabularyError(f"alias {alias!r} is already a canonical edge type")
            if target not in canon:
                raise VocabularyError(
                    f"alias {alias!r} points to {target!r}, which is not an edge type; "
                    f"edge types: {', '.join(sorted(canon))}")
            table[alias] = target
        return EdgeVocabulary(tuple(sorted(canon)), tuple(sorted(table.items())))


DEFAULT_VOCABULARY = EdgeVocabulary(
    tuple(sorted(DEFAULT_TYPES)),
    tuple(sorted((alias, canon) for canon, aliases in DEFAULT_TYPES.items()
                 for alias in aliases)),
)
"""The vocabulary of a project without ``edge_vocabulary.yaml``."""


def load_vocabulary(path: str | Path,
                    base: EdgeVocabulary = DEFAULT_VOCABULARY) -> EdgeVocabulary:
    """Read ``edge_vocabulary.yaml`` at ``path`` and extend ``base`` with it.

    Raises ProjectFormatError naming the file, the line and the field (``types``,
    ``aliases.blocks`` ...) for malformed YAML, wrong shapes or a bad alias.
    """
    path = Path(path)
    where = str(path)
    try:
        text = normalize_newlines(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ProjectFormatError(where, f"cannot read edge vocabulary: {exc}") from exc
    data = load_yaml(text, where)
    if data is None:
        return base
    if not isinstance(data, dict):
        raise ProjectFormatError(where, "must be a mapping with 'types' and/or 'aliases'",
                                 line=1)
    unknown = sorted(str(k) for k in data if k not in ("types", "aliases"))
    if unknown:
        raise ProjectFormatError(where, "unknown key; allowed keys: types, aliases",
                                 line=locate(text, [unknown[0]]), field=unknown[0])
    raw_types = data.get("types") or {}
    if isinstance(raw_types, list):
        raw_types = {t: [] for t in raw_types}
    if not isinstance(raw_types, dict):
        raise ProjectFormatError(where, "must be a list of type names or a mapping "
                                 "type -> [aliases]", line=locate(text, ["types"]),
                                 field="types")
    types: dict[str, list[str]] = {}
    for name, aliases in raw_types.items():
        field = f"types.{name}"
        if not isinstance(name, str):
            raise ProjectFormatError(where, "type names must be strings",
                                     line=locate(text, ["types"]), field="types")
        if aliases is None:
            aliases = []
        if isinstance(aliases, str):
            aliases = [aliases]
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise ProjectFormatError(where, "aliases must be a list of strings",
                                     line=locate(text, ["types", name]), field=field)
        types[name] = aliases
    raw_aliases = data.get("aliases") or {}
    if not isinstance(raw_aliases, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in raw_aliases.items()):
        raise ProjectFormatError(where, "must be a mapping alias -> canonical type",
                                 line=locate(text, ["aliases"]), field="aliases")
    try:
        vocabulary = base.extended(types, None)
    except VocabularyError as exc:
        raise ProjectFormatError(where, str(exc), line=locate(text, ["types"]),
                                 field="types") from exc
    for alias, target in raw_aliases.items():
        try:
            vocabulary = vocabulary.extended(None, {alias: target})
        except VocabularyError as exc:
            raise ProjectFormatError(where, str(exc), line=locate(text, ["aliases", alias]),
                                     field=f"aliases.{alias}") from exc
    return vocabulary
