"""Wording cues in English, Turkish and German (one job: find phrases in folded words).

A cue is a phrase of folded words. In a cue word a trailing ``*`` matches any ending
(``crash*`` matches crash, crashes, crashed), a leading ``*`` any beginning, and both a
substring (``*miyor*`` matches Turkish negative verbs such as ``calismiyor``). A last
word ``!x`` is a look-ahead: the phrase matches only when the next word is not ``x``
(or the text ends): ``not required !to`` matches "migration is not required." but not
"staff not required to obtain a card". Cues are
matched against :func:`etki.triage.normalise.cue_words` of a text (folded, no stopword
removal, no stemming), so ``ÇALIŞMIYOR`` and ``calismiyor``, ``Größe`` and ``grosse``
match the same cue. The lists were written for this engine from ordinary bug-report,
contract and data-protection vocabulary; they name no project, request or clause.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from etki.text import fold


@dataclass(frozen=True)
class Cue:
    """One phrase: ``words`` folded, each possibly with ``*`` wildcards; ``text`` the
    phrase as written (used in evidence); ``weight`` how much it counts."""

    text: str
    words: tuple[str, ...]
    weight: float = 1.0


def _word_regex(pattern: str) -> str:
    if pattern.startswith("*") and pattern.endswith("*") and len(pattern) > 2:
        return r"\S*" + re.escape(pattern[1:-1]) + r"\S*"
    if pattern.endswith("*"):
        return re.escape(pattern[:-1]) + r"\S*"
    if pattern.startswith("*"):
        return r"\S*" + re.escape(pattern[1:])
    return re.escape(pattern)


def _cue_regex(words: Sequence[str]) -> re.Pattern[str]:
    """A regex over words joined by single spaces that matches the cue at word bounds."""
    body, ahead = list(words), None
    if body and body[-1].startswith("!"):
        ahead = body.pop()[1:]
    rx = r"(?<!\S)" + " ".join(_word_regex(w) for w in body) + r"(?!\S)"
    if ahead is not None:
        rx += r"(?! " + _word_regex(ahead) + r"(?!\S))"
    return re.compile(rx)


class CueList:
    """A named list of cues. Build with :func:`cue_list`; query with :meth:`find`.

    Each cue is compiled to one regular expression over the words joined by spaces, so
    matching a text costs one C-level search per cue."""

    def __init__(self, name: str, cues: Sequence[Cue]) -> None:
        self.name = name
        self.cues = tuple(sorted(cues, key=lambda c: c.text))
        self._rx = tuple(_cue_regex(c.words) for c in self.cues)

    def find(self, words: Sequence[str]) -> tuple[Cue, ...]:
        """Cues occurring anywhere in ``words`` (each cue once), sorted by text."""
        text = " ".join(words)
        return tuple(c for c, rx in zip(self.cues, self._rx, strict=True) if rx.search(text))

    def hits(self, words: Sequence[str]) -> tuple[tuple[Cue, str], ...]:
        """Like :meth:`find`, with the first matched words of each cue (folded text, so
        the same for NFC and NFD input): ``((cue, "crashes"), ...)``."""
        text = " ".join(words)
        out = []
        for cue, rx in zip(self.cues, self._rx, strict=True):
            m = rx.search(text)
            if m:
                out.append((cue, m.group(0)))
        return tuple(out)

    def positions(self, words: Sequence[str]) -> tuple[int, ...]:
        """Start indices in ``words`` of every occurrence of any cue, ascending."""
        text = " ".join(words)
        hits = {text.count(" ", 0, m.start()) for rx in self._rx for m in rx.finditer(text)}
        return tuple(sorted(hits))

    def score(self, words: Sequence[str]) -> float:
        """Sum of the weights of the distinct cues found, rounded to 4 decimals."""
        return round(sum(c.weight for c in self.find(words)), 4)


def cue_list(name: str, strong: Iterable[str], weak: Iterable[str] = (),
             weak_weight: float = 0.5) -> CueList:
    """Build a :class:`CueList`: ``strong`` phrases weigh 1.0, ``weak`` ones
    ``weak_weight``. Phrases are folded with :func:`etki.text.fold` (``*`` kept)."""
    cues: dict[str, Cue] = {}
    for weight, phrases in ((1.0, strong), (weak_weight, weak)):
        for phrase in phrases:
            ws = tuple(w[0] + fold(w[1:]) if w.startswith("!") else fold(w)
                       for w in phrase.split())
            cues.setdefault(" ".join(ws), Cue(phrase, ws, weight))
    return CueList(name, tuple(cues.values()))


# --- request wording -------------------------------------------------------------------

DEFECT = cue_list(
    "defect",
    strong=[
        # en
        "bug", "bugs", "buggy", "crash*", "broken", "breaks", "regression*", "does not work",
        "do not work", "did not work", "is not working", "not working", "stopped working",
        "no longer", "cannot", "can not", "ca not", "could not", "unable", "fail", "fails",
        "failed", "failing", "failure", "incorrect*", "wrong", "wrongly", "defect*",
        "glitch*", "error screen", "error page", "exception", "stack trace", "hangs",
        "freez*", "frozen", "timed out", "times out", "not displayed", "not shown",
        "not read", "does not show", "does not appear", "does not load", "not loading",
        "is empty", "are empty", "even though", "although", "even while", "even when",
        "typo", "typos", "misspel*", "vulnerab*", "security hole", "hole", "exploit*",
        "blank page", "blank screen", "white screen", "reproduc*", "disappear*", "outage*",
        "unreachable", "not reachable", "internal server error", "bad gateway",
        "service unavailable", "http 500", "http 502", "http 503", "http 504",
        # tr
        "calismiyor*", "calismaz", "cokuyor", "coktu", "cokme*", "bozuk", "bozuldu",
        "yanlis", "hatali", "hata veriyor", "hata aliyorum", "hata aliyoruz", "*miyor*",
        "*muyor*", "acilmiyor", "gorunmuyor", "guvenlik acigi", "kesinti*", "erisilemiyor",
        # de
        "funktioniert nicht", "geht nicht", "nicht mehr", "absturz*", "sturzt ab",
        "kaputt", "fehlerhaft*", "falsch*", "defekt*", "kann nicht", "konnen nicht",
        "lasst sich nicht", "nicht angezeigt", "fehlermeldung*", "sicherheitslucke*",
        "nicht erreichbar", "storung*", "ausfall*", "ausgefallen",
    ],
    weak=[
        "error", "errors", "rejected", "instead of", "still", "empty", "missing", "zero",
        "restore", "problem", "problems", "issue", "slow",
        # correct input treated as wrong: "the reported values are correct"
        "are correct", "is correct", "are valid", "is valid", "are allowed", "is allowed",
        "false positive*", "dogru oldugu halde", "gecerli oldugu halde", "sind korrekt",
        "ist korrekt", "sind gultig", "ist gultig",
        "hata", "hatasi", "hatalar", "sorun*", "eksik", "yavas",
        "fehler", "fehlern", "problem*", "leer", "langsam",
    ],
)
"""Bug-report wording. A request scoring >= :data:`DEFECT_THRESHOLD` reads as a defect.
Nouns that also name features ("error report", "hata raporu") are weak (0.5)."""

DEFECT_THRESHOLD = 1.0
"""One strong cue, or two weak ones, make a defect report."""

ADVICE = cue_list(
    "advice",
    strong=[
        "tell us which", "tell us whether", "tell us what", "advise", "advice",
        "recommend which", "should adopt", "should we", "policy", "policies", "strategy",
        "strategies", "adopt", "opinion",
        "tavsiye*", "politika*", "strateji*", "hangisini", "karar vermemiz*",
        "empfehlung*", "empfehlen", "beraten", "beratung", "strategie*", "sollen wir",
        "richtlinie*",
    ],
)
"""Wording of a request that asks for a decision or advice (programme policy, strategy)
rather than for software work. Two distinct cues are needed (:data:`ADVICE_THRESHOLD`)."""

ADVICE_THRESHOLD = 2.0

NEW_CAPABILITY = cue_list(
    "new_capability",
    strong=["new", "add", "adding", "build", "introduce", "create", "additional", "another",
            "yeni", "ekle*", "olustur*", "ilave", "neu", "neue", "neuen", "neuer", "neues",
            "hinzufug*", "zusatzlich*", "erstellen"],
)
"""Wording of a request for something new (used with weak clause coverage)."""

SECURITY = cue_list(
    "security",
    strong=["security", "password*", "passwd", "token", "tokens", "credential*", "secret*",
            "vulnerab*", "exploit*", "injection", "xss", "csrf", "penetration", "pentest*",
            "privilege*", "encrypt*", "decrypt*", "malware", "virus", "breach*",
            "guvenlik*", "sifre*", "parola*", "zafiyet*", "sizma", "yetkisiz",
            "sicherheit*", "passwort*", "kennwort*", "schwachstelle*", "verschlussel*",
            "angriff*"],
)
"""Security wording (risk signal ``security``)."""

PERSONAL_DATA = cue_list(
    "personal_data",
    strong=["pii", "personal data", "personal information", "personally identifiable",
            "gdpr", "ssn", "ssns", "social security number*", "date of birth", "privacy",
            "data protection", "phi",
            "kisisel veri*", "kisisel bilgi*", "kvkk", "kimlik numara*", "tc kimlik",
            "ozel nitelikli", "acik riza", "aydinlatma metni",
            "personenbezogen*", "dsgvo", "datenschutz*", "personliche daten"],
)
"""Personal-data wording (risk signal ``personal_data``)."""

# --- contract wording ------------------------------------------------------------------

EXCLUSION = cue_list(
    "exclusion",
    strong=[
        "not looking to", "not in scope", "out of scope", "outside the scope",
        "outside of the scope", "not included", "not include", "does not include",
        "excluded", "exclude", "excludes", "exclusion*", "not needed", "not required !to",
        "not part of", "not be provided", "not provided", "not responsible",
        "not the contractor", "not covered", "no migration", "not expected to",
        "kapsam disi*", "kapsamda degil", "kapsamina girmez", "dahil degil", "haric*",
        "yapilmayacak*", "saglanmayacak*", "gerekli degil", "sorumlu degil",
        "nicht im leistungsumfang", "nicht bestandteil", "nicht enthalten",
        "nicht umfasst", "ausgeschlossen", "ausgenommen", "nicht geschuldet",
        "nicht erforderlich", "nicht vorgesehen", "nicht verantwortlich", "entfallt",
    ],
)
"""Contract sentences that take something out of the contractor's scope."""

