"""The edge vocabulary: the single source of truth for edge types (DESIGN.md, "Knowledge
index"; issue 4 item 5).

The default vocabulary is the file ``default_vocabulary.yaml`` shipped in this package;
it is read once, when this module is imported (:data:`DEFAULT_VOCABULARY`). It declares
canonical types with

* aliases in English, Turkish and German (``requires``, ``needs``, ``gerektirir``,
  ``benötigt`` -> ``depends_on``);
* an inverse (``depends_on``/``depended_by``, ``maps_to``/``mapped_by`` ...): an edge
  written with the inverse name is stored once, reversed, under the declared type
  (:meth:`EdgeVocabulary.orient`), so the index never holds both directions;
* an endpoint signature (``maps_to``: ``clause->module``); an edge whose endpoints do not
  fit raises :class:`EdgeSignatureError`.

Names are compared after :func:`etki.text.fold` with spaces and hyphens read as ``_``, so
``Depends-On`` is ``depends_on`` and ``Benötigt`` is ``benotigt``. An unknown type raises
:class:`etki.errors.VocabularyError` listing the allowed types; it is never kept silently.

A project may add types and aliases in ``edge_vocabulary.yaml``::

    types:                 # a list of names, or a mapping name -> aliases or -> a spec
      funds: [pays_for, finances]
      blocks:
        inverse: blocked_by
        signature: [clause->clause]
        aliases: {en: [prevents], de: [blockiert]}
    aliases:               # alias -> canonical type (new, or redirecting a default alias)
      hinders: blocks

A type declared without a signature may join any two nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from etki.errors import ProjectFormatError, VocabularyError
from etki.frontmatter import load_yaml, locate, normalize_newlines
from etki.text import fold

__all__ = [
    "DEFAULT_TYPES",
    "DEFAULT_VOCABULARY",
    "NODE_TYPES",
    "EdgeSignatureError",
    "EdgeVocabulary",
    "TypeSpec",
    "UnknownEdgeTypeError",
    "load_vocabulary",
    "node_type",
    "normalize_type_name",
    "parse_vocabulary",
]

NODE_TYPES: tuple[str, ...] = ("clause", "module", "workitem")
"""Node types a signature may name (``*`` is any); a chunk of a split clause is a clause."""
DEFAULT_FILE = "default_vocabulary.yaml"
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_SIGNATURE = re.compile(r"\s*([a-z*]+)\s*->\s*([a-z*]+)\s*")
_SPEC_KEYS = ("description", "signature", "inverse", "aliases", "inverse_aliases")


class UnknownEdgeTypeError(ProjectFormatError, VocabularyError):
    """An unknown edge type found in a project file: both a ProjectFormatError (file,
    line, field) and a VocabularyError (the allowed types are listed)."""


class EdgeSignatureError(ProjectFormatError, VocabularyError):
    """An edge whose endpoint node types do not fit its type's signature (``touches``
    from a clause). Carries the edge's file and line like a ProjectFormatError."""


def node_type(node_id: str) -> str | None:
    """The node type an id names by its prefix (``chunk:`` -> ``clause``), else None."""
    prefix = node_id.partition(":")[0] if ":" in node_id else ""
    return {"clause": "clause", "chunk": "clause", "module": "module", "workitem": "workitem"}.get(
        prefix
    )


def normalize_type_name(name: str) -> str:
    """``"Depends-On "`` -> ``"depends_on"``: folded, spaces and hyphens become ``_``."""
    return re.sub(r"[\s\-]+", "_", fold(name).strip())


@dataclass(frozen=True)
class TypeSpec:
    """One canonical type as declared in a vocabulary file: ``name``, its ``aliases``,
    ``inverse`` name (``None`` = none; the name itself = symmetric) with
    ``inverse_aliases``, ``signature`` ((source, target) node types; empty = any) and a
    ``description``."""

    name: str
    aliases: tuple[str, ...] = ()
    inverse: str | None = None
    inverse_aliases: tuple[str, ...] = ()
    signature: tuple[tuple[str, str], ...] = ()
    description: str = ""


