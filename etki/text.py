"""Unicode text helpers shared by the engine, the wiki search and the UI.

One normaliser for everything that compares text (triage scoring, wiki search, slugs,
sorting), so a word matches the same way everywhere:

* NFC first, so NFD input (``"I\\u0307ade"``) and NFC input give the same result;
* per character: compatibility decomposition, combining marks removed, ``casefold``;
  Turkish dotted ``İ``/``i`` and dotless ``ı``/``I`` all fold to ``i``; German ``ß``
  folds to ``ss`` and umlauts to their base letter (``Größe`` -> ``grosse``,
  ``Prüfung`` -> ``prufung``), Turkish ``ş ç ğ ö ü`` to ``s c g o u``.

Folding is done character by character (:func:`fold_with_offsets`) so a match in folded
text can be mapped back to the original characters for highlighting.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache

_SPECIAL = {
    "ı": "i",
    "İ": "i",
    "ß": "ss",
    "ẞ": "ss",
    "æ": "ae",
    "Æ": "ae",
    "ø": "o",
    "Ø": "o",
    "œ": "oe",
    "Œ": "oe",
    "đ": "d",
    "Đ": "d",
    "ł": "l",
    "Ł": "l",
}
_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    special = _SPECIAL.get(ch)
    if special is not None:
        return special
    decomposed = unicodedata.normalize("NFKD", ch)
    base = "".join(c for c in decomposed if not unicodedata.combining(c))
    return base.casefold()


class _FoldTable(dict):
    """Code point -> :func:`_fold_char` of it, filled on first use, for ``str.translate``
    (which then folds at C speed: one lookup per character instead of a Python call)."""

    def __missing__(self, code: int) -> str:
        folded = self[code] = _fold_char(chr(code))
        return folded


_FOLD_TABLE = _FoldTable()
_NON_ASCII = re.compile(r"([^\x00-\x7f]+)")


def fold(text: str) -> str:
    """Fold ``text`` for comparison: NFC, marks removed, casefolded, Turkish i's merged.

    >>> fold("İADE Süreci") == fold("iade sureci") == fold("IADE SÜRECİ")
    True
    """
    if text.isascii():  # NFC already; each character folds to its lower case
        return text.lower()
    parts = _NON_ASCII.split(unicodedata.normalize("NFC", text))  # ascii, other, ascii, ...
    parts[0::2] = [p.lower() for p in parts[0::2]]
    parts[1::2] = [p.translate(_FOLD_TABLE) for p in parts[1::2]]
    return "".join(parts)


def fold_with_offsets(text: str) -> tuple[str, list[int]]:
    """Fold ``text`` (already NFC) and return ``(folded, origin)`` where ``origin[j]`` is
    the index in ``text`` of the character that produced ``folded[j]``; ``origin`` has one
    extra entry ``len(text)`` so end offsets map too. Used to highlight matches."""
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        piece = _fold_char(ch)
        out.append(piece)
        origin.extend([i] * len(piece))
    origin.append(len(text))
    return "".join(out), origin


def fold_origin(text: str, at: int) -> int:
    """``fold_with_offsets(text)[1][at]`` without the offset list: the index in ``text``
    (already NFC) of the character whose fold gave character ``at`` of its fold,
    ``len(text)`` when ``at`` is past the end. A binary search over the lengths of the
    folded prefixes (each folded at C speed): a snippet of a long line maps one match
    back without a Python call per character."""
    return bisect.bisect_right(
        range(len(text)), at, key=lambda k: len(text[: k + 1].translate(_FOLD_TABLE))
    )


def words(text: str) -> list[str]:
    """Folded word tokens of ``text`` (letters and digits; ``_`` and punctuation split)."""
    return _WORD.findall(fold(text))


def names_person(typed: str, name: str) -> bool:
    """Whether ``typed`` (a name as a user typed it: ``--reviewer``, ``--to``,
    ``--submitter``) names ``name`` (a stored name): every word typed begins a word of
    the name, both folded (:func:`fold`), so ``ayse``, ``yil`` and ``ayse yilmaz`` name
    ``Ayşe Yılmaz`` (NFC or NFD) and ``jurgen`` names ``Jürgen``; ``ayse kaya`` does not,
    and an empty ``typed`` names nobody."""
    typed_words = fold(typed).split()
    if not typed_words:
        return False
    name_words = fold(name).split()
    return all(any(w.startswith(t) for w in name_words) for t in typed_words)


def words_as_written(text: str) -> list[str]:
    """The words of ``text`` as it writes them (NFC, case and marks kept), one for each
    word of :func:`words` and in the same order, so a match found in folded words can be
    quoted in the writer's own spelling:

    >>> words("Şifre SIFIRLANMIYOR, Größe")
    ['sifre', 'sifirlanmiyor', 'grosse']
    >>> words_as_written("Şifre SIFIRLANMIYOR, Größe")
    ['Şifre', 'SIFIRLANMIYOR', 'Größe']

    A word ends after the last character whose fold it holds and any combining marks
    that follow it. Costs a Python call per character (:func:`fold_with_offsets`): use
    it for the few texts that are quoted, not for scoring."""
    text = unicodedata.normalize("NFC", text)
    folded, origin = fold_with_offsets(text)
    out = []
    for m in _WORD.finditer(folded):
        end = origin[m.end() - 1] + 1
        while end < len(text) and unicodedata.combining(text[end]):
            end += 1
        out.append(text[origin[m.start()] : end])
    return out


_DIGRAPH = re.compile("ae|oe|ue")
_DIGRAPH_VOWEL = {"ae": "a", "oe": "o", "ue": "u"}
SPELLINGS_MAX = 8
"""Most spellings :func:`spellings` gives one token (three digraphs)."""


@lru_cache(maxsize=1024)
def spellings(token: str) -> tuple[str, ...]:
    """The folded spellings a search token ``token`` (already folded) stands for: itself
    first, then, where it holds ``ae``/``oe``/``ue``, the forms with one or more of them
    read as the umlaut they transliterate (DIN 5007-2: ``ä``=``ae``, ``ö``=``oe``,
    ``ü``=``ue``), i.e. as the base vowel that :func:`fold` leaves of the umlaut. So a
    reviewer on a keyboard without umlauts finds ``Größe`` by typing ``Groesse``
    (``groesse`` -> ``groesse``, ``grosse``). Left to right, at most
    :data:`SPELLINGS_MAX`; one direction only (a plain vowel never stands for a
    digraph, or every ``a`` would).

    >>> spellings("groesse")
    ('groesse', 'grosse')
    >>> spellings("sureci")
    ('sureci',)
    """
    cuts = [m.span() for m in _DIGRAPH.finditer(token)][:3]
    if not cuts:
        return (token,)
    out: list[str] = []
    for mask in range(1 << len(cuts)):  # 0 = as typed; bit i: digraph i read as umlaut
        parts, at = [], 0
        for i, (start, end) in enumerate(cuts):
            parts.append(token[at:start])
            parts.append(_DIGRAPH_VOWEL[token[start:end]] if mask >> i & 1 else token[start:end])
            at = end
        parts.append(token[at:])
        out.append("".join(parts))
    return tuple(dict.fromkeys(out))[:SPELLINGS_MAX]


def sort_key(text: str) -> tuple[str, str]:
    """A locale-independent sort key: folded text first, the NFC original as tie-break,
    so ``Ä`` sorts with ``a`` and ``İ``/``ı`` with ``i`` and the order is total."""
    nfc = unicodedata.normalize("NFC", text)
    return fold(nfc), nfc


def slugify(text: str, max_chars: int = 60) -> str:
    """A safe file-name fragment: folded words joined by ``-``, only ``[a-z0-9-]`` for
    Latin text (other scripts keep their letters, NFC), never a path separator, a dot
    or a combining mark, at most ``max_chars`` characters cut on a word boundary where
    one is near. Returns ``"untitled"`` when nothing is left.

    >>> slugify("İade Süreci") == slugify("I\\u0307ade Su\\u0308reci") == "iade-sureci"
    True
    """
    parts = words(text)
    slug = "-".join(parts)
    if len(slug) > max_chars:
        cut = slug[:max_chars]
        if "-" in cut[max_chars // 2 :]:
            cut = cut[: cut.rfind("-")]
        slug = cut.strip("-")
    return unicodedata.normalize("NFC", slug) or "untitled"


# --- showing untrusted text -----------------------------------------------------------

_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}


_LINE_SEPARATORS = (
    "\u2028\u2029"  # Unicode line/paragraph separators: str.splitlines() breaks on them
)


def _visible(ch: str) -> str:
    code = ord(ch)
    if 0xD800 <= code < 0xE000:  # a lone surrogate (from a JSON "\ud83d" escape): not text
        return "\ufffd"
    if code < 0x20:
        return chr(0x2400 + code)  # U+2400.. control pictures: ␛ ␇ ␍ …
    if code == 0x7F:
        return "\u2421"  # ␡
    if 0x80 <= code < 0xA0:
        return "\ufffd"
    if ch in _BIDI:
        return "\ufffd"
    return ch


_UNSAFE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    r"\ud800-\udfff]"
)


def printable(text: str, *, multiline: bool = True) -> str:
    """Make untrusted text safe to put on a terminal, keeping it readable.

    C0/C1 control characters, DEL, ESC (so every CSI/OSC sequence), BEL and bare CR are
    replaced by visible Unicode control pictures (``␛``, ``␇``, ``␍``) or U+FFFD; bidi
    override and isolate characters and lone surrogates (not Unicode text; they cannot
    even be encoded for the terminal) are replaced by U+FFFD. A tab becomes one space.
    ``\\r\\n`` and the Unicode line and paragraph separators (U+2028, U+2029, which
    ``str.splitlines`` breaks on) become ``\\n``. With ``multiline=False`` newlines
    become ``⏎`` so the text stays on one line (table cells). The result is still
    *text*: show it with ``rich.text.Text(...)``, never as markup. NFC-normalised.
    """
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\t", " ")
    if "\u2028" in text or "\u2029" in text:
        text = text.translate({ord(c): "\n" for c in _LINE_SEPARATORS})
    if not multiline:
        text = text.replace("\n", " \u23ce ")
    if _UNSAFE.search(text):
        text = _UNSAFE.sub(lambda m: _visible(m.group()), text)
    return text


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""The characters a spreadsheet reads as the start of a formula at the start of a cell
(OWASP "CSV Injection": equals, plus, minus, at, tab, carriage return)."""

