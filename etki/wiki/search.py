"""Wiki search: token-AND, case-insensitive, with the engine's normalisation.

A query is split into folded tokens with :func:`etki.text.words` (the same normaliser the
triage engine uses: NFC/NFD alike, Turkish ``İ``/``I``/``ı``/``i`` alike, ``ß`` = ``ss``,
umlauts and accents dropped). A page matches when every token occurs somewhere in its
folded text (as a substring of a folded line, so ``sso`` finds ``SSO-Anmeldung``), in
any of its spellings (:func:`etki.text.spellings`: a typed ``ae``/``oe``/``ue`` also
stands for the umlaut, so ``Groesse`` finds ``Größe``). Each
matching page gives one :class:`Hit`: the first line on which the most tokens occur, as a
printable one-line snippet. Hits are sorted by (most tokens on one line first, path).

Three backends, one matcher, the same hits (DESIGN.md, "Wiki"; ``tests/test_wiki_search.py``
compares them). On a wiki of :data:`RG_MIN_FILES` pages or more the default is the FTS5
index when its file exists (fastest when warm: BENCH.md, search), else ``rg`` when
installed (no first build), else the FTS5 index; smaller wikis are scanned by Python.

* ``rg``: ripgrep cannot fold Turkish i's or ``ß``, so each token becomes a *permissive*
  regular expression that matches every raw spelling whose fold contains it (built from
  an inverse table of :func:`etki.text.fold` over all of Unicode, combining marks
  skipped; it can only over-match). One ``rg -n`` over the tree with the patterns of the
  tokens of three or more characters prints every line that may hold one of them; Python
  folds only those lines and confirms the AND exactly. A line ``rg`` did not print holds
  only short tokens, so when a page's best printed line has more tokens than there are
  short ones, it is the best line; otherwise (a short token only on unprinted lines)
  that page is read and matched whole. Queries of short tokens only (or over
  :data:`_RG_LINES_MAX_TOKENS` long ones) use ``rg -l`` passes, one token after the
  other over the files still in (at most :data:`_RG_CHAIN`), then the Python matcher.
  Snippets are cut only for the hits returned (``limit``). Query text reaches ``rg``
  only as ``--regexp`` values built from folded word characters, and file names only
  after ``--``. Any ``rg`` failure falls back to the next backend.
* ``fts``: a SQLite FTS5 ``trigram`` index of the folded text of every page
  (:mod:`etki.wiki.fts`). It is a side
  file *beside* the wiki folder, never inside it, so ``verify`` and ``rebuild`` do not see
  it, and it works whatever the main database is (SQLite or PostgreSQL). It is brought
  up to the wiki's change token before each query (the desk's live search is
  :func:`ranked_search` on it): no walk while the projector keeps it current (it queues
  the pages it wrote); a wiki without a state file, or one whose token the index has not
  seen (a rebuild, a killed projection), is synced by stat, each page's (size, mtime,
  ctime, inode) against what was indexed; :func:`etki.wiki.fts.refresh` does that after
  a rebuild so the first search finds it warm. When the index cannot be used (no FTS5,
  read-only folder, a broken file that cannot be recreated) the Python scan answers.
* ``python``: read and fold every page (the reference; used for small wikis).

``etki wiki search`` prints a ranked top N instead (:func:`ranked_search`, issue 32): the
same pages, ordered by :func:`etki.wiki.pagematch.rank_key` (for a query that is a
clause number, that clause and then its sub-clauses first,
:mod:`etki.wiki.clausequery`; then pages where the query's
one- or two-letter words begin a word first, then pages whose title holds more of the
words, then shorter pages, then path); the desk's live search is the same function
(:func:`etki.wiki.live.top` adds each hit's title and visible excerpt). The FTS5 index ranks and cuts inside
SQLite from the folded title and byte size it stores per page and reads text only for
the hits shown; ``rg`` and Python read each hit page's title and size and sort the same
way, so every backend prints the same lines. A contract page is searched clause by
clause there (issue 33): its head and each clause section
(:func:`etki.wiki.sections.page_parts`) is a hit of its own, ``path#anchor``, holding
every word, ranked by the same key with the clause heading as its title; the FTS5
index stores the parts, ``rg`` and Python split the pages they matched.
:func:`search` keeps its order (most tokens on one line first, path) and whole pages,
for the desk's fallback.

Only ``*.md`` files are searched; hidden files and folders and symlinks are skipped.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import NamedTuple

from etki.text import fold, spellings
from etki.wiki.clausequery import clause_number
from etki.wiki.excerpt import page_title
from etki.wiki.foldinverse import fold_inverse
from etki.wiki.pagematch import (
    SHORT_TOKEN,
    SNIPPET_CHARS,
    Cancelled,
    Hit,
    _best_in_folded,
    match_folded,
    match_text,
    occurs,
    page_snippet,
    query_tokens,
    rank_key,
    walk_pages,
    word_starts,
)

__all__ = [
    "BACKENDS",
    "RG_MIN_FILES",
    "SNIPPET_CHARS",
    "DEFAULT_LIMIT",
    "Hit",
    "Ranked",
    "find_rg",
    "match_text",
    "query_tokens",
    "ranked_search",
    "search",
    "token_regex",
    "wiki_files",
]

RG_MIN_FILES = 200
"""With ``use_rg=None``, ``rg`` (or the FTS5 index) is only worth it on wikis this big."""
BACKENDS = ("rg", "fts", "python")
_REGEX_MAX_CHARS = 60_000
_RG_CHAIN = 4  # short-token queries: at most this many ``rg -l`` passes
_RG_LINES_MAX_TOKENS = 16  # more long tokens than this: ``rg -l`` passes, then Python
_RG_ARGS_BYTES = 96_000  # file names per rg call (well under ARG_MAX); more: several calls


_Pending = tuple[int, str, str]  # (line number, raw line, first token on it): a snippet to cut
_Scored = tuple[int, str, Hit | _Pending]  # (-count, wiki-relative path, hit or pending)


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
    return sorted(rel for rel, _ in walk_pages(root))


def _has_pages(root: Path, at_least: int) -> bool:
    """Whether ``root`` holds at least ``at_least`` pages (stops counting there)."""
    return any(n >= at_least for n, _ in enumerate(walk_pages(root), 1))


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None


def _scan(root: Path, files: Iterable[str], tokens: list[str]) -> list[_Scored]:
    scored: list[_Scored] = []
    for rel in files:
        text = _read(root / rel)
        if text is None:
            continue
        found = match_text(text, tokens)
        if found is not None:
            line, count, snippet = found
            scored.append((-count, rel, Hit(rel, line, snippet)))
    return scored


# --- the rg backend -----------------------------------------------------------------------


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


@lru_cache(maxsize=128)
def spelled_regex(token: str, max_chars: int = _REGEX_MAX_CHARS) -> str | None:
    """:func:`token_regex` of each of ``token``'s spellings (:func:`etki.text.spellings`:
    ``groesse`` also as ``grosse``) as one alternation; None when one has no pattern or
    the whole would be longer than ``max_chars``."""
    forms: list[str] = []
    for spelled in spellings(token):
        form = token_regex(spelled, max_chars)
        if form is None:
            return None
        forms.append(form)
    pattern = forms[0] if len(forms) == 1 else "(?:" + "|".join(forms) + ")"
    return pattern if len(pattern) <= max_chars else None


@lru_cache(maxsize=128)
def token_regex(token: str, max_chars: int = _REGEX_MAX_CHARS) -> str | None:
    """A Rust-regex (ripgrep) pattern that matches every raw text whose
    :func:`etki.text.fold` contains ``token`` (a folded token), and maybe more: each
    character of the token becomes a class of every character folding to it, characters
    with multi-character folds (``ß``→``ss``, ligatures, Hangul syllables) are allowed
    where their fold covers part of the token, and combining marks may appear between
    characters (NFD). None when the pattern would be longer than ``max_chars``."""
    if not token:
        return None
    single, multi, empty_non_mark = fold_inverse()
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
        for f, cp in multi.get(token[i], ()):  # either test needs f[0] == token[i]
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
        for f, cp in chain.from_iterable(multi.values()):
            if token[0] not in f:  # neither test below can hold
                continue
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


class _RgFailed(Exception):
    """``rg`` could not answer (missing, error exit, time-out): use the next backend."""


def _rg_run(
    rg: str, root: Path, options: list[str], patterns: list[str], files: list[str] | None
) -> bytes:
    """stdout of ``rg`` in ``root`` with ``options`` and ``patterns`` over ``files``
    (wiki-relative paths, given after ``--``; None = the whole tree, ``*.md`` only), in as
    many calls as the command-line length needs. Raises :class:`_RgFailed`."""
    base = [
        rg,
        "--no-config",
        "--no-messages",
        "--no-ignore",
        "--text",
        "--encoding",
        "none",
        "--null",
        *options,
    ]
    for pattern in patterns:
        base += ["--regexp", pattern]
    if files is None:
        calls = [[*base, "--glob", "*.md", "--glob", "!.*", "--", "."]]  # a glob beats hidden
    else:
        calls, size = [], 0
        chunk: list[str] = []
        for rel in files:
            if chunk and size + len(rel) + 1 > _RG_ARGS_BYTES:
                calls.append([*base, "--", *chunk])
                chunk, size = [], 0
            chunk.append(rel)
            size += len(rel) + 1
        if chunk:
            calls.append([*base, "--", *chunk])
    out: list[bytes] = []
    for cmd in calls:
        try:
            done = subprocess.run(cmd, cwd=root, capture_output=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            raise _RgFailed(str(exc)) from exc
        if done.returncode not in (0, 1):  # 1: nothing found
            raise _RgFailed(f"rg exit {done.returncode}")
        out.append(done.stdout)
    return b"".join(out)


def _rel(raw: bytes) -> str:
    path = os.fsdecode(raw)
    return path[2:] if path.startswith("./") else path


_RG_LINE = re.compile(rb"([^\0]*)\0(\d+:[^\n]*\n)")  # path NUL lineno ':' line (--null -n)


def _rg_lines(
    rg: str, root: Path, tokens: list[str], long: list[str], patterns: dict[str, str]
) -> list[_Scored]:
    """One ``rg -n`` over the tree prints every line that may hold a ``long`` token
    (three or more characters); each is folded once and every token looked up on it.
    A line ``rg`` did not print holds only short tokens (at most ``len(tokens) -
    len(long)``), so a file whose best printed line has more tokens is decided here;
    any other file that may match is read and matched whole by Python. Same result as
    :func:`match_text` on every page."""
    short = len(tokens) - len(long)
    out = _rg_run(rg, root, ["--line-number", "--with-filename"], [patterns[t] for t in long], None)
    per_file: dict[bytes, list[bytes]] = defaultdict(list)
    for m in _RG_LINE.finditer(out):
        per_file[m.group(1)].append(m.group(2))
    scored: list[_Scored] = []
    unsure: list[str] = []
    for raw_rel, chunks in per_file.items():
        # a quick superset test on "number:line" text (numbers only add text), then exact
        quick = fold(b"".join(chunks).decode("utf-8", errors="replace"))
        if not all(occurs(quick, t) for t in long):
            continue
        numbers, lines = zip(*(c.partition(b":")[::2] for c in chunks), strict=True)
        text = b"".join(lines)[:-1].decode("utf-8", errors="replace")  # each ends with \n
        folded = fold(text)  # line i of it is printed line i
        if not all(occurs(folded, t) for t in long):
            continue  # every line holding a long token was printed: one is missing
        rel = _rel(raw_rel)
        if not _regular(root, rel):
            continue
        best = _best_in_folded(folded, tokens)
        if best is not None and best[2] > short:
            index, _, count, first = best
            line = lines[index][:-1].decode("utf-8", errors="replace")
            scored.append((-count, rel, (int(numbers[index]), line, first)))
        else:
            unsure.append(rel)  # a short token, or the best line, may be on a line not printed
    return scored + _scan(root, unsure, tokens)


def _regular(root: Path, rel: str) -> bool:
    """``rel`` is a regular file (not a symlink) in no hidden folder: what
    :func:`wiki_files` would list (``rg`` skips linked folders; hidden ones are globbed out)."""
    if any(part.startswith(".") for part in rel.split("/")):
        return False
    try:
        return stat.S_ISREG(os.lstat(root / rel).st_mode)  # a symlink is no regular file
    except OSError:
        return False


def _rg_search(rg: str, root: Path, tokens: list[str]) -> list[_Scored]:
    """Scored hits through ``rg`` (see the module docstring). Raises :class:`_RgFailed`."""
    long = [t for t in tokens if all(len(s) >= 3 for s in spellings(t))]
    if long and len(long) <= _RG_LINES_MAX_TOKENS:
        patterns = {t: p for t in long if (p := spelled_regex(t)) is not None}
        if len(patterns) == len(long):
            return _rg_lines(rg, root, tokens, long, patterns)
    files: list[str] | None = None  # short tokens only, too many, or a pattern too long
    passes = 0
    for token in sorted(tokens, key=lambda t: (-len(t), t)):
        pattern = spelled_regex(token)  # patterns only for the tokens used
        if pattern is None:
            continue
        out = _rg_run(rg, root, ["--files-with-matches"], [pattern], files)
        files = sorted({_rel(p) for p in out.split(b"\0") if p})
        passes += 1
        if not files:
            return []
        if passes == _RG_CHAIN:
            break
    if files is None:
        raise _RgFailed("no token has a pattern")
    return _scan(root, [f for f in files if _regular(root, f)], tokens)


def _hit(root: Path, rel: str, found: Hit | _Pending) -> Hit:
    """The hit of ``found``; a pending one (an ``rg`` line) gets its snippet here, for
    the hits shown only: the page's lines above it are read to tell whether the line is
    in a fenced block (:func:`etki.wiki.pagematch.page_snippet`); a page that cannot be
    read any more is taken as plain markdown."""
    if isinstance(found, Hit):
        return found
    number, line, token = found
    try:
        with (root / rel).open("rb") as page:
            above = [page.readline() for _ in range(number - 1)]
    except OSError:
        above = []
    lines = [b.rstrip(b"\n").decode("utf-8", errors="replace") for b in above]
    return Hit(rel, number, page_snippet([*lines, line], len(lines), token))


# --- entry point -------------------------------------------------------------------------


def _order(root: Path, use_rg: bool | None, backend: str | None) -> list[str]:
    """The backends to try, in order (see :func:`search`); Python answers after them."""
    if backend is not None:
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
        return [backend]
    if use_rg is True:
        return ["rg"]
    if not _has_pages(root, RG_MIN_FILES):
        return []
    from etki.wiki.fts import index_path

    if use_rg is False:
        return ["fts"]
    if index_path(root).is_file():  # warm: the fastest (BENCH.md, search)
        return ["fts", "rg"]
    return ["rg", "fts"]  # no index yet: rg needs no 8 s first build


def _rg_or_none(root: Path, tokens: list[str]) -> list[_Scored] | None:
    rg = find_rg()
    if rg is None:
        return None
    try:
        return _rg_search(rg, root, tokens)
    except _RgFailed:
        return None


def search(
    wiki_root: Path,
    query: str,
    *,
    use_rg: bool | None = None,
    limit: int | None = None,
    backend: str | None = None,
) -> list[Hit]:
    """Search the wiki at ``wiki_root`` for pages containing every token of ``query``.

    ``backend``: ``"rg"``, ``"fts"`` or ``"python"`` to choose one (``rg`` missing or
    failing, or the index unusable: the Python scan answers). Without it, ``use_rg``
    decides: None = on a wiki of at least :data:`RG_MIN_FILES` pages the FTS5 index when
    its file exists (:func:`etki.wiki.fts.index_path`; kept warm by
    :func:`etki.wiki.fts.refresh`), else ``rg`` when installed (:func:`find_rg`), else
    the FTS5 index (built by this search); Python on smaller wikis. True = ``rg``
    whenever installed, else Python; False = no ``rg``: the FTS5 index on a wiki that
    big, else Python. Every way gives the same list. Returns hits sorted by
    (most query tokens on one line first, path), at most ``limit`` of them; ``[]`` for a
    query without tokens or a missing folder. Unreadable files are skipped; never raises
    for file content. (``etki wiki search`` ranks instead: :func:`ranked_search`.)
    """
    tokens = query_tokens(query)
    root = Path(wiki_root)
    order = _order(root, use_rg, backend)
    if not tokens or not root.is_dir():
        return []
    scored: Sequence[_Scored] | None = None
    for name in order:
        if name == "rg":
            scored = _rg_or_none(root, tokens)
        elif name == "fts":
            from etki.wiki import fts

            scored = fts.search_scored(root, tokens, limit)
        if scored is not None:
            break
    if scored is None:
        scored = _scan(root, wiki_files(root), tokens)
    ordered = sorted(scored, key=lambda s: (s[0], s[1]))
    if limit is not None:
        ordered = ordered[:limit]
    return [_hit(root, rel, found) for _, rel, found in ordered]  # snippets only for these


# --- the ranked top (``etki wiki search``) --------------------------------------------------

DEFAULT_LIMIT = 20
"""Hits ``etki wiki search`` prints without ``--limit`` or ``--all``."""


class Ranked(NamedTuple):
    """A :func:`ranked_search` answer: the ``hits`` shown (best first), ``total`` pages
    holding every token, the ``backend`` that answered (``fts``, ``rg``, ``python``
    or ``none`` for a query without words or a missing folder) and, when the FTS5 index
    answered, how it caught up with the wiki first (``synced``: ``token``, ``queued``
    or ``walk``; ``""`` otherwise)."""

    hits: list[Hit]
    total: int
    backend: str
    synced: str = ""


def _rank(
    root: Path,
    scored: Iterable[_Scored],
    tokens: list[str],
    cancelled: Callable[[], bool] | None = None,
    number: str | None = None,
) -> list[tuple[tuple[int, int, int, int, int, str], Hit | _Pending]]:
    """Each page of ``scored`` with its :func:`etki.wiki.pagematch.rank_key` (its title
    and size read from the page, as the FTS5 index stores them), sorted; a page that
    cannot be read is left out (as every backend skips it). A contract page gives its
    parts instead (:func:`etki.wiki.sections.page_parts`: its head and every clause
    section, ``path#anchor``), each that holds every token with its own key (its title,
    size and address) and line (on the page), as the FTS5 index stores and ranks them;
    a page holding a token only outside every part holding the others gives none.
    ``number``: the query's clause number (:func:`etki.wiki.clausequery.clause_number`),
    whose clause and sub-clauses rank first. ``cancelled`` is polled before each page (:class:`~etki.wiki.pagematch.Cancelled`)."""
    from etki.wiki.clausequery import number_rank
    from etki.wiki.sections import page_parts

    short = any(len(t) < SHORT_TOKEN for t in tokens)  # else no word starts to count
    out: list[tuple[tuple[int, int, int, int, int, str], Hit | _Pending]] = []
    for _, rel, found in scored:
        if cancelled is not None and cancelled():
            raise Cancelled
        try:
            raw = (root / rel).read_bytes()
        except OSError:
            continue
        text = raw.decode("utf-8", errors="replace")
        parts = page_parts(rel, text)
        if not parts:
            starts = word_starts(fold(text), tokens) if short else 0
            key = rank_key(fold(page_title(text, rel)), len(raw), rel, tokens, starts)
            out.append((key, found))
            continue
        for part in parts:
            got = match_folded(part.text, part.folded, tokens)
            if got is not None:
                line, _, snippet = got
                starts = word_starts(part.folded, tokens) if short else 0
                at = number_rank(part.anchor, part.start, number)
                key = rank_key(part.ftitle, part.size, part.address, tokens, starts, at)
                out.append((key, Hit(part.address, part.start + line, snippet)))
    return sorted(out, key=lambda r: r[0])


def ranked_search(
    wiki_root: Path,
    query: str,
    *,
    limit: int | None = DEFAULT_LIMIT,
    use_rg: bool | None = None,
    backend: str | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Ranked:
    """The ``limit`` best pages (None: every one) of the wiki at ``wiki_root`` holding
    every token of ``query`` — the same pages as :func:`search` — ranked by
    :func:`etki.wiki.pagematch.rank_key` (pages whose title holds more of the words
    first, then shorter pages, then path), and the number of matching pages; each hit's
    line and snippet as :func:`search` gives them. The backend is chosen as :func:`search` chooses it; the FTS5 index
    ranks and cuts inside SQLite from the folded title and size it stores and reads
    text only for the hits returned (:func:`etki.wiki.ftsranked.search_ranked`); ``rg`` and
    Python read the title and size of every hit page and rank them the same way, so every backend returns the same list. Raises ``ValueError`` for an
    unknown ``backend`` or a ``limit`` below 1. ``cancelled`` (the desk's live search:
    a newer keystroke's search took over) is polled while the FTS5 index waits for a
    lock or runs its query and before each page read; when it returns True,
    :class:`~etki.wiki.pagematch.Cancelled` is raised."""
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    tokens = query_tokens(query)
    root = Path(wiki_root)
    order = _order(root, use_rg, backend)
    if not tokens or not root.is_dir():
        return Ranked([], 0, "none")
    scored: Sequence[_Scored] | None = None
    answered = "python"
    for name in order:
        if name == "rg":
            scored = _rg_or_none(root, tokens)
        elif name == "fts":
            from etki.wiki.ftsranked import search_ranked

            got = search_ranked(root, tokens, limit, cancelled, clause_number(query))
            if got is not None:
                return Ranked(got[0], got[1], "fts", got[2])
        if scored is not None:
            answered = name
            break
    if scored is None:
        scored = _scan(root, wiki_files(root), tokens)
    ranked = _rank(root, scored, tokens, cancelled, clause_number(query))
    shown = ranked if limit is None else ranked[:limit]
    return Ranked([_hit(root, key[-1], found) for key, found in shown], len(ranked), answered)