@dataclass(frozen=True)
class EdgeVocabulary:
    """Canonical edge ``types`` (sorted, inverse names included) and ``aliases``
    ((alias, canonical) sorted); ``inverses`` ((name, inverse) both ways, sorted),
    ``reversed_names`` (inverse names stored reversed), ``signatures`` ((type,
    ((source, target), ...)) of the declared types) and ``descriptions``."""

    types: tuple[str, ...]
    aliases: tuple[tuple[str, str], ...] = ()
    inverses: tuple[tuple[str, str], ...] = ()
    reversed_names: tuple[str, ...] = ()
    signatures: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    descriptions: tuple[tuple[str, str], ...] = ()
    _table: dict[str, str] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        table = {t: t for t in self.types}
        table.update(dict(self.aliases))
        object.__setattr__(self, "_table", table)

    # -- names -------------------------------------------------------------------------

    def canonical(self, name: str) -> str:
        """The canonical type of ``name`` (itself, an alias, an inverse name or an alias
        of one). Raises VocabularyError naming the unknown type and listing the allowed
        types and aliases."""
        found = self._table.get(normalize_type_name(name))
        if found is None:
            raise VocabularyError(self.unknown_message(name))
        return found

    def unknown_message(self, name: str) -> str:
        """The message for an unknown type ``name`` (used by every error about it)."""
        aliases = ", ".join(f"{a}->{c}" for a, c in self.aliases)
        return (
            f"unknown edge type {name!r}; allowed types: {', '.join(self.types)}"
            f" (aliases: {aliases}); add it to edge_vocabulary.yaml to use it"
        )

    def inverse(self, name: str) -> str | None:
        """The inverse of canonical type ``name`` (``depends_on`` -> ``depended_by`` and
        back; a symmetric type is its own inverse), or None."""
        return dict(self.inverses).get(name)

    def orient(self, source: str, target: str, etype: str) -> tuple[str, str, str]:
        """``(source, target, type)`` stored the declared way round: an inverse name is
        reversed (``A depended_by B`` -> ``B depends_on A``); anything else unchanged."""
        if etype in self.reversed_names:
            return target, source, self.inverse(etype) or etype
        return source, target, etype

    def checked(self, source: str, target: str, etype: str) -> tuple[str, str, str]:
        """:meth:`orient` the edge, then check its signature against the node types its
        ids name (``clause:``/``chunk:``, ``module:``, ``workitem:``; a bare name is not
        checked: it is resolved or reported by the index build). Returns the oriented
        ``(source, target, type)``; raises VocabularyError when the signature forbids it."""
        source, target, etype = self.orient(source, target, etype)
        src, tgt = node_type(source), node_type(target)
        if src is not None and tgt is not None and not self.allows(etype, src, tgt):
            raise VocabularyError(self.signature_message(etype, src, tgt))
        return source, target, etype

    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Every known name with its canonical type, canonical types mapping to
        themselves, sorted: the shape of ``Project.edge_types``."""
        return tuple(sorted(self._table.items()))

    # -- signatures --------------------------------------------------------------------

    def signature(self, name: str) -> tuple[tuple[str, str], ...]:
        """Allowed (source, target) node types of declared type ``name`` (empty: any)."""
        return dict(self.signatures).get(name, ())

    def allows(self, name: str, source_type: str, target_type: str) -> bool:
        """True when an edge of declared type ``name`` may join these node types
        (``chunk`` counts as ``clause``; ``*`` in a signature matches anything)."""
        allowed = self.signature(name)
        if not allowed:
            return True
        src = "clause" if source_type == "chunk" else source_type
        tgt = "clause" if target_type == "chunk" else target_type
        return any(a in ("*", src) and b in ("*", tgt) for a, b in allowed)

    def signature_message(self, name: str, source_type: str, target_type: str) -> str:
        """Why a ``source_type -> target_type`` edge of type ``name`` is refused."""
        allowed = ", ".join(f"{a}->{b}" for a, b in self.signature(name))
        return (
            f"edge type {name!r} may not join a {source_type} to a {target_type}; "
            f"allowed: {allowed}"
        )

    # -- building ----------------------------------------------------------------------

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> EdgeVocabulary:
        """Rebuild a vocabulary's names from :meth:`pairs` output (``Project.edge_types``);
        inverses and signatures of the default vocabulary are kept for names it knows."""
        items = list(pairs)
        types = sorted({c for _, c in items})
        aliases = sorted((a, c) for a, c in items if a != c)
        known = set(types)
        base = DEFAULT_VOCABULARY
        return cls(
            tuple(types),
            tuple(aliases),
            inverses=tuple(p for p in base.inverses if p[0] in known and p[1] in known),
            reversed_names=tuple(n for n in base.reversed_names if n in known),
            signatures=tuple(s for s in base.signatures if s[0] in known),
            descriptions=tuple(d for d in base.descriptions if d[0] in known),
        )

    def with_specs(
        self, specs: Iterable[TypeSpec], aliases: Mapping[str, str] | None = None
    ) -> EdgeVocabulary:
        """A new vocabulary with more canonical types (``specs``) and ``aliases``
        (alias -> canonical type). A project alias may redirect a default alias; it may
        not rename a canonical type. Raises VocabularyError on a bad name, a type that is
        already an alias, an alias of an unknown type, an alias equal to a canonical
        type, or a signature naming an unknown node type."""
        canon = set(self.types)
        table = dict(self.aliases)
        inverses = dict(self.inverses)
        reversed_names = set(self.reversed_names)
        signatures = dict(self.signatures)
        descriptions = dict(self.descriptions)
        new_aliases: dict[str, str] = {}

        def add_type(raw: str) -> str:
            name = normalize_type_name(raw)
            if not _NAME.fullmatch(name):
                raise VocabularyError(f"bad edge type name {raw!r}: use letters, digits and _")
            if name in table:
                raise VocabularyError(f"edge type {raw!r} is already an alias of {table[name]!r}")
            canon.add(name)
            return name

        for spec in specs:
            name = add_type(spec.name)
            for alias in spec.aliases:
                new_aliases[normalize_type_name(alias)] = name
            for src, tgt in spec.signature:
                for end in (src, tgt):
                    if end != "*" and end not in NODE_TYPES:
                        raise VocabularyError(
                            f"signature of {name!r} names {end!r}; node types: "
                            f"{', '.join(NODE_TYPES)} or *"
                        )
            if spec.signature:
                signatures[name] = tuple(spec.signature)
            if spec.description:
                descriptions[name] = spec.description
            if spec.inverse is not None:
                inverse = normalize_type_name(spec.inverse)
                if inverse != name:
                    if inverse in canon and inverses.get(inverse) not in (None, name):
                        raise VocabularyError(
                            f"{inverse!r} is already the inverse of {inverses[inverse]!r}"
                        )
                    if inverse not in canon:
                        add_type(inverse)
                    reversed_names.add(inverse)
                    signatures.pop(inverse, None)
                inverses[name] = inverse
                inverses[inverse] = name
                for alias in spec.inverse_aliases:
                    new_aliases[normalize_type_name(alias)] = inverse
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
                    f"edge types: {', '.join(sorted(canon))}"
                )
            table[alias] = target
        return EdgeVocabulary(
            tuple(sorted(canon)),
            tuple(sorted(table.items())),
            inverses=tuple(sorted(inverses.items())),
            reversed_names=tuple(sorted(reversed_names)),
            signatures=tuple(sorted(signatures.items())),
            descriptions=tuple(sorted(descriptions.items())),
        )

    def extended(
        self,
        types: Mapping[str, Iterable[str]] | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> EdgeVocabulary:
        """A new vocabulary with more canonical ``types`` (type -> its aliases; no
        inverse, any endpoints) and ``aliases`` (alias -> canonical type); see
        :meth:`with_specs` for the rules and errors."""
        specs = [TypeSpec(name, tuple(names)) for name, names in (types or {}).items()]
        return self.with_specs(specs, aliases)


# --- reading vocabulary files ----------------------------------------------------------


def _names(value: Any, where: str, text: str, keys: list[str | int], fld: str) -> tuple[str, ...]:
    """Aliases given as a string, a list, or a mapping language -> list."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, dict):
        out: list[str] = []
        for lang, names in value.items():
            out.extend(_names(names, where, text, keys + [str(lang)], f"{fld}.{lang}"))
        return tuple(out)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ProjectFormatError(
        where,
        "aliases must be a list of strings or a mapping language -> list",
        line=locate(text, keys),
        field=fld,
    )


