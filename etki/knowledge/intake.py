"""Request files for ``etki import``: JSON Lines, CSV and a GitHub issues export.

* ``jsonl``: the rows of ``requests.jsonl`` (:func:`etki.knowledge.loader.read_requests_jsonl`).
* ``csv``: a header row naming the columns ``id`` and ``text`` (required) and
  ``title``, ``submitted_by``, ``submitted_at`` (optional, an empty cell is no value);
  other columns are ignored (a spreadsheet export carries more). The standard ``csv``
  dialect (double quotes, quoted line breaks), read strictly (:func:`_read_csv` says
  what is refused and where reading goes on), with the separator the header row uses:
  a comma, a semicolon (what Excel writes in Turkish and German locales, where the comma
  is the decimal mark) or a tab (:data:`SEPARATORS`, tried in that order). UTF-8, with or
  without a BOM; UTF-16 or UTF-32 with its byte order mark (Excel's "Unicode Text",
  tab-separated, saved as ``.txt``: that suffix and ``.tsv`` read as csv); a file that is not UTF-8 is read as the Windows code page Excel writes
  on a Turkish or Western European Windows (:func:`decode_spreadsheet_text`) and the
  import says so.
* ``github``: the JSON array ``gh issue list --json number,title,body,author,createdAt``
  prints: request id ``gh-NUMBER``, text the body (the title when the body is empty),
  title, ``submitted_by`` the author's login, ``submitted_at`` ``createdAt``. A
  ``body`` that is not a string or null, an ``author`` that is not ``{"login": ...}`` or
  null, and an issue number given twice refuse that issue (never dropped silently).

Every record goes through :func:`etki.knowledge.loader.request_from_mapping`, so a
record that cannot be stored is refused alone with a message naming the file, the line
(CSV: the line the record ends on; GitHub: ``FILE item N``, the N-th issue of the array,
counted from 1, not an index) and the field; every other record is read. A file that cannot be read, is not
UTF-8, has no ``id``/``text`` header or is not a JSON array raises
:class:`etki.errors.ProjectFormatError`.
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import NamedTuple

from etki.config import DEFAULT_MAX_REQUEST_CHARS
from etki.domain import Request
from etki.errors import InputError, ProjectFormatError
from etki.frontmatter import normalize_newlines
from etki.knowledge.loader import read_requests_jsonl, request_from_mapping
from etki.text import plural

__all__ = [
    "FORMATS",
    "SEPARATORS",
    "Read",
    "decode_spreadsheet_text",
    "detect_format",
    "read_requests",
]

FORMATS = ("jsonl", "csv", "github")
"""The formats :func:`read_requests` reads."""

_SUFFIXES = {".jsonl": "jsonl", ".csv": "csv", ".tsv": "csv", ".txt": "csv", ".json": "github"}
"""The format a request file's suffix names; ``.txt`` and ``.tsv`` are the
tab-separated text Excel saves as "Unicode Text" / "Text (Tab delimited)"."""
_CSV_FIELDS = ("id", "text", "title", "submitted_by", "submitted_at")


class Read(NamedTuple):
    """What a request file gave: its ``requests`` in file order, the ``refused``
    records' messages (``FILE:LINE: ...``) and ``notes`` about how it was read (a code
    page other than UTF-8), each a sentence naming the file."""

    requests: tuple[Request, ...]
    refused: tuple[str, ...]
    notes: tuple[str, ...] = ()


def detect_format(path: Path) -> str:
    """The format of ``path`` from its suffix: ``.jsonl``, ``.csv``, ``.json`` (a
    GitHub export). Raises :class:`InputError` for any other suffix."""
    fmt = _SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise InputError(
            f"{path}: cannot tell the format from the name; give --format {'|'.join(FORMATS)}"
        )
    return fmt


RESAVE_HINT = (
    "save it as UTF-8 (Excel: Save As > 'CSV UTF-8 (Comma delimited)'; an editor: encoding UTF-8)"
)
"""How to turn a file into UTF-8, said where one cannot be read."""

SEPARATORS = (",", ";", "\t")
"""Cell separators a CSV header row may use, tried in this order: the standard comma,
the semicolon Excel writes where the comma is the decimal mark (tr-TR, de-DE), a tab."""

_TURKISH_BYTES = frozenset(b"\xd0\xdd\xde\xf0\xfd\xfe")
"""The bytes where Windows-1254 (Turkish) and Windows-1252 (Western European) differ in
letters: Ğ İ Ş ğ ı ş in 1254, Ð Ý Þ ð ý þ in 1252 (the code page tables published by
Microsoft and the Unicode Consortium, ``MAPPINGS/VENDORS/MICSFT/WINDOWS``). The latter
six are Icelandic and Faroese letters, not written in Turkish, German or English, so a
file holding one of these bytes is read as 1254."""


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ProjectFormatError(str(path), f"cannot read file: {exc}") from exc


UNICODE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32", "UTF-32"),
    (b"\x00\x00\xfe\xff", "utf-32", "UTF-32"),
    (b"\xff\xfe", "utf-16", "UTF-16"),
    (b"\xfe\xff", "utf-16", "UTF-16"),
)
"""The byte order marks of UTF-32 and UTF-16 (little- and big-endian), longest first
(UTF-32 LE starts with UTF-16 LE's mark): ``(mark, codec, name)``. Excel's "Unicode
Text" is UTF-16 LE with its mark, tab-separated (the trial's file got "the header row
has no column 'id', 'text'", read as Windows-1252)."""


def _unicode_by_bom(path: Path, data: bytes) -> str | None:
    """``data`` decoded by the UTF-32/UTF-16 byte order mark it starts with
    (:data:`UNICODE_BOMS`; the codec reads the mark and drops it), or None without one.
    Raises :class:`ProjectFormatError` naming the encoding, the line and how to re-save
    when the bytes after the mark are not that encoding."""
    for mark, codec, name in UNICODE_BOMS:
        if data.startswith(mark):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as exc:
                line = data[: exc.start].decode(codec, errors="replace").count("\n") + 1
                raise ProjectFormatError(
                    str(path),
                    f"starts with a {name} byte order mark but is not {name} text; {RESAVE_HINT}",
                    line=line,
                ) from exc
    return None


def _text(path: Path) -> str:
    """``path`` as UTF-8 text (a BOM dropped, line ends made LF). Raises
    :class:`ProjectFormatError` naming the first line that is not UTF-8."""
    data = _read_bytes(path)
    try:
        return normalize_newlines(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ProjectFormatError(str(path), f"not UTF-8 text; {RESAVE_HINT}", line=line) from exc


def decode_spreadsheet_text(data: bytes) -> tuple[str, str | None]:
    """(text, the code page used, or None for UTF-8) of a spreadsheet export: UTF-8 with
    or without a BOM when it decodes as such; else Windows-1254 when a byte of
    :data:`_TURKISH_BYTES` occurs, else Windows-1252 (elsewhere the two agree on every
    letter). Raises ``UnicodeDecodeError`` when none of them decodes it (bytes these code
    pages leave undefined: not text from Excel)."""
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    codec = "cp1254" if _TURKISH_BYTES.intersection(data) else "cp1252"
    return data.decode(codec), codec


_CODEC_NAMES = {"cp1254": "Windows-1254 (Turkish)", "cp1252": "Windows-1252 (Western European)"}


def _spreadsheet_text(path: Path) -> tuple[str, str | None]:
    """(text with LF line ends, a note saying which code page was used or None). A
    UTF-16 or UTF-32 file with its byte order mark (Excel's "Unicode Text") is read as
    such (:func:`_unicode_by_bom`), exactly: no note."""
    data = _read_bytes(path)
    unicode = _unicode_by_bom(path, data)
    if unicode is not None:
        return normalize_newlines(unicode), None
    try:
        text, codec = decode_spreadsheet_text(data)
    except UnicodeDecodeError:
        try:
            data.decode("utf-8-sig")
        except UnicodeDecodeError as first:
            exc = first
        line = data[: exc.start].count(b"\n") + 1
        raise ProjectFormatError(
            str(path),
            f"neither UTF-8 nor a Windows code page Excel writes; {RESAVE_HINT}",
            line=line,
        ) from exc
    note = None
    if codec is not None:
        note = (
            f"{path}: not UTF-8, read as {_CODEC_NAMES[codec]}; if letters look wrong, "
            f"{RESAVE_HINT}"
        )
    return normalize_newlines(text), note


def _separator(header_line: str) -> str | None:
    """The first of :data:`SEPARATORS` that splits ``header_line`` into cells naming
    both ``id`` and ``text``; None when none does."""
    for sep in SEPARATORS:
        try:
            cells = next(csv.reader([header_line], delimiter=sep, strict=True), [])
        except csv.Error:
            continue
        if "id" in cells and "text" in cells:
            return sep
    return None


_SEPARATOR_NAMES = {",": "a comma (,)", ";": "a semicolon (;)", "\t": "a tab"}
"""How a refusal names the separator a file uses."""

_CSV_LIMIT_MARGIN = 4096
"""Characters the ``csv`` field limit allows beyond ``max_chars``: a field a little over
the most is read whole and refused by :func:`request_from_mapping` with its length."""


@contextlib.contextmanager
def _field_limit(limit: int) -> Iterator[None]:
    """``csv.field_size_limit`` set to ``limit`` for the block, then put back (it is the
    module's one global; Python's default, 131,072, is below the 200,000 characters a
    request field may hold)."""
    old = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(old)


def _lines(text: str) -> list[str]:
    """``text`` cut after each LF (the only line end left by :func:`normalize_newlines`;
    ``str.splitlines`` would also cut at form feeds and U+2028 inside a cell)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


class _Scan(NamedTuple):
    """Where :func:`_scan_quotes` found the record's end and its quotes (line indexes)."""

    end: int
    """The line after the record (``len(lines)`` when the file ends inside a quote)."""
    opened: int | None
    """The line where its last quoted cell opened (None: no quoted cell)."""
    stray: int | None
    """The line where a closing quote is followed by text, not a comma or the line end."""
    unclosed: bool
    """The file ends inside its quoted cell."""


def _scan_quotes(lines: list[str], first: int, sep: str = ",") -> _Scan:
    """Follow the record that starts at ``lines[first]`` as the strict ``csv`` dialect
    reads it, up to its end or its first error. Only called after ``csv`` refused a
    record, to say where its quote opened and where reading can go on."""
    opened: int | None = None
    in_quote = False
    for i in range(first, len(lines)):
        line, pos, n = lines[i], 0, len(lines[i])
        at_field = not in_quote
        while pos < n:
            if in_quote:
                q = line.find('"', pos)
                if q < 0:
                    break
                if line.startswith('""', q):
                    pos = q + 2
                    continue
                in_quote, pos = False, q + 1
                if pos < n and line[pos] not in (sep, "\n"):
                    return _Scan(i + 1, opened, i, unclosed=False)
                continue
            if at_field and line[pos] == '"':
                in_quote, opened, pos = True, i, pos + 1
                continue
            comma = line.find(sep, pos)
            if comma < 0:
                break
            pos, at_field = comma + len(sep), True
        if not in_quote:
            return _Scan(i + 1, opened, None, unclosed=False)
    return _Scan(len(lines), opened, None, unclosed=in_quote)


def _read_csv(path: Path, max_chars: int) -> Read:
    """The CSV reader. Each record is read with :mod:`csv` (``strict=True``, the field
    limit ``max_chars`` + :data:`_CSV_LIMIT_MARGIN`); a record that cannot be read is
    refused alone, named by the line below, and reading goes on after it:

    * a cell longer than the limit: the record is read again on its own without it and
      refused with its field and length (``FILE:LINE: field 'text' request 'R-9' is
      250,000 characters; at most 200,000``), the line the record ends on; reading goes
      on with the next record;
    * **a quote left open**, by this rule: a quoted cell the file ends in, or whose
      closing quote is followed by text on the same line (``"...",`` or ``"..."`` at the
      line end is a close; ``"..."x`` is not). A quote left open in one row closes at
      the next quote the file holds, which is nearly always the opening quote of a later
      cell (``,"``) and so followed by text; the record is refused as "a quote opened on
      line N is never closed", N the line where the cell opened, and reading goes on at
      the line after N, so the rows it would have swallowed are read as their own. On a
      single line the same error is text after a closing quote (``"abc"def``), said as
      such. What this rule cannot see: a quote left open that the file closes cleanly
      later (a later cell ending in a bare ``"`` just before a comma or the line end);
      those lines are read as the cell's line breaks, as any CSV reader would.

    * **more cells than the header** (a cell past the header's last that holds
      something, mostly a separator left unquoted inside a cell): refused as ``FILE:7:
      line 7 has 4 cells, the header 3``, never read with the extra cells dropped;
      empty cells past the last (a trailing separator) are no content and are read.

    Other records follow :func:`request_from_mapping`, named by the line they end on."""
    text, note = _spreadsheet_text(path)
    lines = _lines(text)
    sep = (_separator(lines[0]) if lines else None) or ","
    limit = max_chars + _CSV_LIMIT_MARGIN
    with _field_limit(limit):
        reader = csv.reader(lines, delimiter=sep, strict=True)
        try:
            header = next(reader, [])
        except csv.Error as exc:
            raise ProjectFormatError(
                str(path), f"the header row cannot be read: {exc}", line=1
            ) from exc
        pos = reader.line_num
        missing = [name for name in ("id", "text") if name not in header]
        if missing:
            raise ProjectFormatError(
                str(path),
                f"the header row has no column {', '.join(map(repr, missing))} (cells "
                "separated by a comma, a semicolon or a tab)",
                line=1,
            )
        out: list[Request] = []
        refused: list[str] = []
        seen: dict[str, int] = {}

        def take(row: list[str], line: int) -> None:
            if not row:
                return  # a blank line, skipped as csv.DictReader does
            if len(row) > len(header) and any(c.strip() for c in row[len(header) :]):
                # a cell past the header's last would be dropped unseen (a PMO trial):
                # mostly an unquoted separator inside a cell
                refused.append(
                    f"{path}:{line}: line {line} has {len(row)} cells, the header "
                    f"{len(header)}; the row is refused, nothing of it dropped silently "
                    f"(a cell holding {_SEPARATOR_NAMES.get(sep, repr(sep))} needs double "
                    "quotes around it)"
                )
                return
            cells = dict(zip(header, row, strict=False))
            record = {k: v for k in _CSV_FIELDS if (v := cells.get(k)) not in (None, "")}
            if "text" not in record and cells.get("text") == "":
                record["text"] = ""  # present but empty: said as such
            try:
                request = request_from_mapping(str(path), line, record, seen, max_chars)
            except ProjectFormatError as exc:
                refused.append(str(exc))
                return
            seen[request.id] = line
            out.append(request)

        while pos < len(lines):
            reader = csv.reader(itertools.islice(lines, pos, None), delimiter=sep, strict=True)
            done = pos  # lines of whole records read so far
            try:
                for row in reader:
                    done = pos + reader.line_num
                    take(row, done)
                break
            except csv.Error as exc:
                pos, message = _after_csv_error(lines, done, exc, sep, take)
                if message is not None:
                    refused.append(f"{path}:{message}")
    return Read(tuple(out), tuple(refused), (note,) if note else ())


def _after_csv_error(
    lines: list[str],
    first: int,
    exc: csv.Error,
    sep: str,
    take: Callable[[list[str], int], None],
) -> tuple[int, str | None]:
    """After ``csv`` refused the record starting at ``lines[first]``: (the index of the
    line to read on from, the refusal ``LINE: problem`` or None when ``take`` was given
    the record). :func:`_read_csv` states the rule."""
    end, opened, stray, unclosed = _scan_quotes(lines, first, sep)
    if "field limit" in str(exc) and not unclosed:  # a long cell, not a runaway quote
        chunk = lines[first:end]
        with _field_limit(sum(map(len, chunk)) + 1):
            row = next(csv.reader(chunk, delimiter=sep, strict=True), [])
        take(row, end)
        return end, None
    if opened is None:  # not a quote: csv's own words, the record's first line
        return first + 1, f"{first + 1}: cannot be read as CSV ({exc}); the row is refused"
    if stray is not None and stray == opened:
        return stray + 1, (
            f"{stray + 1}: text after the closing quote of a quoted cell; write a quote "
            'inside a quoted cell as two ("") — the row is refused'
        )
    return opened + 1, (
        f"{opened + 1}: a quote opened on this line is never closed; the row is refused "
        "and the lines after it are read as rows of their own (not merged into it)"
    )


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
            if f"gh-{number}" in seen:  # said as items: a JSON array has no lines
                raise ProjectFormatError(
                    where,
                    f"duplicate issue number {number} (first as item {seen[f'gh-{number}']})",
                    field="number",
                )
            title, body = issue.get("title"), issue.get("body")
            if body is not None and not isinstance(body, str):
                raise ProjectFormatError(
                    where, f"must be a string or null, not {_json_type(body)}", field="body"
                )
            record = {
                "id": f"gh-{number}",
                "text": body if body is not None and body.strip() else title,
                "title": title,
                "submitted_by": _login(issue.get("author"), where),
                "submitted_at": issue.get("createdAt"),
            }
            request = request_from_mapping(where, None, record, seen, max_chars)
        except ProjectFormatError as exc:
            refused.append(str(exc))
            continue
        seen[request.id] = n
        out.append(request)
    return Read(tuple(out), tuple(refused))


def _json_type(value: object) -> str:
    """The JSON name of ``value``'s type, as a message says it."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "a string" if isinstance(value, str) else "null"


def _login(author: object, where: str) -> str | None:
    """The login of a GitHub issue's ``author`` (``{"login": ...}`` as ``gh`` prints it;
    null: no author). Raises :class:`ProjectFormatError` for any other shape, never
    drops it silently."""
    if author is None:
        return None
    if not isinstance(author, dict):
        raise ProjectFormatError(
            where,
            f'must be an object {{"login": ...}} or null, not {_json_type(author)}',
            field="author",
        )
    login = author.get("login")
    if login is not None and not isinstance(login, str):
        raise ProjectFormatError(
            where, f"must be a string, not {_json_type(login)}", field="author.login"
        )
    return login


def read_requests(path: Path, fmt: str, max_chars: int = DEFAULT_MAX_REQUEST_CHARS) -> Read:
    """The :class:`Read` of the request file ``path`` in ``fmt`` (one of
    :data:`FORMATS`; module docstring): requests in file order, refused records, notes
    on how it was read. Raises
    :class:`ProjectFormatError` for a file that cannot be read as a whole and
    :class:`InputError` for an unknown format."""
    if fmt == "jsonl":
        read = Read(*read_requests_jsonl(path, max_chars))
    elif fmt == "csv":
        read = _read_csv(path, max_chars)
    elif fmt == "github":
        read = _read_github(path, max_chars)
    else:
        raise InputError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    return _read_dates(read, path.name)


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?", re.I)
_DAY_FIRST = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?")

DATE_FORMS = "YYYY-MM-DD (ISO 8601, a time after it optional) or DD.MM.YYYY"
"""The ``submitted_at`` forms :func:`read_requests` reads, as its notes name them."""


def day_first_date(text: str) -> str | None:
    """``text`` written day first with dots (``07.12.2026``, ``7.12.2026 14:30``) as
    ISO 8601 (``2026-12-07``, ``2026-12-07T14:30:00``), else None (another form, or no
    such day). Source of the order: DIN 5008 writes the numeric date ``TT.MM.JJJJ``
    beside ISO's, and Turkish usage writes ``GG.AA.YYYY``; Excel in tr-TR and de-DE
    writes dates so. Slashed dates are not read: ``07/12/2026`` is 12 July in US usage,
    the order cannot be told from the text."""
    m = _DAY_FIRST.fullmatch(text.strip())
    if m is None:
        return None
    day, month, year, hour, minute, second = m.groups()
    try:
        if hour is None:
            return date(int(year), int(month), int(day)).isoformat()
        moment = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0))
    except ValueError:
        return None
    return moment.isoformat()


def _read_dates(read: Read, name: str) -> Read:
    """``read`` with each request's ``submitted_at`` readable as a date: ISO 8601 kept,
    a day-first dotted date made ISO (:func:`day_first_date`), any other kept as
    written with one note naming its lines and the forms read (the row itself is good:
    it is stored; its pending age then counts from when it was stored, a PMO trial of
    issue 35 saw "07.12.2026" taken silently)."""
    out: list[Request] = []
    turned: list[int] = []
    unread: list[tuple[int, str]] = []
    for request in read.requests:
        at = (request.submitted_at or "").strip()
        if at and not _ISO_DATE.fullmatch(at):
            iso = day_first_date(at)
            if iso is not None:
                request = replace(request, submitted_at=iso)
                turned.append(request.line)
            else:
                unread.append((request.line, at))
        out.append(request)
    notes = list(read.notes)
    if turned:
        notes.append(
            f"{name}: submitted_at read day first (DD.MM.YYYY, as DIN 5008 and Turkish "
            f"usage write it) on {plural(len(turned), 'line')} {_numbers(turned)}"
        )
    if unread:
        shown = ", ".join(f"{line} ({at[:40]!r})" for line, at in unread[:5])
        more = f" and {len(unread) - 5} more" if len(unread) > 5 else ""
        notes.append(
            f"{name}: submitted_at not read as a date on {plural(len(unread), 'line')} "
            f"{shown}{more}: the request is stored, its age counts from when it was stored; write {DATE_FORMS}"
        )
    return Read(tuple(out), read.refused, tuple(notes))


def _numbers(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:10])
    return shown + (f" and {len(numbers) - 10} more" if len(numbers) > 10 else "")
