"""``memory._named_in`` with the project's refs indexed (issue 32 item 1) names exactly
the refs, in the same order, that the plain loop over every ref named before it."""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from etki import memory

SAMPLE = Path(__file__).resolve().parent.parent / "sample_project"


def _names_reference(text: str, number: str) -> bool:
    if not number or number not in text:
        return False
    return re.search(rf"(?<![\w.]){re.escape(number)}(?!\w|\.\w)", text) is not None


def _named_in_reference(
    reason: str, candidates: Iterable[str], known: tuple[str, ...] = ()
) -> list[str]:
    """The function before the index (main 213c3e1, unprepared): every ref tried."""
    if not reason:
        return []
    reason = unicodedata.normalize("NFC", reason)
    if not reason.strip():
        return []
    folded = reason.casefold()
    return [
        ref
        for ref in dict.fromkeys((*candidates, *known))
        if ref.casefold() in folded
        or ("#" in ref and _names_reference(reason, ref.split("#", 1)[1]))
    ]


def _sample_refs() -> list[str]:
    """``doc#number`` of every numbered heading of the sample contracts (as the
    ingest names them) and a second contract with the same numbers."""
    refs = []
    for path in sorted((SAMPLE / "contracts").glob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"#+\s+([A-Z]?\d+(?:\.\d+)*)\s", line)
            if m:
                refs += [f"{path.stem}#{m.group(1)}", f"sow#{m.group(1)}"]
    return refs


EDGE_REFS = [
    "msa#4.1",
    "msa#4.10",
    "msa#4.1.1",
    "msa#14.1",
    "msa#4",
    "msa#A.2",
    "annex#a.2",
    "MSA#4.8",
    "msa#4.8",
    "sözleşme#İ.1",
    "vertrag#§3",
    "vertrag#Straße",
    "vertrag#strasse",
    "x#",
    "#1",
    "",
    "a",
    "ıi#1.2",
    "cafe\u0301#2",
    "café#2",
    "k#4.1)",
    "k#(b)",
    "k#1.1-2",
    "scope",
    "#",
    "msa#4.1 ",
    "ß#ß",
    "İ#İ",
]

EDGE_REASONS = [
    "",
    " ",
    "\n\t",
    "§4.1 and 14.1, 4.1.1",
    "see 4.10.",
    "4.1.",
    "4.1.x",
    "x4.1",
    "4.1x",
    "(4.1)",
    "MSA#4.10 not MSA#4.1",
    "msa#4.1",
    "İSTANBUL ıi ß Straße 1.1",
    "STRASSE 3",
    "sözleşme#i̇.1 and SÖZLEŞME#İ.1",
    "cafe\u0301#2 and café#2",
    "k#4.1) k#(b)",
    "1.1-2",
    "Vertrag §3: ẞ",
    "clause A.2 and a.2",
    "#1 # #",
    "ΣΑΣ 4",
    "4",
    "scope",
    "4.1\u0301",
]


def _random_reasons(refs: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    glue = [" ", ".", ",", "§", "(", ")", "-", "x", "İ", "ı", "ß", "\u0301", "#", "\n", ""]
    words = ["scope", "Kapsam", "madde", "Straße", "ÜBER", "değişiklik", "clause", "per"]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 8)):
            pick = rng.random()
            if pick < 0.4:
                ref = rng.choice(refs)
                parts.append(ref.split("#", 1)[-1] if rng.random() < 0.6 else ref)
            elif pick < 0.6:
                parts.append(rng.choice(words))
            else:
                parts.append(str(rng.randint(0, 20)) + "." + str(rng.randint(0, 12)))
            if rng.random() < 0.3:
                parts[-1] = rng.choice([parts[-1].upper(), parts[-1].lower()])
            parts.append(rng.choice(glue))
        text = "".join(parts)
        out.append(unicodedata.normalize("NFD", text) if rng.random() < 0.2 else text)
    return out


def _both(reason: str, cited: tuple[str, ...], known: tuple[str, ...]) -> None:
    assert memory._named_in(reason, cited, known) == _named_in_reference(reason, cited, known), (
        reason,
        cited,
    )


def test_the_index_names_what_every_ref_named() -> None:
    sample = _sample_refs()
    assert len(sample) > 50  # the sample's headings were read
    refs = [*EDGE_REFS, *sample]
    requests = [
        json.loads(line)["text"]
        for line in (SAMPLE / "requests.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    reasons = [*EDGE_REASONS, *requests, *_random_reasons(refs, 1500, seed=32)]
    rng = random.Random(1)
    knowns = [tuple(refs), tuple(sample), tuple(EDGE_REFS), tuple(reversed(refs)), ()]
    for reason in reasons:
        cited = tuple(rng.sample(refs, rng.randint(0, 4)))
        for known in knowns:
            _both(reason, cited, known)
            _both(reason, (), known)


def test_edge_cases_name_the_right_refs() -> None:
    known = ("msa#4.1", "msa#4.10", "msa#4.1.1", "msa#14.1", "sözleşme#İ.1", "café#2")
    assert memory._named_in("see 4.10.", (), known) == ["msa#4.10"]
    assert memory._named_in("§4.1, not x4.1", (), known) == ["msa#4.1"]
    assert memory._named_in("MSA#4.10", (), known) == ["msa#4.1", "msa#4.10"]  # by ref text
    assert memory._named_in("SÖZLEŞME#İ.1", (), known) == ["sözleşme#İ.1"]
    assert memory._named_in("cafe\u0301#2", ("msa#4.1",), known) == ["café#2"]
    assert memory._named_in("4.1 and 14.1", ("msa#14.1",), known) == ["msa#14.1", "msa#4.1"]


def test_deciding_ref_among_finds_the_ref_deciding_ref_finds():
    """``etki report``'s corrections look the deciding sentence's ref up among the
    project's refs by prefix (:func:`etki.domain.evidence.deciding_ref_among`) instead of
    sorting them per override: the same ref as :func:`etki.domain.deciding_ref` for
    prefix refs (``4.1``/``4.10``/``4.1.1``), refs glued to words or followed by ``.x``,
    an empty ref, several classify steps, other steps, Turkish and NFD text."""
    from etki.domain import DECIDING, deciding_ref
    from etki.domain.evidence import deciding_ref_among

    rng = random.Random(20261207)
    pool = [
        "MSA#4.1",
        "MSA#4.10",
        "MSA#4.1.1",
        "MSA#14.1",
        "MSA#4",
        "Sözleşme-İ#2.1",
        unicodedata.normalize("NFD", "Sözleşme-İ#2.1"),
        "A",
        "",
        "x y#1",
    ]
    tails = [" (obligation, role rule: x)", "", ".2 more", "a", "-b", "… “ö”", "\n", ".", " "]
    for _ in range(3000):
        refs = rng.sample(pool, rng.randint(0, len(pool)))
        details = [
            (
                rng.choice(["classify", "classify", "score_clauses"]),
                rng.choice(["", "rule -> X; "])
                + (DECIDING if rng.random() < 0.9 else "")
                + rng.choice(pool)
                + rng.choice(tails),
            )
            for _ in range(rng.randint(0, 3))
        ]
        longest = max(map(len, refs), default=0)
        split = rng.randint(0, len(refs))  # the project's refs, and the cited ones beside
        found = deciding_ref_among(details, set(refs[:split]), longest, refs[split:])
        assert found == deciding_ref(details, refs)
