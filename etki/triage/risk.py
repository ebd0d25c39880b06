"""Risk layer (one job: signals and a 24h PMO look; it never touches the verdict).

Signals, in this fixed order:

* ``security``: security wording in the request (:data:`SECURITY`:
  password, token, vulnerability, şifre, Sicherheitslücke ...);
* ``personal_data``: personal-data wording (:data:`PERSONAL_DATA`:
  PII, personal data, kişisel veri, KVKK, GDPR/DSGVO, personenbezogene Daten ...);
* ``disputed_clause``: a cited clause's dispute is open in clause memory (disputed
  and not resolved by a person: :attr:`etki.domain.ClauseMemory.open_dispute`; a
  disputed-resolved clause raises nothing) and dispute escalation is on
  (``ETKI_DISPUTED_ESCALATION``; off = a note in the evidence only).

Level: ``high`` with two or more signals or a disputed clause, ``medium`` with one,
``low`` with none. Any signal asks for a PMO look within 24 hours. The function takes
no verdict, confidence or effort, so it cannot change them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from etki.domain import DISPUTED_SIGNAL, ClauseMemory, Risk
from etki.text import fold
from etki.triage.cue_match import cue_list

# The request wording each signal looks for (cue syntax: etki.triage.cue_match).

SECURITY = cue_list(
    "security",
    strong=[
        "security",
        "password*",
        "passwd",
        "token",
        "tokens",
        "credential*",
        "secret*",
        "vulnerab*",
        "exploit*",
        "injection",
        "xss",
        "csrf",
        "penetration",
        "pentest*",
        "privilege*",
        "encrypt*",
        "decrypt*",
        "malware",
        "virus",
        "breach*",
        "guvenlik*",
        "sifre*",
        "parola*",
        "zafiyet*",
        "sizma",
        "yetkisiz",
        "sicherheit*",
        "passwort*",
        "kennwort*",
        "schwachstelle*",
        "verschlussel*",
        "angriff*",
    ],
)
"""Security wording (risk signal ``security``)."""

PERSONAL_DATA = cue_list(
    "personal_data",
    strong=[
        "pii",
        "personal data",
        "personal information",
        "personally identifiable",
        "gdpr",
        "ssn",
        "ssns",
        "social security number*",
        "date of birth",
        "privacy",
        "data protection",
        "phi",
        "kisisel veri*",
        "kisisel bilgi*",
        "kvkk",
        "kimlik numara*",
        "tc kimlik",
        "ozel nitelikli",
        "acik riza",
        "aydinlatma metni",
        "personenbezogen*",
        "dsgvo",
        "datenschutz*",
        "personliche daten",
    ],
)
"""Personal-data wording (risk signal ``personal_data``)."""


def assess(
    words: Sequence[str],
    cited: Sequence[str],
    memory: Mapping[str, ClauseMemory],
    disputed_escalation: bool,
    written: Callable[[], Sequence[str]] | None = None,
) -> tuple[Risk, tuple[str, ...], tuple[str, ...]]:
    """Risk of a request.

    ``words``: :func:`etki.triage.normalise.cue_words` of the request. ``cited``: cited
    clause refs. ``written``: the same words as the request spells them, as for
    :meth:`etki.triage.cues.CueList.hits`. Returns ``(risk, found, disputed)``: ``found``
    the request's words that fired a cue (folded, or with ``written`` as written; one
    per fold, sorted by fold), ``disputed`` the cited refs whose dispute is open (in
    citation order, whether or not they were escalated; disputed-resolved refs are not
    among them).
    """
    signals: list[str] = []
    found: list[str] = []
    for name, signal_cues in (("security", SECURITY), ("personal_data", PERSONAL_DATA)):
        hits = signal_cues.hits(words, written)
        if hits:
            signals.append(name)
            found.extend(text for _, text in hits)
    disputed = tuple(ref for ref in cited if ref in memory and memory[ref].open_dispute)
    if disputed and disputed_escalation:
        signals.append(DISPUTED_SIGNAL)
    if not signals:
        level = "low"
    elif len(signals) >= 2 or DISPUTED_SIGNAL in signals:
        level = "high"
    else:
        level = "medium"
    by_fold: dict[str, str] = {}
    for text in found:
        by_fold.setdefault(fold(text), text)
    quoted = tuple(by_fold[key] for key in sorted(by_fold))
    return (Risk(level, tuple(signals), bool(signals)), quoted, disputed)
