"""The candidate pool and its validation gate (issue 4 item 7). A small HTTP server on
127.0.0.1 stands in for the OpenAI-compatible model: it answers VALID, INVALID, a
malformed answer and HTTP 429 with Retry-After, as scripted per test."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from etki.config import Settings
from etki.endpoints import DEFAULT_RETRY_AFTER, ChatClient, EndpointError, chat_url, retry_after
from etki.errors import ProjectFormatError
from etki.knowledge import build_index, load_project
from etki.knowledge.gate import (
    GateCase,
    LexicalValidator,
    ModelValidator,
    validator_from_settings,
)
from etki.knowledge.verdict import parse_verdict
from etki.knowledge.vocabulary import UnknownEdgeTypeError
from etki.text import fold

Reply = tuple[int, dict[str, str], str]


def completion(text: str) -> Reply:
    body = {
        "id": "x",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
    }
    return 200, {"Content-Type": "application/json"}, json.dumps(body)


class FakeModel:
    """Replies from ``script`` in order (the last one repeats); records every request."""

    def __init__(self) -> None:
        self.script: list[Reply] = [completion("VALID")]
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with model.lock:
                    model.requests.append(
                        {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                    )
                    reply = model.script.pop(0) if len(model.script) > 1 else model.script[0]
                status, headers, text = reply
                data = text.encode("utf-8")
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def model() -> Iterator[FakeModel]:
    fake = FakeModel()
    yield fake
    fake.close()


def client(model: FakeModel, waits: list[float], **kw) -> ChatClient:  # type: ignore[no-untyped-def]
    return ChatClient(model.url, "m", timeout=5, sleep=waits.append, **kw)


CASE = GateCase(
    "maps_to",
    "clause:MSA#4.1",
    "Card payments go through the virtual POS.",
    "module:payments.gateway",
    "module payments.gateway: card payments",
    ("payments", "gateway"),
    ("card", "payments"),
)


# --- parsing answers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer, expected",
    [
        ("VALID", True),
        ("invalid", False),
        ("Valid.", True),
        ("<s>[OUT] VALID [/OUT]</s>", True),
        ("<s> [INST] [/INST] INVALID </s>", False),
        (
            'Sure! Here is my answer: {"answer": "INVALID", "reason": "the text is valid prose"}',
            False,
        ),
        ('```json\n{"verdict": "valid"}\n```', True),
        ("<|im_start|>assistant\nVALID<|im_end|>", True),
        ('{"valid": false}', False),
        ("VALID or INVALID?", None),
        ("I cannot tell.", None),
        ("", None),
    ],
)
def test_parse_verdict(answer: str, expected: bool | None) -> None:
    assert parse_verdict(answer) is expected


def test_chat_url_and_retry_after() -> None:
    assert chat_url("http://h:1") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    # the gate's old client made .../chat/completions/v1/chat/completions of this
    assert chat_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"
    assert retry_after("3") == 3.0 and retry_after(None) == DEFAULT_RETRY_AFTER == 1.0
    assert retry_after("soon") == 1.0
    now = datetime(2026, 1, 1, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=7), usegmt=True)
    assert retry_after(date, now=now.timestamp()) == 7.0


# --- the model validator against the local server ---------------------------------------


def test_valid_and_invalid_answers(model: FakeModel) -> None:
    waits: list[float] = []
    validator = ModelValidator(client(model, waits, api_key="k"))
    model.script = [completion("VALID"), completion("<s>[OUT] INVALID [/OUT]</s>")]
    first, second = validator.check(CASE), validator.check(CASE)
    assert (first.valid, first.method) == (True, "model:m")
    assert (second.valid, second.method) == (False, "model:m")
    request = model.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k"
    assert request["body"]["model"] == "m" and request["body"]["temperature"] == 0
    assert request["body"]["max_tokens"] == 32
    prompt = request["body"]["messages"][1]["content"]
    assert "Card payments go through the virtual POS." in prompt
    assert "module:payments.gateway" in prompt and "maps_to" in prompt
    assert waits == []


def test_malformed_answer_is_asked_again_then_falls_back(model: FakeModel) -> None:
    model.script = [completion("Hmm, VALID? or INVALID?"), completion("VALID")]
    verdict = ModelValidator(client(model, [])).check(CASE)
    assert (verdict.valid, verdict.method) == (True, "model:m") and len(model.requests) == 2
    model.requests.clear()
    model.script = [completion("I am not sure.")]
    verdict = ModelValidator(client(model, [])).check(CASE)
    assert len(model.requests) == 3
    assert verdict.method.startswith("lexical (model answer unreadable after 3 tries")
    assert verdict.valid is True  # the lexical check: "payments" is in the chunk


def test_a_null_answer_is_asked_again_not_an_endpoint_failure(model: FakeModel) -> None:
    # content null (a model that answered with a tool call, or nothing): the gate's old
    # client called the endpoint failed for the rest of the build; it is an empty answer
    null = {"choices": [{"index": 0, "message": {"role": "assistant", "content": None}}]}
    model.script = [
        (200, {"Content-Type": "application/json"}, json.dumps(null)),
        completion("INVALID"),
    ]
    validator = ModelValidator(client(model, []))
    verdict = validator.check(CASE)
    assert (verdict.valid, verdict.method) == (False, "model:m") and len(model.requests) == 2
    assert validator.failure is None


def test_429_waits_what_retry_after_says(model: FakeModel) -> None:
    model.script = [(429, {"Retry-After": "2"}, "slow down"), completion("INVALID")]
    waits: list[float] = []
    verdict = ModelValidator(client(model, waits)).check(CASE)
    assert (verdict.valid, verdict.method) == (False, "model:m")
    assert waits == [2.0] and len(model.requests) == 2


def test_429_longer_than_the_bound_is_not_shortened(model: FakeModel) -> None:
    # Retry-After: 3600 is not waited out for 10 s and asked again (the old gate client
    # did that): the server said when to come back, so the build uses the lexical check.
    model.script = [(429, {"Retry-After": "3600"}, "slow down"), completion("INVALID")]
    waits: list[float] = []
    validator = ModelValidator(client(model, waits))
    verdict = validator.check(CASE)
    assert verdict.method.startswith("lexical (model unavailable: HTTP 429")
    assert waits == [] and len(model.requests) == 1


def test_429_without_end_gives_up_and_uses_the_lexical_check(model: FakeModel) -> None:
    model.script = [(429, {}, "slow down")]
    waits: list[float] = []
    validator = ModelValidator(client(model, waits))
    with pytest.raises(EndpointError, match="HTTP 429") as err:
        validator.client.complete([{"role": "user", "content": "x"}])
    assert err.value.kind == "status" and err.value.status == 429
    assert waits == [1.0, 1.0, 1.0]  # no Retry-After: DEFAULT_RETRY_AFTER, 3 retries
    model.requests.clear()
    verdict = validator.check(CASE)
    assert verdict.method.startswith("lexical (model unavailable: HTTP 429")
    assert len(model.requests) == 4
    validator.check(CASE)
    assert len(model.requests) == 4  # a failed endpoint is not asked again


def test_unreachable_endpoint_falls_back() -> None:
    validator = ModelValidator(ChatClient("http://127.0.0.1:9", "m", timeout=2))
    verdict = validator.check(CASE)
    assert verdict.method.startswith("lexical (model unavailable: cannot reach")
    assert verdict.valid is True


def test_validator_from_settings() -> None:
    assert isinstance(validator_from_settings(Settings()), LexicalValidator)
    chosen = validator_from_settings(Settings(llm_base_url="http://x/v1", llm_model="m"))
    assert isinstance(chosen, ModelValidator) and chosen.client.model == "m"


def test_lexical_check() -> None:
    assert LexicalValidator().check(CASE).valid is True
    other = GateCase(
        "maps_to",
        "c",
        "Invoices are paid monthly.",
        "module:sms",
        "module sms",
        ("sms",),
        ("operator", "text"),
    )
    verdict = LexicalValidator().check(other)
    assert verdict.valid is False and verdict.detail == "target words in the chunk: none"


# --- the pool in a project ---------------------------------------------------------------

POOL_DOC = """---
id: MSA
candidates:
  - {source: "4.1", type: maps_to, target: "module:payments.gateway"}
  - {source: "4.2", type: maps_to, target: "module:sms"}
  - {target: "module:nowhere"}
