"""Whether the engine is sure, outside the desk (issue 29 item 3): ``etki show`` (text
and ``--json``), ``etki queue`` (text and ``--json``), ``etki triage --json`` and the
decision page of the wiki (frontmatter ``sure``/``evidence_kind``, a body line with the
doubts when not sure), which stays a bit-identical projection. Real SQLite files, the
real sample project and engine."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from etki.domain import UNSAID_DOUBT, is_sure, sureness_line
from etki.frontmatter import split_frontmatter
from etki.services import approval_service
from etki.wiki.paths import decision_path
from etki.wiki.projection import WikiProjector
from tests.conftest import UNSURE_DOUBT, TuiWorld
from tests.test_cli import SAMPLE, etki
from tests.wiki_support import tree_digest

SURE_REJECT = "req-demo-1b7e9d02"  # the fixture's exclusion: sure
UNSURE_HOSTILE = "req-demo-3d5b0f24"  # a topic match; its doubt quotes client markup
OLD_ENGINE = "req-demo-8a9e3c57"  # ruled in the fixture; its engine did not say


def test_cli_says_whether_the_engine_is_sure(tmp_path: Path) -> None:
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    queue = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    assert all(isinstance(row["sure"], bool) for row in queue)
    sure = [row["case_id"] for row in queue if row["sure"]]
    unsure = [row["case_id"] for row in queue if not row["sure"]]
    assert sure and unsure  # the sample has both under engine 3.0.0
    text = etki(tmp_path, "queue", "--project", "demo").stdout.splitlines()
    for line in text:
        case_id, _verdict, confidence, mark, *_ = line.split()
        assert confidence.replace(".", "").isdigit()
        assert (mark == "?") == (case_id in unsure), line
    for case_id in (sure[0], unsure[0]):
        shown = json.loads(etki(tmp_path, "show", case_id, "--json").stdout)["case"]["decision"]
        assert shown["sure"] is (case_id in sure) and shown["evidence_kind"]
        assert bool(shown["doubts"]) is (case_id in unsure)
        out = etki(tmp_path, "show", case_id).stdout
        [line] = [x for x in out.splitlines() if x.startswith("sureness    ")]
        if case_id in sure:
            assert line.startswith("sureness    sure: ")
        else:
            assert line == "sureness    needs a careful look: " + "; ".join(shown["doubts"])
    triaged = json.loads(
        etki(tmp_path, "triage", "--project", "demo", "--json", "Please add a mobile app").stdout
    )
    assert isinstance(triaged["sure"], bool) and triaged["evidence_kind"]
    assert isinstance(triaged["doubts"], list)


def test_show_of_a_decision_before_3_0_0_says_it_did_not_say(tui_world: TuiWorld) -> None:
    d = tui_world.desk.case(OLD_ENGINE).decision
    assert not is_sure(d) and d.evidence_kind == ""
    assert sureness_line(d) == "needs a careful look: " + UNSAID_DOUBT
    out = etki(tui_world.tmp, "show", OLD_ENGINE).stdout
    assert "sureness    needs a careful look: " + UNSAID_DOUBT in out
    shown = json.loads(etki(tui_world.tmp, "show", OLD_ENGINE, "--json").stdout)
    assert shown["case"]["decision"]["sure"] is False
    assert shown["case"]["decision"]["evidence_kind"] == ""


def _page(world: TuiWorld, case_id: str) -> tuple[dict, str]:
    path = decision_path(world.repo.case(case_id))
    text = (world.wiki / path).read_text(encoding="utf-8")
    return split_frontmatter(text, path)


def test_the_decision_page_says_sure_and_why_not(tui_world: TuiWorld) -> None:
    approvals = approval_service(tui_world.repo, tui_world.settings)
    approvals.rule(SURE_REJECT, "reject", reviewer="ayse")
    approvals.rule(UNSURE_HOSTILE, "approve", reviewer="ayse")
    meta, body = _page(tui_world, SURE_REJECT)
    assert meta["sure"] is True and meta["evidence_kind"] == "exclusion"
    assert "Engine sureness" not in body
    meta, body = _page(tui_world, UNSURE_HOSTILE)
    assert meta["sure"] is False and meta["evidence_kind"] == "topic"
    [line] = [x for x in body.splitlines() if x.startswith("- **Engine sureness:**")]
    # the doubt quotes the client's markup: escaped as literal markdown, not markup
    assert "needs a careful look:" in line and "\\[bold\\]ACİL\\[/bold\\]" in line
    assert UNSURE_DOUBT.split("[/bold]")[1] in line  # the rest of the doubt, as written
    meta, body = _page(tui_world, OLD_ENGINE)  # ruled in the fixture by an older engine
    assert meta["sure"] is False and "evidence_kind" not in meta
    assert UNSAID_DOUBT in body
    # still a projection: deleted and rebuilt, the same bytes
    before = tree_digest(tui_world.wiki)
    projector = WikiProjector(tui_world.repo, tui_world.settings)
    assert projector.verify("demo") == []
    shutil.rmtree(tui_world.wiki)
    projector.rebuild("demo")
    assert tree_digest(tui_world.wiki) == before