def _spec(name: Any, value: Any, where: str, text: str) -> TypeSpec:
    keys: list[str | int] = ["types", str(name)]
    fld = f"types.{name}"
    if not isinstance(name, str):
        raise ProjectFormatError(
            where, "type names must be strings", line=locate(text, ["types"]), field="types"
        )
    if not isinstance(value, dict):
        return TypeSpec(name, _names(value, where, text, keys, fld))
    unknown = sorted(str(k) for k in value if k not in _SPEC_KEYS)
    if unknown:
        raise ProjectFormatError(
            where,
            f"unknown key; allowed keys: {', '.join(_SPEC_KEYS)}",
            line=locate(text, keys + [unknown[0]]),
            field=f"{fld}.{unknown[0]}",
        )
    signature: list[tuple[str, str]] = []
    raw_sig = value.get("signature") or []
    if isinstance(raw_sig, str):
        raw_sig = [raw_sig]
    if not isinstance(raw_sig, list):
        raise ProjectFormatError(
            where,
            "signature must be a list like [clause->module]",
            line=locate(text, keys + ["signature"]),
            field=f"{fld}.signature",
        )
    for i, item in enumerate(raw_sig):
        match = _SIGNATURE.fullmatch(item) if isinstance(item, str) else None
        if match is None:
            raise ProjectFormatError(
                where,
                f"signature entries look like clause->module, not {item!r}",
                line=locate(text, keys + ["signature", i]),
                field=f"{fld}.signature[{i}]",
            )
        signature.append((match.group(1), match.group(2)))
    inverse = value.get("inverse")
    if inverse is not None and not isinstance(inverse, str):
        raise ProjectFormatError(
            where,
            "inverse must be a type name",
            line=locate(text, keys + ["inverse"]),
            field=f"{fld}.inverse",
        )
    description = value.get("description") or ""
    return TypeSpec(
        name,
        _names(value.get("aliases"), where, text, keys + ["aliases"], f"{fld}.aliases"),
        inverse,
        _names(
            value.get("inverse_aliases"),
            where,
            text,
            keys + ["inverse_aliases"],
            f"{fld}.inverse_aliases",
        ),
        tuple(signature),
        " ".join(str(description).split()),
    )