RESPONSIBILITY = cue_list(
    "responsibility",
    strong=["responsib*", "duty", "duties", "in charge", "own", "owns", "arrange", "arranges",
            "determine", "determines", "decide", "decides", "host", "hosts", "hosting",
            "obtain*", "grant", "grants", "set direction", "priorit*", "choices",
            "sorumlu*", "gorev*", "yukumlulu*", "tarafindan saglan*", "tarafindan yapil*",
            "ustlen*", "verantwortlich*", "zustandig*", "obliegt", "pflicht*", "stellt bereit",
            "tragt"],
)
"""Wording that assigns a duty or a decision to a party. When that party is not the
contractor (:data:`CONTRACTOR`), the sentence assigns the work to the client."""

PRESENT_DUTY = cue_list(
    "present_duty",
    strong=["provides", "operates", "hosts", "holds", "owns", "maintains", "manages",
            "supplies", "pays", "bears", "arranges", "decides", "determines", "grants",
            "obtains", "procures", "runs"],
)
"""English present-tense duty verbs ("The Municipality provides and operates the
servers"). They assign a duty without a modal, so they count only when the subject
names the client (:data:`CLIENT`)."""

CLIENT = cue_list(
    "client",
    strong=["client", "customer", "municipality", "government", "agency", "authority",
            "buyer", "purchaser", "employer", "principal",
            "idare*", "musteri*", "belediye*", "kurum*", "isveren*",
            "auftraggeber*", "kunde*", "behorde*", "stadt*", "gemeinde*", "verwaltung*"],
)
"""Generic names of the client party (a contract's own acronyms cannot be known)."""

