"""The ``etki`` command on a real SQLite file, the real sample project and the real
engagement in ../shared/realdata: the first end-to-end run in real subprocesses as a
user runs it, the rest through the same ``main`` in this process
(:func:`tests.cli_support.run_etki`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
TDRS = ROOT.parent / "shared" / "realdata" / "tdrs"


def etki(
    tmp_path: Path,
    *args: str,
    reviewer: str = "reviewer",
    process: bool = False,
    input: str = "",
) -> subprocess.CompletedProcess:
    """``etki ARGS`` on the test's store and wiki, as ``reviewer``, ``input`` on stdin:
    in this process, or in a real ``python -m etki.cli`` subprocess when ``process``."""
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db",
        "ETKI_WIKI_DIR": str(tmp_path / "wiki-{project}"),
        "ETKI_REVIEWER": reviewer,
    }
    if not process:
        return run_etki(args, env=env, cwd=tmp_path, input=input)
    return subprocess.run(
        [sys.executable, "-m", "etki.cli", *args],
        input=input,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


def test_init_queue_rule_on_the_sample(tmp_path):
    init = etki(tmp_path, "init", str(SAMPLE), process=True)
    assert init.returncode == 0, init.stderr
    assert "project demo" in init.stdout and "new cases triaged: 40" in init.stdout

    again = etki(tmp_path, "init", str(SAMPLE))  # idempotent: nothing triaged twice
    assert "new cases triaged: 0" in again.stdout

    queue = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json", process=True).stdout)
    assert len(queue) == 40
    assert {"case_id", "verdict", "confidence"} <= set(queue[0])
    assert all(q["case_id"].startswith("req-demo-") and len(q["case_id"]) == 17 for q in queue)

    first = queue[0]
    ruled = etki(
        tmp_path, "rule", first["case_id"], "approve", "--reason", "as proposed", process=True
    )
    assert ruled.returncode == 0, ruled.stderr
    pages = list((tmp_path / "wiki-demo" / "decisions").glob("DEC-*.md"))
    assert len(pages) == 1 and first["case_id"] in pages[0].read_text(encoding="utf-8")

    left = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    assert first["case_id"] not in {q["case_id"] for q in left} and len(left) == 39

    twice = etki(tmp_path, "rule", first["case_id"], "reject", "--reason", "changed my mind")
    assert twice.returncode == 2 and "already ruled" in twice.stderr


def test_override_without_reason_is_bad_input(tmp_path):
    etki(tmp_path, "init", str(SAMPLE))
    case = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)[0]
    other = "reject" if case["verdict"] != "REJECT" else "approve"
    out = etki(tmp_path, "rule", case["case_id"], other)
    assert out.returncode == 2 and "give a reason" in out.stderr
    assert "Traceback" not in out.stderr


def test_viewer_cannot_rule(tmp_path):
    etki(tmp_path, "init", str(SAMPLE))
    case = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)[0]
    out = etki(tmp_path, "rule", case["case_id"], "approve", reviewer="İlker Işık")
    assert out.returncode == 2 and "not an approver" in out.stderr


def test_triage_json_is_not_stored(tmp_path):
    etki(tmp_path, "init", str(SAMPLE))
    out = etki(
        tmp_path,
        "triage",
        "--project",
        "demo",
        "--json",
        "SSO login for staff fails after the password change",
    )
    assert out.returncode == 0, out.stderr
    decision = json.loads(out.stdout)
    assert {"verdict", "confidence", "cited_clauses", "impacted_modules", "effort", "risk"} <= set(
        decision
    )
    assert decision["verdict"] in {"IN_SCOPE", "CHANGE_REQUEST", "REJECT"}
    assert 0.0 <= decision["confidence"] <= 1.0
    queue = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    assert len(queue) == 40


@pytest.mark.parametrize(
    "args, message",
    [
        (("queue", "--project", "nope"), "no project 'nope'"),
        (("rule", "req-demo-00000000", "approve"), "no case"),
        (("triage", "--project", "demo", "   "), "empty"),
        (("init", "/nonexistent/project"), "/nonexistent/project"),
    ],
)
def test_bad_input_exits_2_with_a_message(tmp_path, args, message):
    etki(tmp_path, "init", str(SAMPLE))
    out = etki(tmp_path, *args)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr


def test_bad_request_rows_are_named_and_the_good_ones_stored(tmp_path):
    """One malformed row and one with a NUL: init stores every good row, names each bad
    one as ``requests.jsonl:LINE: …`` on stderr and exits 2; a second init with the
    rows fixed adds them and changes nothing already stored (issue 14 item 1)."""
    bad = tmp_path / "bad"
    (bad / "contracts").mkdir(parents=True)
    (bad / "etki.yaml").write_text("id: bad\nname: Bad\n", encoding="utf-8")
    (bad / "contracts" / "c.md").write_text("# 1 Scope\n\nAll of it.\n", encoding="utf-8")
    good = ['{"id": "R1", "text": "ok"}', '{"id": "R4", "text": "also ok"}']
    rows = [good[0], '{"id": "R2", "te', '{"id": "R3", "text": "a\\u0000b"}', good[1]]
    (bad / "requests.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = etki(tmp_path, "init", str(bad))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    errors = out.stderr.splitlines()
    assert len(errors) == 2, out.stderr
    assert "requests.jsonl:2:" in errors[0] and "malformed JSON" in errors[0]
    assert "requests.jsonl:3: field 'text'" in errors[1]
    queue = json.loads(etki(tmp_path, "queue", "--project", "bad", "--json").stdout)
    assert sorted(q["request_id"] for q in queue) == ["R1", "R4"]
    before = {q["case_id"]: q for q in queue}
    rows[1:3] = ['{"id": "R2", "text": "fixed"}', '{"id": "R3", "text": "fixed too"}']
    (bad / "requests.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    again = etki(tmp_path, "init", str(bad))
    assert again.returncode == 0, again.stderr
    after = json.loads(etki(tmp_path, "queue", "--project", "bad", "--json").stdout)
    assert sorted(q["request_id"] for q in after) == ["R1", "R2", "R3", "R4"]
    assert all(before[c] == q for q in after if (c := q["case_id"]) in before)


@pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs not present")
def test_init_on_the_real_engagement(tmp_path):
    out = etki(tmp_path, "init", str(TDRS))
    assert out.returncode == 0, out.stderr
    assert "project tdrs" in out.stdout and "new cases triaged: 30" in out.stdout
    queue = json.loads(etki(tmp_path, "queue", "--project", "tdrs", "--json").stdout)
    assert len(queue) == 30


def test_queue_shows_the_risk_a_clause_disputed_since_the_triage_raises(tmp_path):
    """Two cases citing one clause are ruled differently after intake: the clause is
    disputed now, so a pending case citing it is shown at risk high with the 24h look
    (the desk's escalation, ETKI_DISPUTED_ESCALATION on by default), naming the clause;
    the stored decision keeps its own risk (`etki show`-style JSON of the triage)."""
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    queue = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    by_clause: dict[str, list[dict]] = {}
    for row in queue:
        if not row["pmo_look_24h"] and row["risk"] != "high":
            for ref in row["cited_clauses"]:
                by_clause.setdefault(ref, []).append(row)
    ref, rows = max(by_clause.items(), key=lambda item: len(item[1]))
    assert len(rows) >= 3
    one, two, waiting = rows[:3]
    assert not waiting["risk_raised_by"]
    number = ref.split("#", 1)[1]
    for row, action in ((one, "approve"), (two, "reject")):
        # each reason names the clause: the rulings are about it (etki.memory.ruled_about)
        done = etki(tmp_path, "rule", row["case_id"], action, "--reason", f"per {number}")
        assert done.returncode == 0, done.stderr
    after = {
        r["case_id"]: r
        for r in json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    }
    now = after[waiting["case_id"]]
    assert now["risk"] == "high" and now["pmo_look_24h"] is True
    assert ref in now["risk_raised_by"]
    # a trial: the JSON named no dispute and no risk at triage
    assert now["disputed_refs"] == [ref] and now["risk_at_triage"] == waiting["risk"]
    text = etki(tmp_path, "queue", "--project", "demo").stdout
    [line] = [x for x in text.splitlines() if x.startswith(waiting["case_id"])]
    # the sample's requests are from 2024: the look is long overdue (its wait said)
    assert " high   24h " in line and f"DISPUTED {ref}  look overdue, waiting " in line
    off = subprocess.run(
        [sys.executable, "-m", "etki.cli", "queue", "--project", "demo", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env={
            **os.environ,
            "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db",
            "ETKI_DISPUTED_ESCALATION": "0",
        },
    )
    stored = {r["case_id"]: r for r in json.loads(off.stdout)}[waiting["case_id"]]
    assert stored["risk"] == waiting["risk"] and stored["risk_raised_by"] == []
    assert stored["disputed_refs"] == [ref]  # disputed all the same, raising nothing


def test_add_triages_and_stores_one_request(tmp_path):
    """``etki add`` (text from stdin with ``-``) stores a pending case whose decision is
    the one ``etki triage`` gives the same text, submitted by the acting reviewer; a
    second add of the same text is a case of its own; the wiki still verifies (issue 14
    item 1)."""
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    text = "Müşteri paneline İstanbul şubesi için SSO ile giriş eklenmesini istiyoruz"
    added = etki(
        tmp_path,
        "add",
        "--project",
        "demo",
        "--title",
        "Şube SSO",
        "--json",
        "-",
        input=text,
        reviewer="Ayşe Yılmaz",
    )
    assert added.returncode == 0, added.stderr
    first = json.loads(added.stdout)
    assert first["request_id"].startswith("add-")
    alone = json.loads(etki(tmp_path, "triage", "--project", "demo", "--json", text).stdout)
    for key in ("verdict", "confidence", "cited_clauses", "impacted_modules"):
        assert first["decision"][key] == alone[key], key
    queue = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    [row] = [q for q in queue if q["case_id"] == first["case_id"]]
    assert row["title"] == "Şube SSO" and row["submitted_by"] == "Ayşe Yılmaz"
    assert len(queue) == 41
    again = etki(tmp_path, "add", "--project", "demo", text)
    assert again.returncode == 0 and "added req-demo-" in again.stdout
    assert len(json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)) == 42
    verify = etki(tmp_path, "wiki", "verify", "--project", "demo")
    assert verify.returncode == 0, verify.stdout + verify.stderr


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        (("--project", "demo", "   "), "", "empty"),
        (("--project", "demo", "-"), "", "empty"),
        (("--project", "demo", "--title", "a\u0000b", "text"), "", "NUL"),
        (("--project", "nope", "some text"), "", "no project 'nope'"),
    ],
)
def test_add_refuses_bad_input_and_stores_nothing(tmp_path, args, stdin, message):
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    out = etki(tmp_path, "add", *args, input=stdin)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert len(json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)) == 40


def test_show_prints_the_decision_and_why_step_by_step(tmp_path):
    """A fresh user's trial: plain ``etki show`` gave the verdict but no evidence (only
    ``--json`` had it). It now prints the decision and one ``why`` line per evidence
    step, in the order the engine ran them, each the step's own sentence."""
    etki(tmp_path, "init", str(SAMPLE))
    first = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)[0]
    case_id = first["case_id"]
    shown = etki(tmp_path, "show", case_id)
    assert shown.returncode == 0, shown.stderr
    decision = json.loads(etki(tmp_path, "show", case_id, "--json").stdout)["case"]["decision"]
    lines = shown.stdout.splitlines()
    assert f"verdict     {decision['verdict']}  (confidence {decision['confidence']:.2f})" in lines
    assert f"clauses     {', '.join(decision['cited_clauses']) or '-'}" in lines
    why = [line for line in lines if line.startswith("why ")]
    assert [line.split(None, 2)[2] for line in why] == [
        f"{step['step']}: {step['detail']}" for step in decision["evidence"]
    ]
    assert why[0].startswith("why 1 ") and len(why) == len(decision["evidence"]) >= 5


