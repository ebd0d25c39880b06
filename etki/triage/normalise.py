"""Request and clause text -> comparable tokens (one job: tokenisation for scoring).

Every token is produced from :func:`etki.text.words` (NFC, marks removed, casefolded,
Turkish ``İ``/``I``/``ı``/``i`` merged, ``ß`` -> ``ss``), so NFC and NFD input, and
dotted or dotless Turkish i, always give the same tokens. After folding:

* stopwords of the text's language are dropped (lists below: English, Turkish, German,
  written for this module from the common function words of each language, plus the
  words naming contract parties and duties, which the engine reads as cues instead;
  Turkish ``şu`` is not a stopword because it folds to ``su``, water);
* tokens shorter than two characters are dropped;
* each token is stemmed for its language:

  - ``en``: Snowball English (``snowballstemmer``, Porter2);
  - ``de``: Snowball German. It runs on the folded form, which is safe: the algorithm
    itself maps umlauts to their base vowels (``Prüfungen`` and ``prufungen`` give the
    same stem);
  - ``tr``: a light suffix strip (plural and case endings of two or more letters, on the
    folded form) followed by truncation to the first five characters. Fixed-prefix
    truncation at five characters ("F5") is the stemmer Can et al. found as effective as
    lemmatiser-based stemming for Turkish retrieval (F. Can et al., *Information retrieval
    on Turkish texts*, JASIST 59(3), 2008). Snowball Turkish is not used: on folded text
    it stems inflections of one word differently (``iade`` -> ``ia`` but ``iadeler`` ->
    ``iade``; ``odeme`` -> ``ode`` but ``odemeler`` -> ``odeme``), and on unfolded text
    it gives different stems for ``İADE`` and ``IADE``.

The language of a text is guessed cheaply (:func:`guess_language`) from stopword hits
and letters only one language uses; the project's declared languages break ties.

Identifiers (module ids and paths such as ``frontend.components.SubmissionHistory``)
are split at ``.``/``/``/``_``/``-`` and at camelCase humps before folding
(:func:`identifier_text`), so ``SubmissionHistory`` matches "submission history".
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from etki.text import fold, words, words_as_written


def _list(text: str) -> list[str]:
    """Words of a whitespace-separated word list."""
    return text.split()


LANGUAGES: tuple[str, ...] = ("en", "tr", "de")
"""Languages with a stopword list and a stemmer. Other texts are tokenised unstemmed."""

_EN_STOP = _list("""
a about above after again against all also am an and any are as at be because been
before being below between both but by can could did do does doing down during each
either else etc few for from further had has have having he her here hers herself him
himself his how i if in into is it its itself just let may me might more most much must
my myself nor of off on once only or other our ours ourselves out over own per please
same shall she should so some such than that the their theirs them themselves then there
these they this those through to too under until up upon us very via was we were what
when where which while who whom whose why will with within without would yet you your
yours yourself yourselves not no
""")

_TR_STOP = _list("""
acaba ama ancak artik aslinda az bana bazen bazi bazilari ben beni benim bile bir biraz
birkac biz bize bizi bizim bu buna bunda bundan bunu bunun burada cok cunku da daha de
defa diye dolayi en gibi hem hep hepsi her hic icin ile ise iste kadar ki kim kimi kimse
mi mu mı nasil ne neden nerede neye nicin o olan olarak oldu olsun olur ona ondan onlar
onlari onlarin onu onun orada oyle sadece sanki siz size sizi sizin son suna sunu tum
uzere var ve veya ya yani yine yoksa zaten lutfen gore degil
""")

_DE_STOP = _list("""
aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
anderes auch auf aus bei beim bin bis bitte bist da damit dann das dass dein deine dem
den denn der des dessen deshalb die dies diese diesem diesen dieser dieses doch dort du
durch ein eine einem einen einer eines er es euch euer eure fur gegen hat hatte hier ich
ihm ihn ihnen ihr ihre ihrem ihren ihrer im in ins ist ja jede jedem jeden jeder jedes
jetzt kann konnen konnte man manche mein meine mit muss musste nach nun nur ob oder ohne
sehr sein seine sich sie sind so soll sollen sollte sonst uber um und uns unser unsere
unter vom von vor war waren warum was weil welche welchem welchen welcher welches wenn
wer wie wir wird wo zu zum zur zwar zwischen nicht kein keine
""")

# Contract-party and duty words: they say *who* does something, not *what*; the engine
# reads them as cues (etki.triage.cues) and keeps them out of relevance scoring.
_EN_PARTY = _list("""
contractor contractors vendor vendors supplier suppliers offeror offerors responsible
responsibility responsibilities
""")
_TR_PARTY = _list("""
yuklenici yukleniciye yuklenicinin tedarikci sorumlu sorumludur sorumlulugu
sorumlulugunda
""")
_DE_PARTY = _list("""
auftragnehmer auftragnehmers auftraggeber auftraggebers lieferant dienstleister
verantwortlich verantwortung zustandig
""")

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(fold(w) for w in _EN_STOP + _EN_PARTY),
    "tr": frozenset(fold(w) for w in _TR_STOP + _TR_PARTY),
    "de": frozenset(fold(w) for w in _DE_STOP + _DE_PARTY),
}
"""Folded stopwords per language code (function words plus party/duty words)."""

# letters only one of the three languages writes (checked on the NFC text before folding)
_MARKERS: dict[str, frozenset[str]] = {
    "tr": frozenset("ıİşŞğĞ"),
    "de": frozenset("ßẞäÄ"),
}

# Turkish suffixes stripped before F5 truncation: plural, possessive and case endings of
# two or more letters, folded (so ı/i, ü/u variants coincide). Longest first.
_TR_SUFFIXES: tuple[str, ...] = tuple(
    sorted(
        {
            "lerinin",
            "larinin",
            "lerinde",
            "larinda",
            "lerinden",
            "larindan",
            "lerine",
            "larina",
            "lerini",
            "larini",
            "lerin",
            "larin",
            "leri",
            "lari",
            "lerde",
            "larda",
            "lerden",
            "lardan",
            "lere",
            "lara",
            "ler",
            "lar",
            "sinin",
            "sunun",
            "sini",
            "sunu",
            "sine",
            "suna",
            "sina",
            "sinde",
            "sunda",
            "sinda",
            "nin",
            "nun",
            "nda",
            "nde",
            "ndan",
            "nden",
            "si",
            "su",
            "yla",
            "yle",
            "dan",
            "den",
            "tan",
            "ten",
            "da",
            "de",
            "ta",
            "te",
            "ya",
            "ye",
        },
        key=lambda s: (-len(s), s),
    )
)
_TR_MIN_STEM = 3
_TR_PREFIX = 5

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_IDENT_SEP = re.compile(r"[._/\\\-]+")
_TR_APOSTROPHE = re.compile(r"(?<=\w)['’]\w+")


def identifier_text(identifier: str) -> str:
    """Spell out a code identifier or path as words.

    ``"frontend.components.SubmissionHistory"`` -> ``"frontend components Submission
    History"``. Splits at ``. / \\ _ -`` and at a lower-case letter followed by an
    upper-case one (``IdleTimer`` -> ``Idle Timer``; ``SSOs`` stays whole).
    """
    spaced = _IDENT_SEP.sub(" ", unicodedata.normalize("NFC", identifier))
    return _CAMEL.sub(" ", spaced)


def guess_language(text: str, preferred: Sequence[str] = ("en",)) -> str:
    """Guess the language of ``text`` among :data:`LANGUAGES`.

    Score per language: number of folded words that are its stopwords, plus 3 for each
    letter only that language writes (``ı ş ğ İ`` Turkish, ``ß ä`` German). The highest
    score wins; ties (including no evidence at all) go to the first of ``preferred``
    that is a known language, else ``"en"``. Returns a language code; never raises.
    """
    nfc = unicodedata.normalize("NFC", text)
    toks = words(nfc)
    order = [lang for lang in preferred if lang in LANGUAGES]
    order += [lang for lang in LANGUAGES if lang not in order]
    best, best_score = order[0], -1
    for lang in order:
        score = sum(1 for t in toks if t in STOPWORDS[lang])
        markers = _MARKERS.get(lang)
        if markers:
            score += 3 * sum(1 for ch in nfc if ch in markers)
        if score > best_score:
            best, best_score = lang, score
    return best


_STEMMERS = threading.local()
"""Each thread's own Snowball stemmers by language: a stemmer object keeps its word in
its own fields while it works, so one shared by two threads (the desk's detail worker
and its search worker) read the other's word and raised ``IndexError: string index out
of range`` inside snowballstemmer (etki-tui on talentmap crashed at start-up)."""


def _snowball(lang: str) -> Any:
    """This thread's Snowball stemmer of ``lang`` (``en`` or ``de``; KeyError otherwise),
    imported on the first English or German token: ``import snowballstemmer`` loads all
    its 30-odd languages (about 0.35 s, Greek alone 0.2 s), which a command that never
    stems (``etki rule``, ``queue``) should not pay at start-up. One per thread
    (:data:`_STEMMERS`): a stemmer is not safe to share between threads."""
    made: dict[str, Any] | None = getattr(_STEMMERS, "by_lang", None)
    if made is None:
        made = _STEMMERS.by_lang = {}
    stemmer = made.get(lang)
    if stemmer is None:
        import snowballstemmer  # type: ignore[import-untyped]  # the package ships no type hints

        stemmer = made[lang] = snowballstemmer.stemmer({"en": "english", "de": "german"}[lang])
    return stemmer


def _stem_tr(token: str) -> str:
    for suffix in _TR_SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= _TR_MIN_STEM:
            token = token[: -len(suffix)]
            break
    return token[:_TR_PREFIX]


@lru_cache(maxsize=65536)
def stem(token: str, lang: str) -> str:
    """Stem one folded token for ``lang`` (see the module docstring). Tokens made of
    digits, and tokens of unknown languages, are returned unchanged."""
    if token.isdigit():
        return token
    if lang == "tr":
        return _stem_tr(token)
    if lang in ("en", "de"):
        return _snowball(lang).stemWord(token)
    return token


def tokens(text: str, lang: str) -> tuple[str, ...]:
    """Scoring tokens of ``text`` in language ``lang``, in text order (with repeats).

    Folded words (:func:`etki.text.words`, after splitting camelCase humps) minus
    stopwords and one-letter words, stemmed. For Turkish, apostrophe suffixes
    (``KVKK'ya`` -> ``KVKK``) are cut first.
    """
    text = unicodedata.normalize("NFC", text)  # before camelCase splitting: NFD-proof
    if lang == "tr":
        text = _TR_APOSTROPHE.sub("", text)
    stop = STOPWORDS.get(lang, frozenset())
    out: list[str] = []
    for word in words(_CAMEL.sub(" ", text)):
        if len(word) < 2 or word in stop:
            continue
        out.append(stem(word, lang))
    return tuple(out)


def _spell_not(text: str) -> str:
    return re.sub(r"n['’]t\b", " not", unicodedata.normalize("NFC", text))


def cue_words(text: str) -> tuple[str, ...]:
    """Folded words of ``text`` for wording cues (no stopword removal, no stemming), with
    English ``n't`` spelled ``not`` (``doesn't`` -> ``does not``, ``can't`` -> ``ca not``)."""
    return tuple(words(_spell_not(text)))


def cue_words_as_written(text: str) -> tuple[str, ...]:
    """The words of ``text`` as written, one for each of :func:`cue_words` (same ``not``
    rule): evidence quotes a matched cue in the request's own spelling with them
    (``ŞİFRE`` where the cue matched ``sifre``). See :func:`etki.text.words_as_written`."""
    return tuple(words_as_written(_spell_not(text)))
