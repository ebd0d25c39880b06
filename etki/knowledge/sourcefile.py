"""The project-folder loader's reading of one data file (:mod:`etki.knowledge.loader`):
:class:`_Source` holds a file's text and finds a field's line, :class:`_Fields` gives
typed access to one record with errors naming the file, the line and the field
(``modules[3].depends_on[0]``), and the small checks the loader's validators share.
Every error is a :class:`etki.errors.ProjectFormatError`."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from etki.errors import ProjectFormatError
from etki.frontmatter import (
    UNSTORABLE_PROBLEM,
    load_yaml,
    locate,
    normalize_newlines,
    unstorable_path,
)


class _Source:
    """One data file: its text, its display path and how to find a field's line."""

    def __init__(self, path: Path, kind: str) -> None:
        self.path, self.kind, self.where = path, kind, str(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ProjectFormatError(self.where, f"cannot read file: {exc}") from exc
        try:
            self.text = normalize_newlines(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise ProjectFormatError(self.where, "not UTF-8 text", line=line) from exc

    def parse(self) -> Any:
        if self.kind == "yaml":
            return load_yaml(self.text, self.where)
        try:
            data = json.loads(self.text, object_pairs_hook=_no_duplicates)
        except json.JSONDecodeError as exc:
            raise ProjectFormatError(
                self.where, f"malformed JSON: {exc.msg} (column {exc.colno})", line=exc.lineno
            ) from exc
        except _DuplicateKey as exc:
            raise ProjectFormatError(self.where, f"duplicate key {exc.args[0]!r}") from exc
        bad = unstorable_path(data)
        if bad is not None:
            err = self.error(UNSTORABLE_PROBLEM, bad, _field_name(bad))
            if err.line is None:  # YAML cannot compose the escape either: find it
                m = re.search(
                    r"(?<!\\)(?:\\\\)*\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})", self.text
                )
                line = self.text[: m.start()].count("\n") + 1 if m else None
                err = ProjectFormatError(
                    self.where, UNSTORABLE_PROBLEM, line=line, field=_field_name(bad)
                )
            raise err
        return data

    def error(self, problem: str, keys: list[str | int], field: str) -> ProjectFormatError:
        return ProjectFormatError(self.where, problem, line=locate(self.text, keys), field=field)


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _field_name(keys: list[str | int]) -> str:
    out = ""
    for key in keys:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


class _Fields:
    """Typed access to one record of a source, raising errors with file, line, field.

    ``keys`` locate the record in the file (for the line); ``name`` is how the record is
    named in messages (``modules[3]``, also when the file is a plain list)."""

    def __init__(
        self, src: _Source, record: Any, keys: list[str | int], name: str | None = None
    ) -> None:
        self.src, self.record, self.keys = src, record, keys
        self.name = name if name is not None else _field_name(keys)
        if not isinstance(record, dict):
            raise src.error(
                f"must be a mapping, not {_type_name(record)}", keys, self.name or "(top level)"
            )

    def field(self, *more: str | int) -> str:
        """The display name of a field of this record: ``modules[3].depends_on[0]``."""
        out = self.name
        for key in more:
            if isinstance(key, int):
                out += f"[{key}]"
            else:
                out += f".{key}" if out else key
        return out

    def fail(self, key: str | int | None, problem: str) -> ProjectFormatError:
        more = [key] if key is not None else []
        return self.src.error(problem, self.keys + more, self.field(*more))

    def string(
        self,
        key: str,
        *,
        required: bool = False,
        default: str | None = None,
        allow_empty: bool = False,
    ) -> str | None:
        value = self.record.get(key)
        if value is None:
            if required:
                raise self.fail(
                    key, f"'{key}' is required" if key not in self.record else "must not be empty"
                )
            return default
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, not {_type_name(value)}")
        if required and not allow_empty and not value.strip():
            raise self.fail(key, "must not be empty")
        return value

    def string_list(self, key: str, default: list[str] | None = None) -> list[str]:
        value = self.record.get(key)
        if value is None:
            return list(default or [])
        if not isinstance(value, list):
            raise self.fail(key, f"must be a list of strings, not {_type_name(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                raise self.src.error(
                    "must be a non-empty string", self.keys + [key, i], self.field(key, i)
                )
        return value


def _type_name(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "empty",
    }.get(type(value), type(value).__name__)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