DUTY_NOUNS = cue_list("duty_nouns", strong=["responsib*", "duty", "duties", "in charge"])
"""The :data:`RESPONSIBILITY` cues that are nouns or adjectives: in English they assign a
duty after a copula too ("... remain the Municipality's duty", "X is responsible for")."""

CONTRACTOR = cue_list(
    "contractor",
    strong=["contractor", "contractors", "vendor", "vendors", "supplier", "suppliers",
            "offeror", "offerors", "service provider", "development team",
            "yuklenici*", "tedarikci*", "hizmet saglayici*",
            "auftragnehmer*", "lieferant*", "dienstleister*"],
)
"""Names of the contractor party."""

MODALS: frozenset[str] = frozenset(("will", "shall", "must"))
"""English modal words; in a duty sentence the words before the first are the subject."""

COPULAS: frozenset[str] = frozenset(("is", "are", "remain", "remains", "stays", "stay"))
"""English copulas: before a duty noun they mark the subject like a modal does."""

ENGLISH_MARKERS: frozenset[str] = frozenset(("the", "of", "and", "is", "are", "will", "shall",
                                             "must", "to", "for"))
"""Function words that mark a sentence as English (for the subject rule)."""

NEGATION: frozenset[str] = frozenset(fold(w) for w in ("not", "degil", "nicht", "kein"))