def parse_vocabulary(text: str, where: str, base: EdgeVocabulary | None = None) -> EdgeVocabulary:
    """Read vocabulary YAML ``text`` (``where`` names it in errors) and extend ``base``
    (an empty vocabulary when None) with it.

    Raises ProjectFormatError naming the file, the line and the field (``types``,
    ``types.blocks.signature[0]``, ``aliases.blocks`` ...) for malformed YAML, wrong
    shapes, a bad name or signature, or an alias of an unknown type.
    """
    base = base if base is not None else EdgeVocabulary(())
    text = normalize_newlines(text)
    data = load_yaml(text, where)
    if data is None:
        return base
    if not isinstance(data, dict):
        raise ProjectFormatError(where, "must be a mapping with 'types' and/or 'aliases'", line=1)
    unknown = sorted(str(k) for k in data if k not in ("types", "aliases"))
    if unknown:
        raise ProjectFormatError(
            where,
            "unknown key; allowed keys: types, aliases",
            line=locate(text, [unknown[0]]),
            field=unknown[0],
        )
    raw_types = data.get("types") or {}
    if isinstance(raw_types, list):
        raw_types = {t: [] for t in raw_types}
    if not isinstance(raw_types, dict):
        raise ProjectFormatError(
            where,
            "must be a list of type names or a mapping "
            "type -> [aliases] or type -> {aliases, inverse, signature}",
            line=locate(text, ["types"]),
            field="types",
        )
    vocabulary = base
    for name, value in raw_types.items():
        spec = _spec(name, value, where, text)
        try:
            vocabulary = vocabulary.with_specs([spec])
        except VocabularyError as exc:
            raise ProjectFormatError(
                where, str(exc), line=locate(text, ["types", name]), field=f"types.{name}"
            ) from exc
    raw_aliases = data.get("aliases") or {}
    if not isinstance(raw_aliases, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw_aliases.items()
    ):
        raise ProjectFormatError(
            where,
            "must be a mapping alias -> canonical type",
            line=locate(text, ["aliases"]),
            field="aliases",
        )
    for alias, target in raw_aliases.items():
        try:
            vocabulary = vocabulary.with_specs([], {alias: target})
        except VocabularyError as exc:
            raise ProjectFormatError(
                where, str(exc), line=locate(text, ["aliases", alias]), field=f"aliases.{alias}"
            ) from exc
    return vocabulary


def load_vocabulary(path: str | Path, base: EdgeVocabulary | None = None) -> EdgeVocabulary:
    """Read ``edge_vocabulary.yaml`` at ``path`` and extend ``base`` (default:
    :data:`DEFAULT_VOCABULARY`) with it; errors as :func:`parse_vocabulary`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProjectFormatError(str(path), f"cannot read edge vocabulary: {exc}") from exc
    return parse_vocabulary(text, str(path), DEFAULT_VOCABULARY if base is None else base)


def _load_default() -> EdgeVocabulary:
    source = resources.files("etki.knowledge").joinpath(DEFAULT_FILE)
    return parse_vocabulary(source.read_text(encoding="utf-8"), f"etki/knowledge/{DEFAULT_FILE}")


DEFAULT_VOCABULARY: EdgeVocabulary = _load_default()
"""The vocabulary of a project without ``edge_vocabulary.yaml``: the package's
``default_vocabulary.yaml``, read once at import."""

DEFAULT_TYPES: dict[str, tuple[str, ...]] = {
    t: tuple(a for a, c in DEFAULT_VOCABULARY.aliases if c == t) for t in DEFAULT_VOCABULARY.types
}
"""Canonical default types (inverse names included) -> their aliases, sorted."""
