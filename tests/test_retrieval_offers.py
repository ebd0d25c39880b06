"""Instructions to offerors and the evaluation of offers count as background in ranking
(issue 33: tdrs's proposal-evaluation sections crowded reviewer questions' top 5). A real
project folder, a real SQLite store made by ``etki init``, the port the commands and the
MCP server read."""

from __future__ import annotations

from etki.cli import run
from etki.config import Settings
from etki.retrieval.lexical import context_clauses
from etki.services import Desk

RFQ = """\
# Request for quotations: booking portal

## 1 Scope

### 1.1 Usability evaluation

The contractor shall build the booking screens and run a usability evaluation of them
with hall staff.

## 2 Invoicing

The contractor shall invoice the booking work monthly.

## 3 Instructions to Offerors

Offerors shall submit a technical volume of ten pages on the booking screens.

### 3.1 Factor 1 - Technical Approach

The Government will rate how the offeror would build the booking screens.

## 4 Evaluation Factors for Award

Quotes are evaluated on price and on the booking screens shown.
"""


def test_instructions_to_offerors_and_their_factors_are_background(tmp_path, monkeypatch):
    """issue 33: a solicitation's instructions to offerors and evaluation factors (FAR
    Sections L and M; :data:`etki.triage.offers.OFFERS_TITLE`) say how the buyer chooses,
    not what the contractor does: background in ranking with every section below them,
    and admin for the engine; a scope clause that evaluates (usability) and other admin
    clauses (invoicing) are not background."""
    from etki.triage.contract import background_clauses, clause_roles
    from etki.triage.graph import read_graph

    root = tmp_path / "halls"
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: halls\nname: Halls\n", encoding="utf-8")
    (root / "contracts" / "rfq.md").write_text(RFQ, encoding="utf-8")
    monkeypatch.setenv("ETKI_DB_URL", f"sqlite:///{tmp_path / 'halls.db'}")
    monkeypatch.setenv("ETKI_WIKI_DIR", "")
    assert run(["init", str(root)]) == 0
    port = Desk.open(Settings.from_env(), read_only=True).graph_port("halls")
    clauses = read_graph(port.graph.index).clauses
    refs = [c.ref for c in clauses]
    roles = dict(zip(refs, clause_roles(clauses), strict=True))
    # the engine reads the same wording (engine 3.2.3): "Instructions to Offerors" is
    # admin though it holds no administration word, and its child inherits it; the
    # usability evaluation stays scope
    assert [roles[r] for r in ("rfq#1.1", "rfq#2", "rfq#3", "rfq#3.1", "rfq#4")] == [
        "scope",
        "admin",
        "admin",
        "admin",
        "admin",
    ]
    background = {r for r, b in zip(refs, background_clauses(clauses), strict=True) if b}
    assert {"rfq#3", "rfq#3.1", "rfq#4"} <= background
    assert not background & {"rfq#1", "rfq#1.1", "rfq#2"}
    assert context_clauses(port.graph) == {f"clause:{r}" for r in background}
    ids = port.find_k_nodes("Who builds the booking screens?", k=5, node_type="clause").ids
    assert ids[0] == "clause:rfq#1.1"


def test_instructions_to_offerors_decide_no_request_in_scope(tmp_path, monkeypatch, capsys):
    """issue 33 item a (engine 3.2.3): a request that repeats what offerors must submit
    ("a technical volume ... on the booking screens", section 3 "Instructions to
    Offerors") is not covered by that section: it binds offerors before award, not the
    contractor's work. Under 3.2.2 this request was IN_SCOPE citing rfq#3; the contract
    asks for booking screens and their usability evaluation, not a technical volume, so
    the right verdict is a change request."""
    import json

    root = tmp_path / "halls"
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: halls\nname: Halls\n", encoding="utf-8")
    (root / "contracts" / "rfq.md").write_text(RFQ, encoding="utf-8")
    monkeypatch.setenv("ETKI_DB_URL", f"sqlite:///{tmp_path / 'halls.db'}")
    monkeypatch.setenv("ETKI_WIKI_DIR", "")
    assert run(["init", str(root)]) == 0
    capsys.readouterr()
    text = "Please add a ten-page technical volume to the booking screens"
    assert run(["triage", "--project", "halls", "--json", text]) == 0
    decision = json.loads(capsys.readouterr().out)
    assert decision["verdict"] == "CHANGE_REQUEST"
    assert "rfq#3" not in decision["cited_clauses"]
