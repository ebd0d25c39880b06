"""The endpoint layer (etki/endpoints/): the deadline client, 429 and Retry-After, the body
cap, the chat client and its URL rule, the bounded JSON extractor and EndpointError.

Every endpoint is a real server on 127.0.0.1: the threaded ``http.server`` of
tests/http_servers.py, or, for a server that never answers or drips its body, a plain
listening socket in a thread. No mocks: Etki talks to them over real sockets."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from etki.endpoints import (
    DEFAULT_RETRY_AFTER,
    MAX_429_RETRIES,
    ChatClient,
    EndpointError,
    chat_url,
    json_objects,
    post_json,
    retry_after,
)
from etki.endpoints.jsonx import MAX_OBJECTS, MAX_SCAN_CHARS, MAX_STARTS
from etki.errors import EtkiError
from tests.http_servers import Reply, Request, chat_completion, openai_chat, serve


def scripted(*replies: Reply):  # type: ignore[no-untyped-def]
    """A handler answering ``replies`` in order, the last one repeating."""
    queue = list(replies)

    def handle(req: Request) -> Reply:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return handle


@contextmanager
def raw_server(serve_one) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """A listening socket on 127.0.0.1; ``serve_one(conn, stop)`` handles each accepted
    connection in a thread (``stop`` is set when the test ends). Yields the URL."""
    stop = threading.Event()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=serve_one, args=(conn, stop), daemon=True).start()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


# --- Retry-After (RFC 9110 §10.2.3) ---------------------------------------------------------

NOW = 784111777.0  # Sun, 06 Nov 1994 08:49:37 GMT, the example date of RFC 9110 §5.6.7


@pytest.mark.parametrize(
    "value, seconds",
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("1.5", 1.5),
        ("Sun, 06 Nov 1994 08:50:07 GMT", 30.0),  # IMF-fixdate
        ("Sunday, 06-Nov-94 08:50:07 GMT", 30.0),  # obsolete RFC 850 form
        ("Sun Nov  6 08:50:07 1994", 30.0),  # obsolete asctime form, read as UTC
        ("Sun, 06 Nov 1994 08:49:00 GMT", 0.0),  # in the past: at once
        (None, DEFAULT_RETRY_AFTER),
        ("", DEFAULT_RETRY_AFTER),
        ("soon", DEFAULT_RETRY_AFTER),
        ("-5", DEFAULT_RETRY_AFTER),
        ("inf", DEFAULT_RETRY_AFTER),
        ("nan", DEFAULT_RETRY_AFTER),
        ("120abc", DEFAULT_RETRY_AFTER),
    ],
)
def test_retry_after(value: str | None, seconds: float) -> None:
    assert retry_after(value, now=NOW) == seconds
    assert DEFAULT_RETRY_AFTER == 1.0


def test_429_with_retry_after_in_seconds_is_waited_out() -> None:
    waits: list[float] = []
    with serve(
        scripted(Reply(429, {"error": "slow"}, headers={"Retry-After": "2"}), Reply(200, {"ok": 1}))
    ) as s:
        answer = post_json(s.url + "/x", {"q": 1}, timeout=5, sleep=waits.append)
    assert answer.body == {"ok": 1} and waits == [2.0] and len(s.requests) == 2
    assert s.requests[1].body == {"q": 1}  # the same request again


def test_429_with_retry_after_as_an_http_date_is_waited_out() -> None:
    waits: list[float] = []
    when = format_datetime(datetime.fromtimestamp(time.time() + 3, tz=UTC), usegmt=True)
    with serve(scripted(Reply(429, {}, headers={"Retry-After": when}), Reply(200, {"ok": 2}))) as s:
        answer = post_json(s.url + "/x", {}, timeout=8, sleep=waits.append)
    assert answer.body == {"ok": 2} and len(waits) == 1
    assert 1.5 < waits[0] <= 3.0  # the date has whole seconds: 2 to 3 s from now


def test_429_without_retry_after_waits_the_default_and_retries_are_bounded() -> None:
    waits: list[float] = []
    with serve(scripted(Reply(429, {"error": "slow"}))) as s, pytest.raises(EndpointError) as err:
        post_json(s.url + "/x", {}, timeout=5, sleep=waits.append)
    assert waits == [DEFAULT_RETRY_AFTER] * MAX_429_RETRIES
    assert len(s.requests) == MAX_429_RETRIES + 1
    assert (err.value.kind, err.value.status) == ("status", 429)
    assert "HTTP 429" in str(err.value) and "after 3 retries" in str(err.value)


@pytest.mark.parametrize(
    "retry, timeout, max_wait",
    [
        ("3600", 5.0, 10.0),  # longer than max_retry_wait: not shortened, not waited
        ("4", 2.0, 10.0),  # would end after the deadline
        ("2", 5.0, 1.0),  # over a caller's smaller bound
    ],
)
def test_429_that_cannot_be_waited_out_is_an_error_at_once(
    retry: str, timeout: float, max_wait: float
) -> None:
    waits: list[float] = []
    with (
        serve(scripted(Reply(429, {}, headers={"Retry-After": retry}))) as s,
        pytest.raises(EndpointError) as err,
    ):
        post_json(s.url + "/x", {}, timeout=timeout, max_retry_wait=max_wait, sleep=waits.append)
    assert waits == [] and len(s.requests) == 1 and err.value.status == 429


# --- the hard deadline ----------------------------------------------------------------------


def test_a_server_that_never_answers_hits_the_deadline() -> None:
    def silent(conn: socket.socket, stop: threading.Event) -> None:
        with conn:
            stop.wait(10)  # reads nothing, answers nothing

    with raw_server(silent) as url:
        start = time.monotonic()
        with pytest.raises(EndpointError) as err:
            post_json(url + "/x", {}, timeout=0.5)
        took = time.monotonic() - start
    assert err.value.kind == "timeout" and url in str(err.value)
    assert 0.4 < took < 1.5


def test_a_server_that_drips_its_body_cannot_stretch_the_deadline() -> None:
    def drip(conn: socket.socket, stop: threading.Event) -> None:
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 1000\r\n\r\n["
                )
                while not stop.wait(0.05):
                    conn.sendall(b"1,")  # a byte every 50 ms, never done in time
            except OSError:
                pass

    with raw_server(drip) as url:
        start = time.monotonic()
        with pytest.raises(EndpointError) as err:
            post_json(url + "/x", {}, timeout=0.6)
        took = time.monotonic() - start
    assert err.value.kind == "timeout" and 0.5 < took < 1.5


def test_the_deadline_covers_429_waits() -> None:
    with serve(scripted(Reply(429, {}, headers={"Retry-After": "0.3"}))) as s:
        start = time.monotonic()
        with pytest.raises(EndpointError) as err:
            post_json(s.url + "/x", {}, timeout=3.0)  # real sleeps: 0.3 s each
        took = time.monotonic() - start
    # the waits count against the deadline: at most 1 + 3.0 // 0.3 = 11 attempts, it
    # retried, and it gave up near the deadline. The last error is the 429, or a timeout
    # when the machine is so busy that a round trip outlived what was left of the deadline
    # (a 1 s deadline with both cores loaded did; a wait for time, so the deadline is 3 s).
    assert err.value.status == 429 or err.value.kind == "timeout", err.value
    assert 2 <= len(s.requests) <= 11 and took < 3.0 + 1.0, (len(s.requests), took)


def test_unreachable_and_wrong_urls_are_connect_errors() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(EndpointError, match="cannot reach") as err:
        post_json(f"http://127.0.0.1:{port}/x", {}, timeout=2)
    assert err.value.kind == "connect"
    with pytest.raises(EndpointError, match="not an http") as err:
        post_json("ftp://h/x", {}, timeout=2)
    assert err.value.kind == "connect"


# --- bodies -----------------------------------------------------------------------------


def test_an_oversized_body_is_an_error() -> None:
    with serve(scripted(Reply(200, raw=b"[" + b"0," * 1500 + b"0]"))) as s:
        with pytest.raises(EndpointError, match="over 1024 bytes") as err:
            post_json(s.url + "/x", {}, timeout=2, max_body_bytes=1024)
        assert err.value.kind == "body"
        assert len(post_json(s.url + "/x", {}, timeout=2).body) == 1501  # under the default


def test_a_body_that_is_not_json_is_an_error() -> None:
    with (
        serve(scripted(Reply(200, raw=b"<html>busy</html>"))) as s,
        pytest.raises(EndpointError, match="not JSON") as err,
    ):
        post_json(s.url + "/x", {}, timeout=2)
    assert err.value.kind == "body"


def test_a_non_2xx_status_names_the_url_and_the_start_of_the_body() -> None:
    with (
        serve(scripted(Reply(503, {"error": "down for maintenance"}))) as s,
        pytest.raises(EndpointError) as err,
    ):
        post_json(s.url + "/x", {}, timeout=2)
    assert err.value.status == 503 and "HTTP 503 from " + s.url + "/x" in str(err.value)
    assert "down for maintenance" in str(err.value)


# --- the chat client --------------------------------------------------------------------


@pytest.mark.parametrize(
    "suffix", ["", "/", "/v1", "/v1/", "/v1/chat/completions", "/v1/chat/completions/"]
)
def test_every_spelling_of_the_chat_url_reaches_the_route(suffix: str) -> None:
    with serve(openai_chat(lambda messages, n: "hello")) as s:
        reply = ChatClient(s.url + suffix, "m", "key").complete(
            [{"role": "user", "content": "hi"}], max_tokens=5
        )
    assert reply.content == "hello"
    (req,) = s.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer key"
    assert req.body == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0,
        "max_tokens": 5,
    }


def test_chat_url_rule() -> None:
    assert chat_url("http://h:8080") == "http://h:8080/v1/chat/completions"
    assert chat_url("http://h:11434/v1/") == "http://h:11434/v1/chat/completions"
    assert chat_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"
    assert chat_url("http://h/proxy/v1") == "http://h/proxy/v1/chat/completions"
    assert (
        chat_url("https://h/openai/v1beta/chat/completions")
        == "https://h/openai/v1beta/chat/completions"
    )
    assert chat_url("http://h/v1?key=1") == "http://h/v1/chat/completions?key=1"


def test_chat_answer_shapes() -> None:
    call = {"type": "function", "function": {"name": "find_nodes", "arguments": "{}"}}
    bodies = [
        chat_completion(None, [call]),  # tool call, null content
        {"choices": [{"index": 0, "text": "VALID"}]},  # legacy completions shape
        {"choices": []},
        {"error": "x"},
        {"choices": [{"index": 0}]},
    ]
    with serve(scripted(*[Reply(200, b) for b in bodies])) as s:
        client = ChatClient(s.url, "m", timeout=2)
        first = client.complete([])
        assert (first.content, first.tool_calls) == ("", (call,))
        assert client.complete([]).content == "VALID"
        for _ in range(3):
            with pytest.raises(EndpointError) as err:
                client.complete([])
            assert err.value.kind == "body" and s.url in str(err.value)


def test_json_inside_prose_is_found() -> None:
    prose = (
        'Sure! Here is the call you asked for:\n```json\n{"tool": "find_nodes", '
        '"arguments": {"question": "a {curly} one", "k": 2}}\n```\nHope it helps. '
        'PS: {not json} and {"second": [1, {"nested": true}]}'
    )
    with serve(openai_chat(lambda messages, n: prose)) as s:
        content = ChatClient(s.url, "m", timeout=2).complete([]).content
    assert json_objects(content) == [
        {"tool": "find_nodes", "arguments": {"question": "a {curly} one", "k": 2}},
        {"second": [1, {"nested": True}]},
    ]


def test_the_json_extractor_is_bounded() -> None:
    obj = '{"a": 1}'
    assert json_objects(" " * (MAX_SCAN_CHARS - len(obj)) + obj) == [{"a": 1}]
    assert json_objects(" " * (MAX_SCAN_CHARS - len(obj) + 1) + obj) == []
    assert len(json_objects(obj * (MAX_OBJECTS + 5))) == MAX_OBJECTS
    assert json_objects("{x " * (MAX_STARTS - 1) + obj) == [{"a": 1}]
    assert json_objects("{x " * MAX_STARTS + obj) == []  # the start budget is spent
    assert json_objects('{"a": ' + "[" * 50_000) == []  # deep nesting: no RecursionError
    # each start reads on to the end and none ends: the work is bounded by the start
    # budget, counted as decode attempts (a count, not a wall-clock limit: CI's machine
    # may be busy; this read 2.3 s there against the 2.0 s limit it had)
    attempts = 0

    def count(frame, event, _arg):  # noqa: ANN001, ANN202
        nonlocal attempts
        if event == "call" and frame.f_code.co_name == "raw_decode":
            attempts += 1

    sys.setprofile(count)
    try:
        assert json_objects('{"a": [' * 5000) == []
    finally:
        sys.setprofile(None)
    assert 0 < attempts <= MAX_STARTS


# --- the error --------------------------------------------------------------------------


def test_endpoint_error_is_an_etki_error() -> None:
    err = EndpointError("status", "HTTP 500 from http://h/x", 500)
    assert isinstance(err, EtkiError) and err.exit_code == 1
    assert (err.kind, err.status, str(err)) == ("status", 500, "HTTP 500 from http://h/x")
    with pytest.raises(ValueError, match="unknown endpoint error kind"):
        EndpointError("other", "x")