def test_the_short_id_the_desk_shows_names_the_case(tmp_path):
    """A trial: the queue shows ``9f639c5f`` but ``etki show 9f639c5f`` said no such
    case. A case command takes the short id of one case; a wildcard is no id."""
    etki(tmp_path, "init", str(SAMPLE))
    case_id = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)[0][
        "case_id"
    ]
    short = case_id.rsplit("-", 1)[1]
    shown = etki(tmp_path, "show", short)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(case_id + "  ")
    ruled = etki(tmp_path, "rule", short, "approve")
    assert ruled.returncode == 0, ruled.stderr
    assert ruled.stdout.startswith(f"{case_id}: ")
    for text in ("%", "_" * len(short), short[:-1]):
        missing = etki(tmp_path, "show", text)
        assert missing.returncode == 2 and f"no case '{text}'" in missing.stderr
    # the first characters only (a trial): the message says what a short id is
    assert "a short id is all of the part after" in etki(tmp_path, "show", short[:4]).stderr


def test_show_says_what_the_desk_says_of_a_clause_disputed_since_the_triage(tmp_path):
    """A trial: the desk read "Risk HIGH … (raised now: 9 disputed; LOW at triage)" for a
    case whose clause two rulings had since disputed; `etki show` said only "risk low"."""
    etki(tmp_path, "init", str(SAMPLE))
    rows = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    by_ref: dict[str, list[dict]] = {}
    for row in rows:
        for ref in row["cited_clauses"]:
            by_ref.setdefault(ref, []).append(row)
    ref, cases = next(
        (r, cs) for r, cs in sorted(by_ref.items()) if len(cs) >= 3 and cs[2]["risk"] == "low"
    )
    number = ref.split("#", 1)[1]
    first, second, third = cases[:3]
    for case, action in ((first, "approve"), (second, "reject")):  # IN_SCOPE, then REJECT
        ruled = etki(tmp_path, "rule", case["case_id"], action, "--reason", f"per {number}")
        assert ruled.returncode == 0, ruled.stderr
    shown = etki(tmp_path, "show", third["case_id"])
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert any(
        line.startswith(f"now         DISPUTED {ref} · rulings disagree: ") for line in lines
    )
    # the risk line is the queue's (a later trial read "risk low" above the "now" lines),
    # with the frozen decision's level beside it
    raised = f"(raised now: {ref} disputed; low at triage)"
    risk = next(line for line in lines if line.startswith("risk "))
    assert risk.startswith("risk        high  24h PMO look  ") and risk.endswith(raised)
    assert "disputed_clause" in risk and not any(x.startswith("risk now") for x in lines)
    assert "why         as reasoned at triage (frozen; the now lines are what changed)" in lines
    assert any(x.startswith("why ") and "risk: low" in x for x in lines)  # frozen evidence
    body = json.loads(etki(tmp_path, "show", third["case_id"], "--json").stdout)["case"]["now"]
    assert body["risk"] == "high" and body["risk_raised_by"] == [ref]
    assert body["disputed_clauses"][0]["ref"] == ref


