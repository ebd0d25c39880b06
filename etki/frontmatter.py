"""YAML frontmatter and YAML files, read the way Etki reads them.

Used by the project-folder loader (``contracts/*.md``, ``etki.yaml``, ``modules.yaml`` ...)
and by the wiki (its pages carry frontmatter written by :func:`dump_frontmatter`, through
the memoised :func:`frontmatter_bytes` and :class:`FrontmatterMemo`: the same bytes, kept
here because they rely on the layout this dumper writes).

Rules (each one comes from a real fault; ``tests/test_frontmatter.py`` pins them by case
number):

* Frontmatter is the block between a ``---`` line at the very top of the file and the
  next ``---`` line. A UTF-8 BOM is dropped and CRLF / CR line endings become LF first,
  so no ``\\ufeff`` or ``\\r`` survives in a value or in the body (B09).
* Everything after the closing delimiter is the body, byte for byte; later ``---``
  lines are horizontal rules of the body, never metadata (B10).
* YAML is resolved with the YAML 1.2 core schema, restricted so it is a *subset* of what
  PyYAML's 1.1 dumper quotes: only ``true``/``false`` (any of the three cases) are
  booleans, so ``no``, ``NO``, ``on``, ``off``, ``y`` and ``yes`` stay strings (B06);
  dates stay strings; ``010`` stays the string ``"010"``. Because every scalar this loader
  resolves to a non-string is also one ``yaml.safe_dump`` quotes when it is a string,
  :func:`dump_frontmatter` output always loads back unchanged.
* A malformed value (``: `` inside an unquoted value, B08) or a duplicate key raises
  :class:`etki.errors.ProjectFormatError` naming the file and the 1-based line.
* Anchors and aliases (``&a`` / ``*a``) are refused while the document is composed, at
  the first anchor or alias event and before any node is shared or expanded: nine levels
  of nine aliases ("billion laughs") under a key Etki ignores expand to 9**9 nodes, and
  no file Etki reads needs them. Nesting deeper than
  :data:`MAX_YAML_DEPTH` levels is refused the same way (else Python's recursion limit
  ends the load with a RecursionError, an internal error).

Every YAML file Etki reads goes through :class:`CoreSafeLoader` (:func:`load_yaml`,
:func:`locate`, :func:`split_frontmatter`): ``etki.yaml``, ``modules.yaml``,
``workitems.yaml``, ``edge_vocabulary.yaml``, ``edges.yaml``, contract frontmatter, wiki
pages read back (:func:`etki.wiki.read_page`) and the desk's config file
(:mod:`etki_tui.config`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import yaml

from etki.errors import ProjectFormatError
from etki.yamlemit import emit_entry

__all__ = [
    "MAX_YAML_DEPTH",
    "AliasNotAllowedError",
    "CoreSafeLoader",
    "FrontmatterMemo",
    "NoAliasSafeDumper",
    "dump_frontmatter",
    "frontmatter_block",
    "frontmatter_bytes",
    "load_yaml",
    "locate",
    "normalize_newlines",
    "split_frontmatter",
    "unstorable_path",
]

MAX_YAML_DEPTH = 100
"""Most levels of nested mappings and sequences in one YAML document. The deepest file
Etki reads nests four levels (``etki.yaml`` ``reviewers[0].name``, ``modules.yaml``
``{modules: [{depends_on: [...]}]}``); 100 leaves room for any hand-written file and
stays well below Python's recursion limit (1,000 frames; composing and constructing one
level costs about four)."""


class AliasNotAllowedError(yaml.composer.ComposerError):
    """A YAML anchor or alias (or nesting deeper than :data:`MAX_YAML_DEPTH`), refused
    while composing. ``problem`` is the sentence shown to the user; ``problem_mark`` the
    place (0-based line in the text given to the loader)."""


class _RefusingComposer(yaml.composer.Composer):
    """PyYAML's composer, refusing every anchor and alias event before it is composed
    (so nothing is ever shared or expanded) and nesting past :data:`MAX_YAML_DEPTH`."""

    _depth = 0

    if TYPE_CHECKING:

        def peek_event(self) -> yaml.NodeEvent:
            """From the parser the loader mixes in (PyYAML's or libyaml's)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        # libyaml's Mark has the fields of yaml.error.Mark; the stubs know only the latter
        mark = cast("yaml.error.Mark | None", event.start_mark)
        if isinstance(event, yaml.AliasEvent):
            raise AliasNotAllowedError(
                None,
                None,
                f"YAML aliases are not allowed (alias '*{event.anchor}'); "
                "write the value out where it is used",
                mark,
            )
        if event.anchor is not None:
            raise AliasNotAllowedError(
                None,
                None,
                f"YAML aliases are not allowed (anchor '&{event.anchor}'); "
                "write the value out where it is used",
                mark,
            )
        if self._depth >= MAX_YAML_DEPTH:
            raise AliasNotAllowedError(
                None, None, f"YAML nested deeper than {MAX_YAML_DEPTH} levels", mark
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_CParser: type | None = getattr(yaml, "CParser", None) or getattr(
    getattr(yaml, "cyaml", None), "CParser", None
)

if getattr(yaml, "__with_libyaml__", False) and _CParser is not None:

    class _BaseLoader(
        _RefusingComposer,
        _CParser,  # type: ignore[misc, valid-type]  # libyaml class found at run time
        yaml.constructor.SafeConstructor,
        yaml.resolver.Resolver,
    ):
        """libyaml's parser (events in C) under the Python composer above: libyaml's
        own composer cannot be told to refuse aliases."""

        def __init__(self, stream: Any) -> None:
            _CParser.__init__(self, stream)  # type: ignore[misc]  # libyaml class found at run time
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            _RefusingComposer.__init__(self)
else:  # pragma: no cover - PyYAML built without libyaml

    class _BaseLoader(_RefusingComposer, yaml.SafeLoader):  # type: ignore[no-redef]  # the pure-Python stand-in
        """The pure-Python safe loader under the composer above."""


class CoreSafeLoader(_BaseLoader):
    """``yaml.SafeLoader`` (libyaml's parser when available) with YAML 1.2 core resolvers,
    the one loader for every YAML file Etki reads.

    Implicit types: null (``~``, ``null``, empty), bool (``true``/``false`` only),
    int (decimal without leading zeros, ``0x`` hex), float (with a dot, ``.inf``,
    ``.nan``). Everything else is a string. Duplicate mapping keys are an error. Anchors
    and aliases raise :class:`AliasNotAllowedError` at the first ``&`` or ``*`` event,
    before anything is expanded; so does nesting deeper than :data:`MAX_YAML_DEPTH`.
    """

    yaml_implicit_resolvers: dict = {}


def _resolver(tag: str, pattern: str, first: Iterable[str]) -> None:
    CoreSafeLoader.add_implicit_resolver(tag, re.compile(pattern, re.X), list(first))


_resolver("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF")
_resolver("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""])
_resolver("tag:yaml.org,2002:int", r"^(?:[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+)$", "-+0123456789")
_resolver(
    "tag:yaml.org,2002:float",
    r"""^(?:[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+][0-9]+)?
              |[-+]?\.(?:inf|Inf|INF)
              |\.(?:nan|NaN|NAN))$""",
    "-+0123456789.",
)
_resolver("tag:yaml.org,2002:merge", r"^(?:<<)$", "<")


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    value = str(loader.construct_scalar(node))
    if value.startswith("0x"):
        return int(value[2:], 16)
    return int(value, 10)


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict:
    loader.flatten_mapping(node)
    result: dict = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError as exc:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                "found an unhashable key",
                key_node.start_mark,
            ) from exc
        if key in result:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r}",
                key_node.start_mark,
            )
        result[key] = loader.construct_object(value_node, deep=True)
    return result


CoreSafeLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
CoreSafeLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)


def normalize_newlines(text: str) -> str:
    """Drop one leading UTF-8 BOM and turn CRLF and lone CR into LF."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


_KEY_LINE = re.compile(r"^\s*(?:-\s+)?([^\s:#][^:#]*?)\s*:(?:\s|$)")


def _yaml_error(path: str, exc: yaml.YAMLError, first_line: int, text: str) -> ProjectFormatError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = first_line + mark.line if mark is not None else None
    field = None
    if mark is not None:
        lines = text.split("\n")
        key = _KEY_LINE.match(lines[mark.line]) if mark.line < len(lines) else None
        field = key.group(1).strip("'\"") if key else None
    problem = getattr(exc, "problem", None) or str(exc)
    if isinstance(exc, AliasNotAllowedError):
        return ProjectFormatError(path, problem, line=line)
    context = getattr(exc, "context", None)
    if context and "duplicate" not in problem:
        problem = f"{problem} ({context})"
    hint = ""
    if "mapping values are not allowed" in problem:
        hint = "; a value containing ': ' must be quoted"
    return ProjectFormatError(path, f"malformed YAML: {problem}{hint}", line=line, field=field)


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_path(value: Any, keys: tuple[str | int, ...] = ()) -> list[str | int] | None:
    """The keys (``["reviewers", 0, "name"]``) of the first string in parsed YAML/JSON
    ``value`` (a key or a value) holding a NUL character or a lone surrogate — text that
    PostgreSQL cannot store and no terminal can show (a ``"\\0"`` or ``"\\ud83d"``
    escape); None when there is none."""
    if isinstance(value, str):
        return list(keys) if _UNSTORABLE.search(value) else None
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and _UNSTORABLE.search(k):
                return [*keys, k]
            found = unstorable_path(v, (*keys, k))
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = unstorable_path(v, (*keys, i))
            if found is not None:
                return found
    return None


UNSTORABLE_PROBLEM = (
    "holds a NUL character or a lone surrogate (a \\u0000 or \\ud8xx "
    "escape): not text Etki can store; remove it"
)


def load_yaml(text: str, path: str, *, first_line: int = 1) -> Any:
    """Parse YAML ``text`` with :class:`CoreSafeLoader`.

    ``first_line`` is the file line of the first line of ``text`` (frontmatter starts on
    line 2), so error lines are lines of the file. Raises ProjectFormatError(path,
    line=..., field=<the key on that line, when there is one>) on any YAML error, and
    for a string holding NUL or a lone surrogate (:func:`unstorable_path`).
    """
    try:
        data = yaml.load(text, Loader=CoreSafeLoader)  # noqa: S506 - safe loader subclass
    except yaml.YAMLError as exc:
        raise _yaml_error(path, exc, first_line, text) from exc
    bad = unstorable_path(data)
    if bad is not None:
        field = ".".join(str(k) for k in bad) or None
        raise ProjectFormatError(
            path, UNSTORABLE_PROBLEM, line=locate(text, bad, first_line=first_line), field=field
        )
    return data


def locate(text: str, keys: Sequence[str | int], *, first_line: int = 1) -> int | None:
    """The 1-based file line of the node reached by ``keys`` in YAML (or JSON) ``text``.

    ``keys`` walks mappings by key and sequences by index (``["reviewers", 0, "role"]``);
    the deepest node reached is reported, so a missing key reports its mapping. Returns
    ``None`` when the text cannot be composed. Only used on error paths.
    """
    try:
        node = yaml.compose(text, Loader=CoreSafeLoader)  # noqa: S506
    except yaml.YAMLError:
        return None
    if node is None:
        return None
    for key in keys:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(key):
                    child = value_node
                    break
        elif (
            isinstance(node, yaml.SequenceNode)
            and isinstance(key, int)
            and 0 <= key < len(node.value)
        ):
            child = node.value[key]
        if child is None:
            break
        node = child
    return first_line + node.start_mark.line


_DELIMITER = re.compile(r"---[ \t]*")


def frontmatter_block(text: str) -> tuple[str | None, str, int]:
    """Split normalised ``text`` into ``(yaml_text, body, body_first_line)`` without
    parsing YAML. ``yaml_text`` is ``None`` when the file has no frontmatter (then
    ``body`` is the whole text and ``body_first_line`` is 1). An opening ``---`` that is
    never closed is treated as no frontmatter here; :func:`split_frontmatter` rejects it.
    """
    text = normalize_newlines(text)
    lines = text.split("\n")
    if not lines or not _DELIMITER.fullmatch(lines[0]):
        return None, text, 1
    for i in range(1, len(lines)):
        if _DELIMITER.fullmatch(lines[i]):
            yaml_text = "\n".join(lines[1:i]) + ("\n" if i > 1 else "")
            body = "\n".join(lines[i + 1 :])
            return yaml_text, body, i + 2
    return None, text, 1


def split_frontmatter(text: str, path: str) -> tuple[dict, str]:
    """Split a markdown file into ``(metadata, body)``.

    ``metadata`` is a plain ``dict`` (empty when the file has no frontmatter); ``body`` is
    the text after the closing ``---`` line, unchanged except that a BOM is dropped and
    line endings are LF. Raises ProjectFormatError naming ``path`` and the file line when
    the YAML is malformed (B08: line 3), when the frontmatter is not a mapping, or when an
    opening ``---`` is never closed.
    """
    normalized = normalize_newlines(text)
    yaml_text, body, _ = frontmatter_block(normalized)
    if yaml_text is None:
        first = normalized.split("\n", 1)[0]
        if _DELIMITER.fullmatch(first) and normalized.count("\n") >= 1:
            raise ProjectFormatError(
                path, "frontmatter opened with '---' is never closed by a '---' line", line=1
            )
        return {}, normalized
    meta = load_yaml(yaml_text, path, first_line=2)
    if meta is None:
        return {}, body
    if not isinstance(meta, dict):
        raise ProjectFormatError(
            path, f"frontmatter must be a mapping of fields, not {type(meta).__name__}", line=2
        )
    return meta, body


_BREAKS_IN_PLAIN = re.compile("[\x85\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_aliases(dumper: Any, data: Any) -> bool:
    """Never write an anchor: :class:`CoreSafeLoader` refuses them, so a value shared
    by two keys is written out twice."""
    return True


class NoAliasSafeDumper(yaml.SafeDumper):
    """``yaml.SafeDumper`` that never writes an anchor or alias (a list shared by two
    keys is written out twice), so everything Etki writes loads back with
    :class:`CoreSafeLoader`."""

    ignore_aliases = _no_aliases


class _SafeDumper(NoAliasSafeDumper):
    """``yaml.SafeDumper`` that writes a string holding NEL (U+0085) or a Unicode line or
    paragraph separator double-quoted, where they are escaped (``\\N``, ``\\L``,
    ``\\P``); in any other style a reader folds them into a space or a line break."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if _SURROGATE.search(value):
        raise ValueError(f"not Unicode text (a lone surrogate) in {value[:40]!r}")
    style = '"' if _BREAKS_IN_PLAIN.search(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_SafeDumper.add_representer(str, _represent_str)

# libyaml's emitter (``yaml.CSafeDumper``, when PyYAML was built with it) writes the same
# bytes as the pure-Python one ~15x faster, except for two known cases: characters
# above U+FFFF (older libyaml escapes them, \U0001F44D, and double-quotes the string)
# and mapping keys holding a line break such as \r (libyaml writes a complex ``? key``).
# It is used only for values free of both, and only after a self-check on tricky
# strings passed in this process (:func:`_libyaml_ok`); else the Python emitter.
_CBase: type | None = getattr(yaml, "CSafeDumper", None)
_CSafeDumper: type | None = None
if _CBase is not None:
    _CSafeDumper = type("_CSafeDumper", (_CBase,), {"ignore_aliases": _no_aliases})
    _CSafeDumper.add_representer(str, _represent_str)  # type: ignore[attr-defined]  # libyaml class found at run time

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_PLAIN_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_SELF_CHECK: tuple[dict, ...] = (
    {"title": "a: b # c", "n": 3, "f": 0.87, "t": True, "e": [], "l": ["x", "- y", "? z"]},
    {
        "s": "no",
        "y": "yes",
        "d": "2024-01-01",
        "z": "010",
        "h": "0x1F",
        "i": "1e3",
        "nul": "null",
        "tilde": "~",
        "e": "",
        "sp": " lead",
        "tr": "trail ",
        "dash": "---",
    },
    {
        "m": "line one\nline two\n\n  indented\n",
        "r": "a\rb",
        "tab": "a\tb",
        "nel": "a\x85b",
        "ls": "a\u2028b",
        "bom": "\ufeffx",
        "c0": "\x00\x07\x1b",
        "q": 'it\'s "quoted" \\ back',
        "sb": "a \nb",
        "bs": "a\n b",
        "ctl": "␛[31m",
    },
    {
        "tr": "İade süreci ığüşöç",
        "de": "Größe Straße",
        "cjk": "東京オフィス",
        "nfd": "e\u0301",
        "bidi": "\u202eabc",
        "nbsp": "a\xa0b",
        "shy": "a\xadb",
        "pua": "\ue000",
        "ff": "\uffff\ufffe",
        "long": "word " * 300,
    },
    {
        "nested": {"IN_SCOPE": 1, "REJECT": 0, "x-y.z": 2},
        "ind": ["[a]", "{b}", "&c", "*d", "!e", "|f", "<g", "%h", "@i", "`j", ",k", "=", "<<"],
    },
)


def _libyaml_agrees(value: Any) -> bool:
    """True when ``value`` holds none of the two cases libyaml writes differently."""
    items: Any = (value,)
    if isinstance(value, dict):
        if not all(_PLAIN_KEY.fullmatch(k) for k in value if isinstance(k, str)):
            return False
        items = value.values()
    elif isinstance(value, list | tuple):
        items = value
    if _ASTRAL.search("".join(v for v in items if isinstance(v, str))):  # one C-level scan
        return False
    return all(_libyaml_agrees(v) for v in items if isinstance(v, dict | list | tuple))


_libyaml_checked: list[bool] = []


def _dump(meta: dict, dumper: type) -> str:
    return yaml.dump(
        meta,
        Dumper=dumper,
        sort_keys=True,
        allow_unicode=True,
        default_flow_style=False,
        width=2**31 - 1,
    )


def _libyaml_ok() -> bool:
    """Whether this process's libyaml writes the self-check values byte for byte as the
    Python emitter (checked once)."""
    if not _libyaml_checked:
        ok = _CSafeDumper is not None
        try:
            ok = ok and all(
                _dump(m, _CSafeDumper) == _dump(m, _SafeDumper)  # type: ignore[arg-type]  # libyaml class found at run time
                for m in _SELF_CHECK
            )
        except Exception:  # any libyaml trouble: the Python emitter it is
            ok = False
        _libyaml_checked.append(ok)
    return _libyaml_checked[0]


def dump_frontmatter(meta: dict, body: str) -> str:
    """The inverse of :func:`split_frontmatter`: ``---``, ``meta`` as YAML, ``---``, body.

    Written with ``yaml.safe_dump(sort_keys=True, allow_unicode=True,
    default_flow_style=False)`` (never string formatting) and no line wrapping, so titles
    containing ``: ``, ``#``, ``no`` or ``2024-01-01`` come back unchanged; NEL and the
    Unicode line separators are written escaped in double quotes, so every string comes
    back unchanged. An empty ``meta`` gives an empty frontmatter block. Raises
    ``ValueError`` for a string with a lone surrogate (not Unicode text; callers pass
    client text through :func:`etki.text.printable` first).
    """
    if not meta:
        return "---\n---\n" + body
    fast = _CSafeDumper is not None and _libyaml_agrees(meta) and _libyaml_ok()
    dumped = _dump(meta, _CSafeDumper if fast else _SafeDumper)  # type: ignore[arg-type]  # libyaml class found at run time
    return "---\n" + dumped + "---\n" + body


# --- memoised dumping (the wiki writes frontmatter for every page of every rebuild) -------

_ENTRIES: dict[tuple[str, Any], bytes] = {}
_ENTRIES_MAX = 1 << 17
_MEMO_KEY = re.compile(r"[a-z][a-z_]*")
_STR_ONLY = frozenset({str})


def _entry_key(key: str, value: Any) -> tuple[str, Any] | None:
    """A memo key that determines the YAML text of ``key: value`` exactly (types kept,
    floats by ``repr`` so ``0.0``/``-0.0`` and ``1``/``1.0``/``True`` never share), or
    None for values not worth or not safe to memoise."""
    kind = type(value)
    if kind is str or kind is int or kind is bool:
        return (key, (kind, value))
    if kind is float:
        return (key, (kind, repr(value)))
    if kind is list and set(map(type, value)) <= _STR_ONLY:  # (a loop in C: long lists)
        return (key, (kind, tuple(value)))
    if kind is dict and all(type(k) is str and type(v) is int for k, v in value.items()):
        return (key, (kind, tuple(sorted(value.items()))))
    return None


def frontmatter_bytes(meta: dict[str, Any]) -> bytes:
    """``dump_frontmatter(meta, "")`` (None values dropped) as UTF-8 bytes, the same
    bytes, faster: a block mapping with sorted keys is the concatenation of its entries
    each dumped alone (checked over every page of a 10k-case wiki), so entries seen
    before (``kind: decision``, ``verdict: IN_SCOPE``, a cited-clause list, ...) come
    from a process-wide memo (at most 131,072 entries, then it starts again) and the
    rest are dumped together in one call and split at their keys. Keys that are not
    ``[a-z][a-z_]*`` are never memoised. New entries are written by
    :func:`etki.yamlemit.emit_entry` (the same bytes, without PyYAML's Python emitter),
    the few it does not know by PyYAML. Raises what :func:`dump_frontmatter` raises."""
    items = sorted((k, v) for k, v in meta.items() if v is not None)
    if not items:
        return b"---\n---\n"
    parts: list[bytes] = []
    missing: dict[str, Any] = {}
    where: list[tuple[int, str, tuple[str, Any] | None]] = []
    for key, value in items:
        memo = _entry_key(key, value) if _MEMO_KEY.fullmatch(key) else None
        got = _ENTRIES.get(memo) if memo is not None else None
        if got is None:
            text = emit_entry(key, value)  # the fixed-schema emitter: PyYAML's bytes
            if text is not None:
                got = text.encode("utf-8")
                if memo is not None:
                    if len(_ENTRIES) > _ENTRIES_MAX:
                        _ENTRIES.clear()
                    _ENTRIES[memo] = got
        if got is None:
            missing[key] = value
            where.append((len(parts), key, memo))
            got = b""  # filled below from the one dump of the missing entries
        parts.append(got)
    if missing:
        text = dump_frontmatter(missing, "")[4:-4]  # without the two --- lines
        keys = [k for _, k, _ in where]
        if not all(_MEMO_KEY.fullmatch(k) for k in keys):
            return dump_frontmatter(dict(items), "").encode("utf-8", errors="replace")
        starts: list[int] = []
        for k in keys:  # each entry starts on a line of its own with "key:"
            if not starts:
                at = 0 if text.startswith(k + ":") else -1
            else:
                at = text.find("\n" + k + ":", starts[-1]) + 1 or -1
            if at < 0:  # not the expected layout: no memo, one plain dump
                return dump_frontmatter(dict(items), "").encode("utf-8", errors="replace")
            starts.append(at)
        starts.append(len(text))
        if len(_ENTRIES) > _ENTRIES_MAX:
            _ENTRIES.clear()
        for n, (slot, _key, memo) in enumerate(where):
            entry = text[starts[n] : starts[n + 1]].encode("utf-8", errors="replace")
            parts[slot] = entry
            if memo is not None:
                _ENTRIES[memo] = entry
    return b"---\n" + b"".join(parts) + b"---\n"


class FrontmatterMemo:
    """The frontmatter of one document that is dumped again and again (a wiki page on
    each ruling): :meth:`dump` gives the bytes of :func:`frontmatter_bytes` and re-dumps
    only the entries whose value changed since the last call (compared with their type,
    so ``True`` and ``1`` never share an entry). Not thread-safe."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, tuple[tuple[str, Any] | None, bytes]] = {}

    def dump(self, meta: dict[str, Any]) -> bytes:
        """``dump_frontmatter(meta, "")`` (None values dropped) as UTF-8 bytes. A
        block-style mapping with sorted keys is the concatenation of its entries, each
        dumped on its own, so each entry is kept and re-dumped only when its value
        changed. Raises what :func:`dump_frontmatter` raises."""
        entries = self._entries
        out = [b"---\n"]
        for key in sorted(k for k, v in meta.items() if v is not None):
            value = meta[key]
            token = _entry_key(key, value)
            got = entries.get(key)
            if token is None or got is None or got[0] != token:
                got = entries[key] = (token, frontmatter_bytes({key: value})[4:-4])
            out.append(got[1])
        out.append(b"---\n")
        return b"".join(out)
