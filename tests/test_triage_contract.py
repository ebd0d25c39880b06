"""Contract reading, wording cues and tokenisation of the triage engine: the parts whose
rules the verdict rests on, checked against sentences whose reading is not in doubt."""

from __future__ import annotations

import pytest

from etki.domain import ScopeClause
from etki.triage import cues
from etki.triage.contract import analyse, clause_roles, sentence_role, split_sentences
from etki.triage.normalise import cue_words, guess_language, identifier_text, tokens
from etki.triage.scoring import BM25Index, top


@pytest.mark.parametrize(
    ("sentence", "role"),
    [
        ("Migration of data from the existing system is not included.", "exclusion"),
        # a duty given to another party, the contractor named only to be excluded
        ("ACF, not the contractor, will be responsible for hosting the deployed system.", "client"),
        ("Native mobile applications are out of scope.", "exclusion"),
        ("OFA will be responsible for creating and managing this repository.", "client"),
        ("ACF will also determine what security controls are required.", "client"),
        ("The Municipality provides and operates the servers, storage and backups.", "client"),
        ("Registration with VERBIS and the inventory remain the Municipality's duty.", "client"),
        (
            (
                "The contractor will have access to the development environment and will be "
                "responsible for maintaining that environment."
            ),
            "obligation",
        ),
        ("TANF is a block grant that provides funds to states.", "obligation"),
        (
            "Staff that are not required to obtain a PIV card can use their own laptops.",
            "obligation",
        ),
        ("The software architecture must be extensible to allow for future development.", "future"),
        # "future" as a bare adjective names a thing that will exist, not later work
        ("The system must run in the future production environment.", "obligation"),
        (
            "Additional languages are not part of this Agreement and require a Change Request.",
            "future",
        ),
        ("Barındırma hizmeti İdare tarafından sağlanır.", "client"),
        ("Yüklenici hata düzeltmelerinden sorumludur.", "obligation"),
        ("Eski kağıt arşivlerin taranması kapsam dışıdır.", "exclusion"),
        ("Der Auftraggeber ist für das Hosting verantwortlich.", "client"),
        ("Die Migration alter Daten ist nicht im Leistungsumfang enthalten.", "exclusion"),
    ],
)
def test_sentence_roles(sentence: str, role: str) -> None:
    assert sentence_role(sentence, "scope", "inclusion")[0] == role


def test_clause_kind_and_role_decide_before_wording() -> None:
    assert sentence_role("Mobile apps for iOS.", "scope", "exclusion")[0] == "exclusion"
    assert sentence_role("Mobile apps need a Change Request.", "scope", "exclusion")[0] == "future"
    assert sentence_role("The contractor invoices monthly.", "admin", "inclusion")[0] == "admin"
    assert sentence_role("OFA owned the account.", "context", "inclusion")[0] == "context"
    # a background sentence with a modal verb says what is to be done: read on
    assert sentence_role("OFA will own the account.", "context", "inclusion")[0] == "client"
    assert (
        sentence_role("The vendor will build a new portal.", "context", "inclusion")[0]
        == "obligation"
    )
    assert sentence_role("Any text at all.", "scope", "context")[0] == "context"


def test_role_of_names_the_rule() -> None:
    from etki.triage.contract import ROLE_RULES, role_of

    assert role_of("Native mobile apps are out of scope.", "scope", "inclusion") == (
        "exclusion",
        ("out of scope",),
        "exclusion wording",
    )
    assert role_of("The vendor will build a portal.", "context", "inclusion")[2] == (
        "modal sentence in background"
    )
    assert role_of("The portal lists posts.", "scope", "inclusion")[2] == (
        "contractor obligation (default)"
    )
    for text, crole, kind in [
        ("x", "scope", "exclusion"),
        ("x", "admin", "inclusion"),
        ("x", "context", "inclusion"),
        ("x", "scope", "context"),
    ]:
        assert role_of(text, crole, kind)[2] in ROLE_RULES
    assert sentence_role("Test data exists.", "scope", "assumption")[0] == "assumption"


def _c(number: str, title: str, parent: str | None = None) -> ScopeClause:
    return ScopeClause(
        ref=f"C#{number}",
        contract_id="C",
        number=number,
        title=title,
        text="Some text.",
        parent=parent,
    )


def test_clause_roles_from_titles_and_parents() -> None:
    clauses = [
        _c("1", "Background"),
        _c("1.1", "Current system"),
        _c("2", "Scope, Expectations and Estimated Cost"),
        _c("2.1", "Upload"),
        _c("7.1", "Administration › Government Personnel"),
        _c("7.2.4", "Notices"),
        _c("8", "Invoicing"),
        _c("8.1", "Schedule"),
        _c("9", "Single sign-on for municipal staff"),
        _c("10", "Property tax e-payments"),
    ]
    assert clause_roles(clauses) == [
        "context",
        "context",  # background and its child
        "scope",
        "scope",  # a title with scope wording is never administrative
        "admin",
        "admin",  # 7.2.4 -> first clause of section 7 (merged empty parent)
        "admin",
        "admin",
        "scope",
        "scope",  # "staff" and "payments" name features here
    ]


def test_split_sentences_handles_lists_tables_and_html() -> None:
    md = (
        "Intro line one. Second sentence!\n\n- item one\n- item two\n\n"
        "| **Deliverable** | **Tested code** |\n| --- | --- |\n| Standard | 90% coverage |\n"
        '<p>Para <span class="u">[link text](http://x.example)</span>.</p>'
    )
    assert split_sentences(md) == [
        "Intro line one.",
        "Second sentence!",
        "item one",
        "item two",
        "Deliverable",
        "Tested code",
        "Standard",
        "90% coverage",
        "Para link text .",
    ]