CELL_SEPARATORS = (",", ";", "\t")
"""The separators a spreadsheet may split a CSV line on: comma, semicolon (Excel and
LibreOffice in a Turkish or German locale, where the comma is the decimal mark), tab."""

_SEPARATED_FORMULA = re.compile(
    "[" + re.escape("".join(CELL_SEPARATORS)) + "][" + re.escape("".join(FORMULA_STARTS)) + "]"
)


def spreadsheet_safe(text: str) -> str:
    """``text`` as a spreadsheet cell that no spreadsheet runs as a formula: a single
    quote put before it when it starts with one of :data:`FORMULA_STARTS` or holds one
    of :data:`CELL_SEPARATORS` directly followed by one (``;=1+1``, ``a,@SUM(A1)``: a
    spreadsheet splitting the line on that separator starts a cell there), else
    ``text`` unchanged. The one guard for every cell Etki writes for a spreadsheet
    (CSV now; xlsx or any export later goes through it too).

    Source: OWASP, "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection):
    no cell may begin with ``=``, ``+``, ``-``, ``@``, tab (0x09) or carriage return
    (0x0D); prepend a single quote to such a field, wrap every field in double quotes
    (the writer's part: :func:`etki.reports.write_csv` quotes every text cell, so a
    separator inside a cell never splits it), and watch the field separators, since an
    attacker can start a new cell with one and put the dangerous character after it."""
    if text.startswith(FORMULA_STARTS) or _SEPARATED_FORMULA.search(text):
        return "'" + text
    return text


def plural(count: int, word: str, many: str | None = None) -> str:
    """``word`` for ``count`` of it in user-facing English: ``word`` for exactly 1,
    else ``many`` (default ``word + "s"``), so a count reads ``f"{n} {plural(n, 'case')}"``
    ("1 case", "0 cases", "2 cases") and never "case(s)" (a PMO trial of issue 35)."""
    return word if count == 1 else (many if many is not None else word + "s")
