"""Request files for ``etki import``: JSON Lines, CSV and a GitHub issues export.

* ``jsonl``: the rows of ``requests.jsonl`` (:func:`etki.knowledge.loader.read_requests_jsonl`).
* ``csv``: a header row naming the columns ``id`` and ``text`` (required) and
  ``title``, ``submitted_by``, ``submitted_at`` (optional, an empty cell is no value);
  other columns are ignored (a spreadsheet export carries more). UTF-8, with or without a
  BOM; the standard ``csv`` dialect (comma, double quotes, quoted line breaks).
* ``github``: the JSON array ``gh issue list --json number,title,body,author,createdAt``
  prints: request id ``gh-NUMBER``, text the body (the title when the body is empty),
  title, ``submitted_by`` the author's login, ``submitted_at`` ``createdAt``.

Every record goes through :func:`etki.knowledge.loader.request_from_mapping`, so a
record that cannot be stored is refused alone with a message naming the file, the line
(CSV: the line the record ends on; GitHub: ``FILE item N``, the N-th issue of the array,
counted from 1, not an index) and the field; every other record is read. A file that cannot be read, is not
UTF-8, has no ``id``/``text`` header or is not a JSON array raises
:class:`etki.errors.ProjectFormatError`.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from etki.config import DEFAULT_MAX_REQUEST_CHARS
from etki.domain import Request
from etki.errors import InputError, ProjectFormatError
from etki.frontmatter import normalize_newlines
from etki.knowledge.loader import read_requests_jsonl, request_from_mapping

__all__ = ["FORMATS", "detect_format", "read_requests"]

FORMATS = ("jsonl", "csv", "github")
"""The formats :func:`read_requests` reads."""

_SUFFIXES = {".jsonl": "jsonl", ".csv": "csv", ".json": "github"}
_CSV_FIELDS = ("id", "text", "title", "submitted_by", "submitted_at")

Read = tuple[tuple[Request, ...], tuple[str, ...]]


def detect_format(path: Path) -> str:
    """The format of ``path`` from its suffix: ``.jsonl``, ``.csv``, ``.json`` (a
    GitHub export). Raises :class:`InputError` for any other suffix."""
    fmt = _SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise InputError(
            f"{path}: cannot tell the format from the name; give --format {'|'.join(FORMATS)}"
        )
    return fmt


def _text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ProjectFormatError(str(path), f"cannot read file: {exc}") from exc
    try:
        return normalize_newlines(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ProjectFormatError(str(path), "not UTF-8 text", line=line) from exc


def _read_csv(path: Path, max_chars: int) -> Read:
    reader = csv.DictReader(io.StringIO(_text(path), newline=""))
    header = reader.fieldnames or []
    missing = [name for name in ("id", "text") if name not in header]
    if missing:
        raise ProjectFormatError(
            str(path), f"the header row has no column {', '.join(map(repr, missing))}", line=1
        )
    out: list[Request] = []
    refused: list[str] = []
    seen: dict[str, int] = {}
    for row in reader:
        record = {k: v for k in _CSV_FIELDS if (v := row.get(k)) not in (None, "")}
        if "text" not in record and row.get("text") == "":
            record["text"] = ""  # present but empty: said as such
        try:
            request = request_from_mapping(str(path), reader.line_num, record, seen, max_chars)
        except ProjectFormatError as exc:
            refused.append(str(exc))
            continue
        seen[request.id] = reader.line_num
        out.append(request)
    return tuple(out), tuple(refused)


def _read_github(path: Path, max_chars: int) -> Read:
    try:
        data = json.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise ProjectFormatError(
            str(path), f"malformed JSON: {exc.msg} (column {exc.colno})", line=exc.lineno
        ) from exc
    if not isinstance(data, list):
        raise ProjectFormatError(str(path), "a GitHub issues export is a JSON array of issues")
    out: list[Request] = []
    refused: list[str] = []
    seen: dict[str, int] = {}
    for n, issue in enumerate(data, start=1):
        where = f"{path} item {n}"  # 1-based, as people count: not an index
        try:
            if not isinstance(issue, dict):
                raise ProjectFormatError(where, "each issue must be a JSON object")
            number = issue.get("number")
            if not isinstance(number, int) or isinstance(number, bool):
                raise ProjectFormatError(where, "must be a whole number", field="number")
            author = issue.get("author")
            title, body = issue.get("title"), issue.get("body")
            record = {
                "id": f"gh-{number}",
                "text": body if isinstance(body, str) and body.strip() else title,
                "title": title,
                "submitted_by": author.get("login") if isinstance(author, dict) else None,
                "submitted_at": issue.get("createdAt"),
            }
            request = request_from_mapping(where, None, record, seen, max_chars)
        except ProjectFormatError as exc:
            refused.append(str(exc))
            continue
        seen[request.id] = n
        out.append(request)
    return tuple(out), tuple(refused)


def read_requests(path: Path, fmt: str, max_chars: int = DEFAULT_MAX_REQUEST_CHARS) -> Read:
    """(requests, refused messages) of the request file ``path`` in ``fmt`` (one of
    :data:`FORMATS`; module docstring), requests in file order. Raises
    :class:`ProjectFormatError` for a file that cannot be read as a whole and
    :class:`InputError` for an unknown format."""
    if fmt == "jsonl":
        return read_requests_jsonl(path, max_chars)
    if fmt == "csv":
        return _read_csv(path, max_chars)
    if fmt == "github":
        return _read_github(path, max_chars)
    raise InputError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
