"""Wording cues in English, Turkish and German (one job: the cue lists; matching them is
:mod:`etki.triage.cue_match`).

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

from etki.text import fold
from etki.triage.cue_match import Cue as Cue
from etki.triage.cue_match import CueList as CueList
from etki.triage.cue_match import cue_list

# The matching machinery lives in etki.triage.cue_match; Cue and CueList are re-exported
# because callers name them as cues.Cue and cues.CueList.

# --- request wording -------------------------------------------------------------------
#
# Where the lists come from. Request cues are the ordinary vocabulary of bug reports and
# of requests for new work, as written in bug-tracker guidance (Mozilla's "Bug writing
# guidelines": actual vs expected behaviour, crash, hang, error message; the ISTQB
# glossary's defect/failure/error; HTTP 5xx reason phrases of RFC 9110) and its usual
# Turkish and German equivalents. No cue was written from a labelled request: issue 10
# removed 21 that were (listed in docs/EVAL.md).

DEFECT = cue_list(
    "defect",
    strong=[
        # en: failure words (ISTQB glossary, bug-writing guidelines)
        "bug",
        "bugs",
        "buggy",
        "crash*",
        "broken",
        "breaks",
        "regression*",
        "does not work",
        "do not work",
        "did not work",
        "is not working",
        "not working",
        "stopped working",
        "cannot",
        "can not",
        "ca not",
        "could not",
        "unable",
        "fail",
        "fails",
        "failed",
        "failing",
        "failure",
        "incorrect*",
        "wrong",
        "wrongly",
        "defect*",
        "glitch*",
        "error page",
        "exception",
        "stack trace",
        "hangs",
        "freez*",
        "frozen",
        "timed out",
        "times out",
        "not displayed",
        "not shown",
        "does not show",
        "does not appear",
        "does not load",
        "not loading",
        # the counterpart of the Turkish "acilmiyor" below, which had none in English
        # (dictionary: açılmak = to open; issue 29 item 6)
        "does not open",
        "do not open",
        "will not open",
        "wo not open",
        "is empty",
        "are empty",
        "typo",
        "typos",
        "misspel*",
        "vulnerab*",
        "exploit*",
        "blank page",
        "blank screen",
        "white screen",
        "disappear*",
        "outage*",
        "unreachable",
        "not reachable",
        # en: HTTP 5xx reason phrases (RFC 9110, section 15.6)
        "internal server error",
        "bad gateway",
        "service unavailable",
        "gateway timeout",
        "http 500",
        "http 502",
        "http 503",
        "http 504",
        # tr
        "calismiyor*",
        "calismaz",
        "cokuyor",
        "coktu",
        "cokme*",
        "bozuk",
        "bozuldu",
        "yanlis",
        "hatali",
        "hata veriyor",
        "hata aliyorum",
        "hata aliyoruz",
        "*miyor*",
        "*muyor*",
        "acilmiyor",
        "gorunmuyor",
        "guvenlik acigi",
        "kesinti*",
        "erisilemiyor",
        # tr counterparts of the English entries above that had none (issue 29 item 6:
        # one verdict per meaning; dictionary equivalents, written from the English list)
        "donuyor",
        "dondu",
        "kaybol*",
        "zaman asimi*",
        "yazim hatasi",
        "gerileme",
        "bos sayfa",
        "bos ekran",
        "basarisiz*",
        # tr "could not": the negative potential in the past, -(y)AmAdI (yapamadı,
        # giremedik, arayamadıklarında), the counterpart of "could not"/"unable" (Göksel &
        # Kerslake, "Turkish: A Comprehensive Grammar", 2005, on the potential and its
        # negation); the present form (-AmIyor) is matched by *miyor* above
        "*amadi*",
        "*emedi*",
        # de
        "funktioniert nicht",
        "geht nicht",
        "nicht mehr",
        "absturz*",
        "sturzt ab",
        "kaputt",
        "fehlerhaft*",
        "falsch*",
        "defekt*",
        "kann nicht",
        "konnen nicht",
        "lasst sich nicht",
        "nicht angezeigt",
        "fehlermeldung*",
        "sicherheitslucke*",
        "nicht erreichbar",
        "storung*",
        "ausfall*",
        "ausgefallen",
        # de counterparts of the English entries above that had none (as for tr)
        "hangt",
        "verschwind*",
        "verschwunden",
        "zeituberschreitung*",
        "erscheint nicht",
        "nicht sichtbar",
        "tippfehler*",
        "leere seite",
        "fehlgeschlagen",
        "ladt nicht",
        "offnet nicht",
        "offnet sich nicht",
        # de "could not" (Duden, "Die Grammatik": the negated past modal, main-clause
        # order, as "kann nicht" above is the present)
        "konnte nicht",
        "konnten nicht",
    ],
    weak=[
        # nouns and adverbs of bug reports that also occur in feature requests
        "error",
        "errors",
        "rejected",
        "instead of",
        "still",
        "empty",
        "missing",
        "zero",
        "problem",
        "problems",
        "issue",
        "slow",
        "hata",
        # Turkish adds case and possessive suffixes to a noun (hatası, hatasını,
        # hatalarla, hatayı, hatada): the inflected forms of "hata" count as the noun
        # does (the adjective "hatalı" is a strong cue above)
        "hatasi*",
        "hatalar*",
        "hatay*",
        "hatad*",
        "sorun*",
        "eksik",
        "yavas",
        "fehler",
        "fehlern",
        "problem*",
        "leer",
        "langsam",
        # tr and de counterparts of every English weak cue above that had none
        # (issue 29 item 6; dictionary equivalents, written from the English list)
        "reddedil*",
        "yerine",
        "hala",
        "bos",
        "sifir",
        "abgelehnt",
        "zuruckgewiesen",
        "statt",
        "anstatt",
        "anstelle",
        "immer noch",
        "noch immer",
        "fehlt",
        "fehlen",
        "fehlende*",
        "null",
    ],
)
"""Bug-report wording. A request scoring >= :data:`DEFECT_THRESHOLD` reads as a defect.
Nouns that also name features ("error report", "hata raporu") are weak (0.5)."""

DEFECT_THRESHOLD = 1.0
"""One strong cue, or two weak ones, make a defect report."""

ADVICE = cue_list(
    "advice",
    strong=[
        "advise",
        "advice",
        "recommend",
        "recommendation",
        "recommendations",
        "opinion",
        "policy decision*",
        "policy",
        "policies",
        "strategy",
        "consult*",
        "tavsiye*",
        "oneri*",
        "politika*",
        "strateji*",
        "gorus*",
        "empfehlung*",
        "empfehlen",
        "beraten",
        "beratung",
        "strategie*",
        "richtlinie*",
    ],
)
"""Wording of a request that asks for a decision or advice (programme policy, strategy)
rather than for software work: the general verbs and nouns of asking for counsel. Two
distinct cues are needed (:data:`ADVICE_THRESHOLD`), since "policy" alone also names
features (a password policy)."""

ADVICE_THRESHOLD = 2.0

NEW_CAPABILITY = cue_list(
    "new_capability",
    strong=[
        "new",
        "add",
        "adding",
        "build",
        "introduce",
        "create",
        "additional",
        "another",
        "yeni",
        "ekle*",
        "olustur*",
        "ilave",
        "neu",
        "neue",
        "neuen",
        "neuer",
        "neues",
        "hinzufug*",
        "zusatzlich*",
        "erstellen",
    ],
)
"""Wording of a request for something new (used with weak clause coverage): the verbs and
adjectives of asking for an addition."""

# --- contract wording ------------------------------------------------------------------

EXCLUSION = cue_list(
    "exclusion",
    strong=[
        "not in scope",
        "out of scope",
        "outside the scope",
        "outside of the scope",
        "not included",
        "not include",
        "does not include",
        "excluded",
        "exclude",
        "excludes",
        "exclusion*",
        "not needed",
        "not required !to",
        "not part of",
        "not be provided",
        "not provided",
        "not responsible",
        "not be responsible",
        "not covered",
        "no migration",
        "not expected to",
        "kapsam disi*",
        "kapsamda degil",
        "kapsamina girmez",
        "dahil degil",
        "haric*",
        "yapilmayacak*",
        "saglanmayacak*",
        "gerekli degil",
        "sorumlu degil",
        "nicht im leistungsumfang",
        "nicht bestandteil",
        "nicht enthalten",
        "nicht umfasst",
        "ausgeschlossen",
        "ausgenommen",
        "nicht geschuldet",
        "nicht erforderlich",
        "nicht vorgesehen",
        "nicht verantwortlich",
        "entfallt",
    ],
)
"""Contract sentences that take something out of the contractor's scope: the exclusion
phrases of scope statements ("Out of scope", "Not included", "The Contractor is not
responsible for") as SOW/PWS writing guides use them, and their Turkish and German
equivalents ("kapsam dışı", "nicht im Leistungsumfang")."""

RESPONSIBILITY = cue_list(
    "responsibility",
    strong=[
        "responsib*",
        "duty",
        "duties",
        "in charge",
        "own",
        "owns",
        "arrange",
        "arranges",
        "determine",
        "determines",
        "decide",
        "decides",
        "host",
        "hosts",
        "hosting",
        "obtain*",
        "grant",
        "grants",
        "priorit*",
        "sorumlu*",
        "gorev*",
        "yukumlulu*",
        "tarafindan saglan*",
        "tarafindan yapil*",
        "ustlen*",
        "verantwortlich*",
        "zustandig*",
        "obliegt",
        "pflicht*",
        "stellt bereit",
        "tragt",
    ],
)
"""Wording that assigns a duty or a decision to a party. When that party is not the
contractor (:data:`CONTRACTOR`), the sentence assigns the work to the client."""

PRESENT_DUTY = cue_list(
    "present_duty",
    strong=[
        "provides",
        "operates",
        "hosts",
        "holds",
        "owns",
        "maintains",
        "manages",
        "supplies",
        "pays",
        "bears",
        "arranges",
        "decides",
        "determines",
        "grants",
        "obtains",
        "procures",
        "runs",
    ],
)
"""English present-tense duty verbs ("The Municipality provides and operates the
servers"). They assign a duty without a modal, so they count only when the subject
names the client (:data:`CLIENT`)."""

CLIENT = cue_list(
    "client",
    strong=[
        "client",
        "customer",
        "municipality",
        "government",
        "agency",
        "authority",
        "buyer",
        "purchaser",
        "employer",
        "principal",
        "idare*",
        "musteri*",
        "belediye*",
        "kurum*",
        "isveren*",
        "auftraggeber*",
        "kunde*",
        "behorde*",
        "stadt*",
        "gemeinde*",
        "verwaltung*",
    ],
)
"""Generic names of the client party (a contract's own acronyms cannot be known)."""

PASSIVE_DUTY = cue_list(
    "passive_duty",
    strong=[
        "provided by",
        "furnished by",
        "supplied by",
        "hosted by",
        "operated by",
        "managed by",
        "maintained by",
        "owned by",
        "granted by",
        "arranged by",
        "procured by",
    ],
)
"""English passive duty verbs with their agent ("... will be provided by the
Government"): the sentence gives the duty to the party after "by", so it counts when
that party is the client (:data:`CLIENT`) and not the contractor."""

DUTY_NOUNS = cue_list("duty_nouns", strong=["responsib*", "duty", "duties", "in charge"])
"""The :data:`RESPONSIBILITY` cues that are nouns or adjectives: in English they assign a
duty after a copula too ("... remain the Municipality's duty", "X is responsible for")."""

CONTRACTOR = cue_list(
    "contractor",
    strong=[
        "contractor",
        "contractors",
        "vendor",
        "vendors",
        "supplier",
        "suppliers",
        "offeror",
        "offerors",
        "service provider",
        "development team",
        "yuklenici*",
        "tedarikci*",
        "hizmet saglayici*",
        "auftragnehmer*",
        "lieferant*",
        "dienstleister*",
    ],
)
"""Names of the contractor party."""

MODALS: frozenset[str] = frozenset(("will", "shall", "must"))
"""English modal words; in a duty sentence the words before the first are the subject."""

MODAL_VERBS = cue_list(
    "modal_verbs",
    strong=[
        "will",
        "shall",
        "must",
        "is to",
        "are to",
        "is required to",
        "are required to",
        "*ecek",
        "*acak",
        "*ecektir",
        "*acaktir",
        "*malidir",
        "*melidir",
        "wird",
        "werden",
        "soll",
        "sollen",
        "muss",
        "mussen",
    ],
)
"""Modal verbs of obligation and intent, as contract drafting uses them ("shall"/"must"
for duties, "will" for intent: the US Federal Plain Language Guidelines, section on
"must"), with Turkish future/necessity endings (-ecek/-acak, -meli) and German modals.
A background sentence with one says what is to be done."""

COPULAS: frozenset[str] = frozenset(("is", "are", "remain", "remains", "stays", "stay"))
"""English copulas: before a duty noun they mark the subject like a modal does."""

ENGLISH_MARKERS: frozenset[str] = frozenset(
    ("the", "of", "and", "is", "are", "will", "shall", "must", "to", "for")
)
"""Function words that mark a sentence as English (for the subject rule)."""

NEGATION: frozenset[str] = frozenset(fold(w) for w in ("not", "degil", "nicht", "kein"))

FUTURE = cue_list(
    "future",
    strong=[
        "at a later date",
        "later stage*",
        "future phase*",
        "future release*",
        "future enhancement*",
        "future development",
        "future work",
        "future requirement*",
        "later phase*",
        "subsequent phase*",
        "next phase*",
        "extensible to",
        "extensible for",
        "extensibility to",
        "extensibility for",
        "optional",
        "ileride",
        "gelecekte",
        "sonraki faz*",
        "sonraki asama*",
        "genisletilebilir",
        "kunftig*",
        "zukunftig*",
        "spatere* phase*",
        "erweiterbar*",
        "optional*",
    ],
)
"""Contract sentences about possible future work: anticipated, not included. "future"
counts only in phrases that name later work ("future phases", "future releases"), never
as a bare adjective ("the future production environment" is a constraint); a system
that must stay "extensible to/for" something leaves that something for later, while an
"extensible platform" is only a quality of what is delivered."""

CHANGE_ROUTE = cue_list(
    "change_route",
    strong=[
        "change request*",
        "change order*",
        "change control",
        "degisiklik talep*",
        "degisiklik istem*",
        "anderungsantrag*",
        "anderungsanfrage*",
        "anderungsauftrag*",
        "change-request*",
    ],
)
"""Contract wording that sends something to a change request: anticipated, not included,
can be ordered separately."""

DEFECT_SUPPORT = cue_list(
    "defect_support",
    strong=[
        "bug",
        "bugs",
        "bug fix*",
        "defect*",
        "troubleshoot*",
        "incident*",
        "warranty",
        "hata duzelt*",
        "ariza*",
        "garanti",
        "gewahrleistung*",
        "fehlerbehebung*",
        "mangel*",
        "storung*",
    ],
)
"""Contract wording that puts defect resolution in scope."""

ADMIN_TITLE = cue_list(
    "admin_title",
    strong=[
        "personnel",
        "staffing",
        "skills",
        "administration",
        "administrative",
        "invoic*",
        "evaluation",
        "quote",
        "quotes",
        "quotation",
        "ceiling",
        "travel",
        "award",
        "place of performance",
        "period of performance",
        "contract type",
        "limitation of funds",
        "termination",
        "security clearance*",
        "clearances",
        "badges",
        "non-disclosure",
        "key personnel",
        "governing law",
        "indemnif*",
        "liability",
        "orientation conference",
        "personel",
        "degerlendirme",
        "teklif*",
        "fiyat*",
        "fesih",
        "cezai",
        "schlusselpersonal",
        "personaleinsatz",
        "vergutung*",
        "bewertung*",
        "angebot*",
        "kundigung*",
        "haftung*",
        "vertragsstrafe*",
    ],
)
"""Clause-title wording of contract administration (people, money, procurement), as in
the section headings of federal SOW/PWS and RFQ templates (personnel, invoicing,
evaluation, period/place of performance, type of contract, FAR clauses) and of Turkish
and German service contracts: the clause governs the engagement, not the delivered
system. Words that also name delivered
features (payment, billing, staff, cost) are deliberately absent."""

CONTEXT_TITLE = cue_list(
    "context_title",
    strong=[
        "background",
        "purpose",
        "introduction",
        "overview",
        "problem",
        "context",
        "vision",
        "glossary",
        "definitions",
        "amac",
        "arka plan",
        "genel bakis",
        "tanimlar",
        "hintergrund",
        "zweck",
        "einleitung",
        "uberblick",
        "ausgangslage",
        "definitionen",
        "begriffsbestimmungen",
    ],
)
"""Clause-title wording of background text: describes, does not oblige."""

SCOPE_TITLE = cue_list(
    "scope_title",
    strong=[
        "scope",
        "deliverable*",
        "requirement*",
        "objective*",
        "expectation*",
        "backlog",
        "user stor*",
        "feature*",
        "functional",
        "kapsam*",
        "gereksinim*",
        "teslim*",
        "hedef*",
        "umfang",
        "leistungsumfang",
        "anforderung*",
        "leistungsbeschreibung",
        "lieferumfang",
    ],
)
"""Clause-title wording of scope: such a clause is never administrative or background."""

ADMIN_REQUEST = cue_list(
    "admin_request",
    strong=[
        "staffing",
        "key personnel",
        "hire",
        "hiring",
        "invoice*",
        "invoicing",
        "timesheet*",
        "hourly rate*",
        "daily rate*",
        "labor rate*",
        "labor categor*",
        "contract modification*",
        "headcount",
        "security clearance*",
        "background investigation*",
        "security badge*",
        "access badge*",
        "id badge*",
        "building access",
        "facility access",
        "period of performance",
        "kilit personel*",
        "ise alim*",
        "personel alim*",
        "guvenlik sorusturma*",
        "giris kart*",
        "hakedis*",
        "schlusselpersonal",
        "personalwechsel",
        "stundensatz*",
        "tagessatz*",
        "sicherheitsuberprufung*",
        "zutrittsausweis*",
        "dienstausweis*",
    ],
)
"""Wording of a request about the engagement itself — the contractor's people, the
contract's money, procurement — rather than the delivered system: the same
administration vocabulary as :data:`ADMIN_TITLE` (key personnel, clearances and
badges, invoicing, rates, period of performance) said by a requester. Turkish nouns end in
``*`` because Turkish adds case and possessive suffixes to them (kart, kartı, kartları). Words that also
name features of the systems such contracts deliver (bill, fatura, staff, personnel,
user, badge alone, travel) are absent."""
