"""Wiki search: token-AND, case-insensitive, with the engine's normalisation.

A query is split into folded tokens with :func:`etki.text.words` (the same normaliser the
triage engine uses: NFC/NFD alike, Turkish ``İ``/``I``/``ı``/``i`` alike, ``ß`` = ``ss``,
umlauts and accents dropped). A page matches when every token occurs somewhere in its
folded text (as a substring of a folded line, so ``sso`` finds ``SSO-Anmeldung``). Each
matching page gives one :class:`Hit`: the first line on which the most tokens occur, as a
printable one-line snippet.

Two ways to find candidate pages, with the same results (DESIGN.md, "Wiki"):

* Python: fold every page and test it.
* ``rg`` when installed: ripgrep cannot fold Turkish i's or ``ß``, so one token (the
  longest) is turned into a *permissive* regular expression that matches every raw
  spelling whose fold contains the token (built from an inverse table of
  :func:`etki.text.fold` over all of Unicode, combining marks skipped), ``rg`` lists the
  files that match it, and the same Python matcher then confirms each candidate. The
  regex can only over-match, so both paths return identical hits. Any ``rg`` failure
  falls back to the Python scan.

Only ``*.md`` files are searched; hidden files and folders and symlinks are skipped.
Results are sorted by (most tokens on one line first, path).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from etki.text import fold, fold_with_offsets, printable, words

__all__ = ["RG_MIN_FILES", "SNIPPET_CHARS", "Hit", "find_rg", "query_tokens", "search", "token_regex",
           "wiki_files"]

SNIPPET_CHARS = 160
RG_MIN_FILES = 200
"""With ``use_rg=None``, ``rg`` is only worth its process start on wikis this big."""
_REGEX_MAX_CHARS = 60_000
_SCAN_LIMIT = 0x30000  # no code point at or above folds to anything but itself (Unicode 14/15)


class Hit(NamedTuple):
    """One matching page: ``path`` relative to the wiki root (POSIX), ``line`` (1-based)
    of the best line and ``snippet`` (that line, printable, one line, trimmed)."""

    path: str
    line: int
    snippet: str


def query_tokens(query: str) -> list[str]:
    """The distinct folded tokens of ``query``, in order of first appearance."""
    return list(dict.fromkeys(words(query)))


def find_rg() -> str | None:
    """Path of the ``rg`` executable: on ``PATH``, else next to the running Python (a
    venv with the PyPI ``ripgrep`` wheel), else None."""
    found = shutil.which("rg")
    if found:
        return found
    beside = Path(sys.executable).parent / ("rg.exe" if os.name == "nt" else "rg")
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


def wiki_files(root: Path) -> list[str]:
    """Every searchable page under ``root``: ``*.md`` files, not hidden, not symlinks,
    not inside hidden or symlinked folders. Sorted wiki-relative POSIX paths."""
    if not root.is_dir():
        return []
    out: list[str] = []
    folders = [("", str(root))]  # (wiki-relative prefix, path); scandir's entries know
    while folders:               # their type without one lstat per file (16k pages)
        prefix, path = folders.pop()
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    name = entry.name
                    if name.startswith("."):
                        continue
                    try:
                        if entry.is_dir(follow_symlinks=False):  # a symlink is no folder
                            folders.append((f"{prefix}{name}/", entry.path))
                        elif name.endswith(".md") and entry.is_file(follow_symlinks=False):
                            out.append(prefix + name)  # a regular file, not a symlink
                    except OSError:
                        continue
        except OSError:
            continue
    return sorted(out)


# --- the one matcher ---------------------------------------------------------------------

def _fold_line(line: str) -> str:
    return line.lower() if line.isascii() else fold(line)  # identical for ASCII


def _snippet(line: str, token: str) -> str:
    nfc = unicodedata.normalize("NFC", line)
    folded, origin = fold_with_offsets(nfc)
    at = folded.find(token)
    start_char = origin[at] if at >= 0 else 0
    text = nfc.strip()
    shift = len(nfc) - len(nfc.lstrip())
    start_char = max(0, start_char - shift)
    if len(text) > SNIPPET_CHARS:
        start = max(0, min(start_char - 40, len(text) - SNIPPET_CHARS))
        end = start + SNIPPET_CHARS
        text = ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")
    return " ".join(printable(text, multiline=False).split())


def match_text(text: str, tokens: list[str]) -> tuple[int, int, str] | None:
    """Match page ``text`` against folded ``tokens``: ``(line, count, snippet)`` of the
    first line where the most tokens occur, or None when a token occurs on no line."""
    whole = fold(text)  # fold keeps line breaks where they are: line i of it is line i folded
    if not all(t in whole for t in tokens):  # a token never spans a line break
        return None
    lines = text.split("\n")
    folded = whole.split("\n")
    seen: set[str] = set()
    best = (-1, 0)
    for i, f in enumerate(folded):
        present = [t for t in tokens if t in f]
        if present:
            seen.update(present)
            if len(present) > best[1]:
                best = (i, len(present))
    if len(seen) < len(tokens) or best[0] < 0:
        return None
    line = lines[best[0]]
    first = next(t for t in tokens if t in folded[best[0]])
    return best[0] + 1, best[1], _snippet(line, first)


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None


# --- the rg pre-filter --------------------------------------------------------------------

@lru_cache(maxsize=1)
def _fold_table() -> tuple[dict[str, tuple[int, ...]], tuple[tuple[str, int], ...],
                           tuple[int, ...]]:
    """Inverse of :func:`fold` per character: (one-character fold -> code points whose
    fold is exactly it, excluding identities), ((multi-character fold, code point) ...),
    and the code points whose fold is empty and that are not combining marks."""
    single: dict[str, list[int]] = defaultdict(list)
    multi: list[tuple[str, int]] = []
    empty_non_mark: list[int] = []
    for cp in range(_SCAN_LIMIT):
        if 0xD800 <= cp < 0xE000:
            continue
        ch = chr(cp)
        f = fold(ch)
        if f == ch:
            continue
        if len(f) == 1:
            single[f].append(cp)
        elif f:
            multi.append((f, cp))
        elif not unicodedata.category(ch).startswith("M"):
            empty_non_mark.append(cp)
    return ({k: tuple(v) for k, v in single.items()}, tuple(multi), tuple(empty_non_mark))


def _char_class(cps: Iterable[int]) -> str:
    points = sorted(set(cps))
    parts: list[str] = []
    i = 0
    while i < len(points):
        j = i
        while j + 1 < len(points) and points[j + 1] == points[j] + 1:
            j += 1
        lo, hi = points[i], points[j]
        parts.append(f"\\x{{{lo:X}}}" if lo == hi else f"\\x{{{lo:X}}}-\\x{{{hi:X}}}")
        i = j + 1
    return "[" + "".join(parts) + "]"


def token_regex(token: str, max_chars: int = _REGEX_MAX_CHARS) -> str | None:
    """A Rust-regex (ripgrep) pattern that matches every raw text whose
    :func:`etki.text.fold` contains ``token`` (a folded token), and maybe more: each
    character of the token becomes a class of every character folding to it, characters
    with multi-character folds (``ß``→``ss``, ligatures, Hangul syllables) are allowed
    where their fold covers part of the token, and combining marks may appear between
    characters (NFD). None when the pattern would be longer than ``max_chars``."""
    if not token:
        return None
    single, multi, empty_non_mark = _fold_table()
    n = len(token)
    skip = ("[\\p{M}" + _char_class(empty_non_mark)[1:-1] + "]*") if empty_non_mark else "\\p{M}*"
    memo: dict[int, str] = {}

    def tail(j: int) -> str:
        return "" if j >= n else skip + rest(j)

    def rest(i: int) -> str:
        if i in memo:
            return memo[i]
        alts: list[str] = []
        one = [ord(token[i]), *single.get(token[i], ())]
        alts.append(_char_class(one) + tail(i + 1))
        by_end: dict[int, list[int]] = defaultdict(list)
        ends: list[int] = []
        for f, cp in multi:
            if token.startswith(f, i):
                by_end[i + len(f)].append(cp)
            elif len(f) > n - i and f.startswith(token[i:]):
                ends.append(cp)
        for j in sorted(by_end):
            alts.append(_char_class(by_end[j]) + tail(j))
        if ends:
            alts.append(_char_class(ends))
        memo[i] = "(?:" + "|".join(alts) + ")"
        if len(memo[i]) > max_chars:
            raise OverflowError
        return memo[i]

    try:
        alts = [rest(0)]
        inside: list[int] = []
        by_start: dict[int, list[int]] = defaultdict(list)
        for f, cp in multi:
            if token in f:
                inside.append(cp)
                continue
            for k in range(1, min(len(f), n + 1)):
                if f.endswith(token[:k]):
                    by_start[k].append(cp)
        if inside:
            alts.append(_char_class(inside))
        for k in sorted(by_start):
            alts.append(_char_class(by_start[k]) + tail(k))
        pattern = "(?:" + "|".join(alts) + ")"
    except (OverflowError, RecursionError):
        return None
    return pattern if len(pattern) <= max_chars else None


def _rg_candidates(rg: str, root: Path, tokens: list[str]) -> set[str] | None:
    """Files under ``root`` that may match (a superset), or None when rg cannot help."""
    for token in sorted(tokens, key=lambda t: (-len(t), t)):
        pattern = token_regex(token)
        if pattern is None:
            continue
        cmd = [rg, "--no-config", "--files-with-matches", "--null", "--no-ignore",
               "--no-messages", "--text", "--glob", "*.md", "--regexp", pattern, "--", "."]
        try:
            done = subprocess.run(cmd, cwd=root, capture_output=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode == 1:
            return set()
        if done.returncode != 0:
            return None
        out = done.stdout.decode("utf-8", errors="surrogateescape")
        return {p[2:] if p.startswith("./") else p for p in out.split("\0") if p}
    return None


# --- entry point -------------------------------------------------------------------------

def search(wiki_root: Path, query: str, *, use_rg: bool | None = None,
           limit: int | None = None) -> list[Hit]:
    """Search the wiki at ``wiki_root`` for pages containing every token of ``query``.

    ``use_rg``: None = use ``rg`` when installed (:func:`find_rg`) and the wiki has at
    least :data:`RG_MIN_FILES` pages, True = use it whenever installed, False = Python
    only; without ``rg``, or when it fails, Python does it all. Every way gives the same
    list. Returns hits sorted by (most query tokens on one line first,
    path), at most ``limit`` of them; ``[]`` for a query without tokens or a missing
    folder. Unreadable files are skipped; never raises for file content.
    """
    tokens = query_tokens(query)
    root = Path(wiki_root)
    if not tokens or not root.is_dir():
        return []
    files = wiki_files(root)
    wanted = use_rg if use_rg is not None else len(files) >= RG_MIN_FILES
    rg = find_rg() if wanted else None
    if rg is not None:
        candidates = _rg_candidates(rg, root, tokens)
        if candidates is not None:
            files = [f for f in files if f in candidates]
    scored: list[tuple[int, str, Hit]] = []
    for rel in files:
        text = _read(root / rel)
        if text is None:
            continue
        found = match_text(text, tokens)
        if found is not None:
            line, count, snippet = found
            scored.append((-count, rel, Hit(rel, line, snippet)))
    scored.sort(key=lambda s: (s[0], s[1]))
    hits = [s[2] for s in scored]
    return hits if limit is None else hits[:limit]
