"""Builders shared by the wiki tests (no tests here): a small stored project on a real
SQLite file, with real rulings recorded through the repository on a frozen clock."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from etki.config import Settings
from etki.domain import (
    Contract,
    Decision,
    Effort,
    EvidenceStep,
    Module,
    Project,
    ProjectConfig,
    Request,
    Reviewer,
    Risk,
    ScopeClause,
)
from etki.store.repository import CaseFileRepository
from etki.wiki.projection import WikiProjector
from tests.factories import frozen_clock

# B14: a 347-character Turkish title (401 bytes)
_B14_PART = (
    "Şirket içi SSO girişi sırasında oluşan çoğul yönlendirme hatası ve öğrenci ağı "
    "üzerinden gelen güvenlik şikâyetleri"
)
LONG_TITLE = " ".join([_B14_PART] * 3)
# B12: the same title in NFC and NFD
NFC_TITLE = unicodedata.normalize("NFC", "İade Süreci")
NFD_TITLE = unicodedata.normalize("NFD", "İade Süreci")
HOSTILE_TEXT = (
    "Please fix [bold]x[/bold] and <script>alert(1)</script> now.\n"
    "Code: ``` not a fence ``` and `tick` and [a link](http://evil.example)\n"
    "See evil.example and **bold** _em_ <b>b</b> &amp; | cell |\n"
    "\x1b[31mred\x1b[0m bell\x07 cr\rend"
)
COLON_TITLE = "SSO hatası: giriş no"


def project(pid: str = "demo") -> Project:
    clauses = (
        ScopeClause("MSA#3.2", "MSA", "3.2", "Single sign-on", "Staff sign in with SSO."),
        ScopeClause("MSA#4.1", "MSA", "4.1", "Payments", "Citizens pay tax online."),
        ScopeClause(
            "MSA#9.1", "MSA", "9.1", "Exclusions", "No native mobile apps.", kind="exclusion"
        ),
    )
    return Project(
        config=ProjectConfig(pid, "Demo portal", reviewers=(Reviewer("ayse"), Reviewer("jurgen"))),
        root=Path("/nonexistent"),
        contracts=(Contract("MSA", "Master services agreement", "contracts/msa.md", clauses),),
        modules=(
            Module("auth.sso", "auth/sso", "SSO login"),
            Module("payments", "payments", "Online payments", ("auth.sso",)),
            Module("src/legacy billing", "src/legacy", "Old billing"),
        ),
    )


def decision(
    case_id: str,
    verdict: str = "IN_SCOPE",
    cited: tuple[str, ...] = ("MSA#3.2",),
    modules: tuple[str, ...] = ("auth.sso",),
    confidence: float = 0.8,
) -> Decision:
    return Decision(
        case_id=case_id,
        verdict=verdict,
        confidence=confidence,  # type: ignore[arg-type]
        cited_clauses=cited,
        impacted_modules=modules,
        effort=Effort(1.0, 3.0, ("WI-1",)),
        risk=Risk("medium", ("security",), True),
        assumptions=("The request is as written.", "Production portal only."),
        reasoning="Matches the SSO clause.\n\nSee [the clause](http://x.example).",
        evidence=(
            EvidenceStep("score_clauses", "top clause", (("MSA#3.2", 1.25),)),
            EvidenceStep("classify", "in scope", (("margin", 0.5),)),
        ),
        engine_version="test-1",
        model_version="lexical-v1",
        index_freshness="sha256:abc",
    )


# (case id, title, text, verdict, cited, modules)
CASES: tuple[tuple[str, str | None, str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("req-demo-0001", COLON_TITLE, HOSTILE_TEXT, "IN_SCOPE", ("MSA#3.2",), ("auth.sso",)),
    (
        "req-demo-0002",
        "Build a native app",
        "Please build a native iOS app for citizens.",
        "CHANGE_REQUEST",
        ("MSA#9.1",),
        (),
    ),
    (
        "req-demo-0003",
        "SSO for contractors",
        "Contractor accounts need SSO as well.",
        "IN_SCOPE",
        ("MSA#3.2",),
        ("auth.sso",),
    ),
    (
        "req-demo-0004",
        "Größe der Straße-Anzeige",
        "Die Größe der Straßenkarte auf der Prüfungsseite ist falsch; İADE sürecinde ılık hata.",
        "IN_SCOPE",
        ("MSA#4.1",),
        ("payments", "src/legacy billing"),
    ),
    (
        "req-demo-0005",
        LONG_TITLE,
        "Uzun başlıklı talep: öğrenci ağı.",
        "IN_SCOPE",
        ("MSA#3.2",),
        ("auth.sso",),
    ),
    (
        "req-demo-0006",
        "Still pending",
        "Nobody ruled on this yet: Kübra.",
        "REJECT",
        ("MSA#4.1",),
        (),
    ),
)

# (case id, action, reviewer, reason): 0002 and 0003 are overrides; 0001 and 0003 rule
# MSA#3.2 differently, so it is disputed
RULINGS: tuple[tuple[str, str, str, str], ...] = (
    ("req-demo-0001", "approve", "ayse", ""),
    ("req-demo-0002", "reject", "jurgen", "Not ours: native apps are excluded (9.1)."),
    ("req-demo-0003", "convert_to_cr", "jurgen", "Contractors are not staff; CR: no"),
    ("req-demo-0004", "approve", "ayse", ""),
    ("req-demo-0005", "approve", "ayse", ""),
)


@dataclass
class World:
    tmp: Path
    repo: CaseFileRepository
    settings: Settings
    projector: WikiProjector

    @property
    def wiki(self) -> Path:
        path = self.settings.wiki_path("demo")
        assert path is not None
        return path

    @property
    def db_url(self) -> str:
        return self.settings.db_url


def build_world(
    tmp: Path, *, rule: bool = True, wiki: bool = True, clock: Callable[[], datetime] = frozen_clock
) -> World:
    """Store the project and its cases; record the rulings (without touching the wiki)
    when ``rule``."""
    settings = Settings(
        db_url=f"sqlite:///{tmp}/etki.db", wiki_dir=str(tmp / "wiki-{project}") if wiki else None
    )
    repo = CaseFileRepository(settings.db_url, clock=clock)
    repo.save_project(project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo",
        [
            (Request(id=f"R{i}", text=text, title=title), decision(cid, verdict, cited, modules))
            for i, (cid, title, text, verdict, cited, modules) in enumerate(CASES, 1)
        ],
    )
    if rule:
        for cid, action, who, reason in RULINGS:
            repo.record_ruling(cid, action, who, reason)
    return World(tmp=tmp, repo=repo, settings=settings, projector=WikiProjector(repo, settings))


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root``, by relative POSIX path."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