FUTURE = cue_list(
    "future",
    strong=["future", "eventually", "later phase*", "subsequent phase*",
            "next phase*", "ileride", "gelecekte", "sonraki faz*", "sonraki asama*",
            "genisletilebilir", "kunftig*", "zukunftig*", "spatere* phase*", "erweiterbar*"],
)
"""Contract sentences about possible future work: anticipated, not included."""

CHANGE_ROUTE = cue_list(
    "change_route",
    strong=["change request*", "change order*", "change control", "degisiklik talep*",
            "degisiklik istem*", "anderungsantrag*", "anderungsanfrage*", "anderungsauftrag*",
            "change-request*"],
)
"""Contract wording that sends something to a change request: anticipated, not included,
can be ordered separately."""

DEFECT_SUPPORT = cue_list(
    "defect_support",
    strong=["bug", "bugs", "bug fix*", "defect*", "troubleshoot*", "incident*",
            "warranty", "hata duzelt*", "ariza*", "garanti", "gewahrleistung*",
            "fehlerbehebung*", "mangel*", "storung*"],
)
"""Contract wording that puts defect resolution in scope."""

ADMIN_TITLE = cue_list(
    "admin_title",
    strong=["personnel", "staffing", "skills", "administration", "administrative",
            "invoic*", "evaluation", "quote", "quotes", "quotation", "ceiling", "travel",
            "deadlines", "award", "interview*", "place of performance",
            "period of performance", "contract type", "limitation of funds", "termination",
            "governing law", "indemnif*", "liability", "orientation conference",
            "personel", "degerlendirme", "teklif*", "fiyat*", "fesih", "cezai",
            "schlusselpersonal", "personaleinsatz", "vergutung*", "bewertung*", "angebot*",
            "kundigung*", "haftung*", "vertragsstrafe*"],
)
"""Clause-title wording of contract administration (people, money, procurement): the
clause governs the engagement, not the delivered system. Words that also name delivered
features (payment, billing, staff, cost) are deliberately absent."""

CONTEXT_TITLE = cue_list(
    "context_title",
    strong=["background", "purpose", "introduction", "overview", "problem", "context",
            "vision", "glossary", "definitions", "amac", "arka plan", "genel bakis",
            "tanimlar", "hintergrund", "zweck", "einleitung", "uberblick", "ausgangslage",
            "definitionen", "begriffsbestimmungen"],
)
"""Clause-title wording of background text: describes, does not oblige."""

SCOPE_TITLE = cue_list(
    "scope_title",
    strong=["scope", "deliverable*", "requirement*", "objective*", "expectation*",
            "backlog", "user stor*", "feature*", "functional",
            "kapsam*", "gereksinim*", "teslim*", "hedef*",
            "umfang", "leistungsumfang", "anforderung*", "leistungsbeschreibung",
            "lieferumfang"],
)
"""Clause-title wording of scope: such a clause is never administrative or background."""

ADMIN_REQUEST = cue_list(
    "admin_request",
    strong=["team member*", "team charter", "staffing", "key personnel", "hire", "hiring",
            "recruit*", "invoice*", "timesheet*", "hourly rate*", "daily rate*",
            "contract modification*", "headcount",
            "ekip uyesi", "ekibe katil*", "ise alim*", "personel alim*",
            "teammitglied*", "einarbeitung", "personalwechsel", "stundensatz*",
            "tagessatz*"],
)
"""Wording of a request about the contractor's team or the contract's money rather than
the delivered system (words that also name features, such as bill or fatura, are absent)."""
