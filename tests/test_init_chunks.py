"""``etki init`` stores new cases in chunks of ``INIT_CHUNK`` requests (bounded memory
on large engagements, issue 7). Chunking must not change anything stored: the same
cases, decisions, related-context blocks and order as one transaction."""

from __future__ import annotations

from pathlib import Path

import pytest

import etki.services
from etki.config import Settings
from etki.services import init_project
from etki.store import CaseFileRepository
from tests.factories import frozen_clock

SAMPLE = Path(__file__).resolve().parent.parent / "sample_project"


def _stored(tmp: Path, name: str) -> list[tuple[str, str, str, str | None]]:
    settings = Settings(db_url=f"sqlite:///{tmp}/{name}.db", wiki_dir=None, reviewer="reviewer")
    repo = CaseFileRepository(settings.db_url, clock=frozen_clock)
    summary = init_project(SAMPLE, repo, settings)
    assert summary.new_cases == summary.requests == 40
    out = [
        (c.case_id, c.request_id, c.decision.to_json(), repo.decision_context(c.case_id))
        for c in repo.cases("demo")
    ]
    repo.dispose()
    return out


def test_chunks_store_exactly_what_one_transaction_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = _stored(tmp_path, "whole")  # 40 requests < INIT_CHUNK: one chunk
    monkeypatch.setattr(etki.services, "INIT_CHUNK", 7)  # 40 = 5 x 7 + 5
    chunked = _stored(tmp_path, "chunked")
    assert chunked == whole  # repo.cases lists in queue order (seq): same order too
    assert all(context is not None for *_, context in chunked)