def test_show_and_queue_read_one_risk_of_a_case_whose_clause_is_disputed(tmp_path):
    """A fresh-user trial: ``etki show req-demo-eb879f38`` said "risk low" while the queue
    showed the same case "high 24h … DISPUTED MSA-2024-01#4.1": show printed the frozen
    decision's risk first. Both now read :func:`etki.memory.current_risk` over the same
    clause memory; the text, ``show --json`` and ``queue --json`` agree."""
    case_id, ref = "req-demo-eb879f38", "MSA-2024-01#4.1"
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    added = []
    for text in (  # two new requests about the e-payments clause, ruled apart
        "Emlak vergisi e-ödeme makbuzunda Türkçe karakterler görünmüyor, düzeltin",
        "Property tax e-payment receipt does not show the amount correctly",
    ):
        done = etki(tmp_path, "add", "--project", "demo", text)
        assert done.returncode == 0 and ref in done.stdout, done.stderr
        added.append(done.stdout.split()[1])
    assert etki(tmp_path, "rule", added[0], "approve").returncode == 0
    assert etki(tmp_path, "rule", added[1], "cr", "--reason", "a new layout").returncode == 0
    queue = etki(tmp_path, "queue", "--project", "demo").stdout.splitlines()
    row = next(line for line in queue if line.startswith(case_id))
    assert " high   24h " in row and f"DISPUTED {ref}  look overdue, waiting " in row
    shown = etki(tmp_path, "show", case_id).stdout.splitlines()
    risk = [line for line in shown if line.startswith("risk")]
    raised = f"(raised now: {ref} disputed; low at triage)"
    assert risk == [f"risk        high  24h PMO look  disputed_clause  {raised}"]
    listed = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    in_queue = next(r for r in listed if r["case_id"] == case_id)
    now = json.loads(etki(tmp_path, "show", case_id, "--json").stdout)["case"]["now"]
    assert (
        (now["risk"], now["pmo_look_24h"], now["risk_raised_by"])
        == (
            in_queue["risk"],
            in_queue["pmo_look_24h"],
            in_queue["risk_raised_by"],
        )
        == ("high", True, [ref])
    )
    assert now["risk_signals"] == ["disputed_clause"]