def test_defect_support_strength_counts_distinct_cues() -> None:
    infos = analyse(
        [
            ScopeClause(
                "C#1",
                "C",
                "1",
                "Scope",
                "Troubleshooting, bug resolution and incident response after release.",
            ),
            ScopeClause("C#2", "C", "2", "User stories", "Help grantees troubleshoot submissions."),
            ScopeClause("C#3", "C", "3", "Invoicing", "Bugs in invoices are corrected."),
        ]
    )
    assert [i.defect_support for i in infos] == [3, 1, 0]  # admin clauses never support


# --- cues -------------------------------------------------------------------------------


def test_cue_wildcards_and_lookahead() -> None:
    assert [c.text for c in cues.DEFECT.find(cue_words("It crashed and doesn't work"))] == [
        "crash*",
        "does not work",
    ]
    assert cues.EXCLUSION.find(cue_words("Migration is not required."))
    assert not cues.EXCLUSION.find(cue_words("Staff not required to obtain a card"))
    assert cues.DEFECT.find(cue_words("Sistem ÇALIŞMIYOR"))
    assert cues.DEFECT.find(cue_words("Die Anmeldung funktioniert nicht"))
    assert cues.DEFECT.positions(cue_words("ok it crashed again and crashed")) == (2, 5)
    hits = cues.DEFECT.hits(cue_words("The page CRASHES"))
    assert [(c.text, text) for c, text in hits] == [("crash*", "crashes")]


def test_defect_weights() -> None:
    assert cues.DEFECT.score(cue_words("error report download")) == 0.5
    assert cues.DEFECT.score(cue_words("the export crashes with an error")) == 1.5


# --- tokens and scoring ----------------------------------------------------------------------


def test_language_guess() -> None:
    assert guess_language("Ödeme sayfası açılmıyor, lütfen bakın", ("en",)) == "tr"
    assert guess_language("Die Zahlung ist fehlgeschlagen und die Größe falsch", ("en",)) == "de"
    assert guess_language("The payment page is broken", ("tr",)) == "en"
    assert guess_language("", ("de", "en")) == "de"  # no evidence: first project language


def test_tokens_drop_stopwords_and_stem() -> None:
    assert tokens("The uploads were validated", "en") == ("upload", "valid")
    assert tokens("Die Prüfungen", "de") == tokens("die PRUFUNGEN", "de") == ("prufung",)
    assert tokens("kullanıcıların şifreleri", "tr") == tokens("KULLANICILARIN ŞİFRELERİ", "tr")
    assert tokens("The contractor is responsible", "en") == ()  # party words are cues
    assert identifier_text("frontend.components.SubmissionHistory") == (
        "frontend components Submission History"
    )


def test_bm25_prefers_the_rarer_term_and_the_shorter_document() -> None:
    index = BM25Index([["upload", "file"], ["upload", "sso"], ["upload"]])
    scores = index.scores(["sso", "upload"])
    # b holds the rare term; c and a share only "upload", and c is shorter (b = 0.75)
    assert scores[1] > scores[2] > scores[0] > 0
    assert top(scores, ["a", "b", "c"], 2) == [("b", scores[1]), ("c", scores[2])]
    assert top(scores, ["a", "b", "c"], 3, min_ratio=0.5) == [("b", scores[1])]
    assert index.coverage(["sso", "unknown"], ["sso"]) < 0.5
    assert index.coverages(["sso"]) == [0.0, 1.0, 0.0]


def _one(text: str, title: str = "Tasks", kind: str = "inclusion") -> list[tuple[str, str]]:
    clause = ScopeClause(ref="C#4", contract_id="C", number="4", title=title, text=text, kind=kind)
    return [(s.text, s.role) for s in analyse([clause])[0].sentences]


def test_list_items_take_the_role_of_their_lead_in() -> None:
    # the shape of a scope statement's exclusion list (written for this test)
    text = (
        "The Contractor shall build the portal.\n\n"
        "The Contractor will not be responsible for the following:\n\n"
        "-   Hosting of the system\n\n-   Granting the authority to operate\n\n"
        "The Contractor shall document the system.\n\n- Install guide\n"
    )
    assert _one(text) == [
        ("The Contractor shall build the portal.", "obligation"),
        ("The Contractor will not be responsible for the following:", "exclusion"),
        ("Hosting of the system", "exclusion"),
        ("Granting the authority to operate", "exclusion"),
        ("The Contractor shall document the system.", "obligation"),
        ("Install guide", "obligation"),
    ]


def test_a_passive_duty_with_the_client_as_agent_is_the_clients() -> None:
    assert (
        sentence_role(
            "Desktops and test data will be provided by the Government.", "scope", "inclusion"
        )[0]
        == "client"
    )
    assert (
        sentence_role("Reports will be provided by the Contractor.", "scope", "inclusion")[0]
        == "obligation"
    )


def test_a_sub_heading_in_the_text_gives_its_own_role() -> None:
    text = (
        "The Contractor shall deliver the search.\n\n### Key Personnel\n\n"
        "The Project Manager shall attend weekly meetings.\n\n### Deliverables\n\n"
        "Weekly status reports.\n"
    )
    roles = dict(_one(text, title="Operational requirements"))
    assert roles["The Contractor shall deliver the search."] == "obligation"
    assert roles["The Project Manager shall attend weekly meetings."] == "admin"
    assert roles["Weekly status reports."] == "obligation"


def test_an_exclusion_sub_heading_makes_the_sentences_below_it_exclusions() -> None:
    text = (
        "The Contractor shall deliver the search.\n\n### Out of scope\n\n"
        "Native mobile applications.\n"
    )
    roles = dict(_one(text))
    assert roles["The Contractor shall deliver the search."] == "obligation"
    assert roles["Native mobile applications."] == "exclusion"