---
# MSA

Intro.

## 4 Services

### 4.1 Card payments

Card payments go through the virtual POS gateway.

### 4.2 Water bills

Water bills are paid monthly.

## Unassigned edges

- [[maps_to::module:water]]
- [[module:sms]]
"""
MODULES = (
    "- id: payments.gateway\n  summary: Card payments via the bank's virtual POS\n"
    "- id: sms\n  summary: Text messages to citizens\n"
    "- id: water\n  summary: Water bill payments\n"
)


def pool_project(root: Path, doc: str = POOL_DOC) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: g\nname: G\n", encoding="utf-8")
    (root / "modules.yaml").write_text(MODULES, encoding="utf-8")
    (root / "contracts" / "msa.md").write_text(doc, encoding="utf-8")
    return root


def gate_rows(index):  # type: ignore[no-untyped-def]
    return [(c.source, c.target, c.type, c.verdict, c.method) for c in index.candidates]


def test_pool_without_a_model_uses_the_lexical_check(tmp_path: Path) -> None:
    project = load_project(pool_project(tmp_path / "p"))
    assert [c.number for c in project.clauses] == ["msa", "4.1", "4.2"]  # no pool clause
    assert "Unassigned" not in project.clauses[-1].text
    index = build_index(project)
    assert gate_rows(index) == [
        ("clause:MSA#4.1", "module:payments.gateway", "maps_to", "admitted", "lexical"),
        ("clause:MSA#4.2", "module:sms", "maps_to", "rejected", "lexical"),
        ("pool:MSA", "module:nowhere", "", "unresolved", "-"),
        # no source: checked against the clauses sharing words with the target, best first
        ("clause:MSA#4.2", "module:water", "maps_to", "admitted", "lexical"),
        ("clause:MSA#4.1", "module:water", "maps_to", "rejected", "lexical"),
        ("pool:MSA", "module:sms", "", "rejected", "lexical"),
    ]
    mapped = {
        (e.source, e.target, e.type, e.location) for e in index.edges if e.provenance == "mapped"
    }
    assert mapped == {
        ("clause:MSA#4.1", "module:payments.gateway", "maps_to", "contracts/msa.md:4"),
        ("clause:MSA#4.2", "module:water", "maps_to", "contracts/msa.md:24"),
    }
    assert build_index(project).to_bytes() == index.to_bytes()  # deterministic


def test_pool_with_the_model_admits_only_pool_edges(tmp_path: Path, model: FakeModel) -> None:
    project = load_project(pool_project(tmp_path / "p"))
    model.script = [completion("VALID")]
    validator = ModelValidator(ChatClient(model.url + "/v1", "m", timeout=5))
    index = build_index(project, validator=validator)
    assert model.requests[0]["path"] == "/v1/chat/completions"
    assert [r[3:] for r in gate_rows(index)] == [
        ("admitted", "model:m"),
        ("admitted", "model:m"),
        ("unresolved", "-"),
        ("admitted", "model:m"),
        ("admitted", "model:m"),
        ("rejected", "lexical"),
    ]  # no clause shares a word with it: the model is not asked
    assert len(model.requests) == 4
    mapped = {(e.source, e.target) for e in index.edges if e.provenance == "mapped"}
    assert mapped == {
        ("clause:MSA#4.1", "module:payments.gateway"),
        ("clause:MSA#4.2", "module:sms"),
        ("clause:MSA#4.2", "module:water"),
        ("clause:MSA#4.1", "module:water"),
    }
    vocabulary_types = {c for _, c in index.edge_types}
    assert {e.type for e in index.edges} <= vocabulary_types


def test_pool_types_must_be_in_the_vocabulary(tmp_path: Path) -> None:
    bad = POOL_DOC.replace("- [[maps_to::module:water]]", "- [[frobs::module:water]]")
    with pytest.raises(UnknownEdgeTypeError) as info:
        load_project(pool_project(tmp_path / "a", bad))
    assert info.value.line == 24 and "allowed types:" in str(info.value)
    reversed_type = POOL_DOC.replace(
        'type: maps_to, target: "module:sms"', 'type: mapped_by, target: "module:sms"'
    )
    with pytest.raises(ProjectFormatError) as info2:
        load_project(pool_project(tmp_path / "b", reversed_type))
    assert info2.value.field == "candidates[1].type" and "'maps_to'" in str(info2.value)


@pytest.mark.parametrize(
    "heading", ["Unzugeordnete Kanten", "Atanmamış bağlantılar", "UNASSIGNED EDGES"]
)
def test_pool_section_names_in_three_languages(tmp_path: Path, heading: str) -> None:
    doc = POOL_DOC.replace("## Unassigned edges", f"## {heading}")
    index = build_index(load_project(pool_project(tmp_path / "p", doc)))
    assert len(index.candidates) == 6 and index.node("clause:MSA#4.2") is not None
    assert not [n for n in index.nodes_of("clause") if fold(heading) in fold(n.title)]
