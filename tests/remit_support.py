"""A small project folder with a declared remit (``etki.yaml`` ``scope``), shared by the
remit tests (no tests here). The contract, the statements and the requests are written
for these tests: a fictional library room-booking engagement, nothing taken from a
labelled request set."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

CONTRACT = """---
id: LIB-1
title: Library room booking services
---
# Library room booking services

## 1 Scope

### 1.1 Room booking application

The contractor builds and maintains the room booking web application of the city
library: members search free rooms, book them and cancel bookings.

### 1.2 Defects

The contractor fixes defects of the delivered features within the warranty period.

## 2 Exclusions

### 2.1 Hardware

Supply of hardware, kiosks and printers is not included.
"""

OUT_WEBSITE = "The public website's news content is a separate application run by the Press Office."
HOSTILE = "[bold]x[/] \x1b[2J Belediye personelinin eğitimi İnsan Kaynakları Müdürlüğü'nün işidir."
"""A statement with Rich markup, an ANSI escape and Turkish letters: it must show
literally everywhere (the escape as a visible placeholder)."""
GERMAN_NFD = unicodedata.normalize(
    "NFD", "Die Wartung der Buchungsdatenbank gehört zum Leistungsumfang (Größe, Straße)."
)

ETKI_YAML = f"""id: lib
name: City library bookings
languages: [en, tr, de]
reviewers:
  - name: reviewer
    role: approver
# the PMO's declared remit
scope:
  out:
    - {OUT_WEBSITE}
    - "[bold]x[/] \\e[2J Belediye personelinin eğitimi İnsan Kaynakları Müdürlüğü'nün işidir."
  in:
    - {GERMAN_NFD}
"""

REQUEST_WEBSITE = (
    "Please rewrite the news articles on the public website, the Press "
    "Office content pages look old."
)
REQUEST_TRAINING = "Belediye personelinin eğitimi için bir kurs düzenler misiniz?"


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line of ``text`` holding ``needle``."""
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)


def write_remit_project(
    root: Path, *, etki_yaml: str = ETKI_YAML, requests: tuple[tuple[str, str, str], ...] = ()
) -> Path:
    """Write the project folder at ``root``: ``etki.yaml`` (default :data:`ETKI_YAML`),
    ``contracts/lib.md`` and, when given, ``requests.jsonl`` from (id, title, text)."""
    (root / "contracts").mkdir(parents=True, exist_ok=True)
    (root / "etki.yaml").write_text(etki_yaml, encoding="utf-8")
    (root / "contracts" / "lib.md").write_text(CONTRACT, encoding="utf-8")
    if requests:
        (root / "requests.jsonl").write_text(
            "".join(
                json.dumps({"id": i, "title": t, "text": x}, ensure_ascii=False) + "\n"
                for i, t, x in requests
            ),
            encoding="utf-8",
        )
    return root
