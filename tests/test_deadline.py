"""One total deadline per model-endpoint call, and the proxy and CA a company endpoint
needs (issue 30 item 3).

A model endpoint that drips one byte every half second forever (tests/http_servers.py
:class:`DripServer`) used to hold ``etki preanalyse`` past 250 s: the 30 s socket timeout
restarted with each byte. Now every call (chat, embeddings, rerank) ends at its
deadline (``ETKI_LLM_TIMEOUT``, ``ETKI_EMBED_TIMEOUT``, ``ETKI_RERANK_TIMEOUT``) with an
error naming the URL, the deadline and the variable, and quitting the desk during ``p``
does not wait for the call. Calls go through ``HTTPS_PROXY``/``HTTP_PROXY`` unless
``NO_PROXY`` names the host (:class:`ForwardProxy`), and an https endpoint's certificate
is checked against ``ETKI_CA_BUNDLE`` (a CA of the test's own, ``trustme``).

Time bounds are generous (the tests run with both cores busy): a call must end and
raise the deadline error, within ``deadline * 5 + 5`` seconds (plus an interpreter's
start for a real process); without the fix it would not end at all. Real sockets, real
subprocesses, no mocks.
"""

from __future__ import annotations

import asyncio
import base64
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from etki.abandon import Abandoned, run_abandonable
from etki.config import Settings
from etki.endpoints import ChatClient, EndpointError, post_json
from etki.errors import InputError
from etki.retrieval import GraphQueryPort
from etki.retrieval.embeddings import EmbeddingClient
from etki.retrieval.rerank import RerankClient
from etki.services import Desk
from tests.http_servers import (
    DripServer,
    ForwardProxy,
    openai_chat,
    serve,
    tls_pair,
)
from tests.test_preanalysis import _env, _sample_store, world  # noqa: F401 (fixtures)
from tests.test_retrieval_endpoints import QUESTION, sample  # noqa: F401 (fixture)
from tests.test_tui_keys import desk_app
from tests.test_tui_pilot import settle, until

STARTUP = 30.0
"""Seconds a real ``etki`` process may take to start and load its store on a loaded
two-core machine, on top of a call's bound."""


def bound(deadline: float) -> float:
    """The most a call with ``deadline`` may take here: generous, see the module
    docstring."""
    return deadline * 5 + 5


def _timed_out(err: EndpointError, url: str, deadline: float, variable: str) -> None:
    text = str(err)
    assert err.kind == "timeout", text
    assert url in text and f"within the {deadline:g} s deadline ({variable})" in text, text


# --- the helper ---------------------------------------------------------------------------


def test_run_abandonable_returns_raises_and_gives_up() -> None:
    assert run_abandonable(lambda: 41 + 1, name="t", timeout=30) == 42
    with pytest.raises(KeyError):
        run_abandonable(lambda: {}["x"], name="t", timeout=30)
    release = threading.Event()
    abandoned: list[str] = []
    with pytest.raises(Abandoned) as err:
        run_abandonable(
            lambda: release.wait(120),
            name="held",
            timeout=0.2,
            on_abandon=lambda: abandoned.append("x"),
        )
    assert err.value.reason == "deadline" and abandoned == ["x"]
    give_up = threading.Event()
    give_up.set()
    with pytest.raises(Abandoned) as err:
        run_abandonable(lambda: release.wait(120), name="held", give_up=give_up)
    assert err.value.reason == "given up"
    release.set()


# --- the layer: a drip in the headers or in the body --------------------------------------


@pytest.mark.parametrize("where", ["headers", "body"])
def test_a_dripping_endpoint_cannot_stretch_the_deadline(where: str) -> None:
    with DripServer(where=where) as drip:
        start = time.monotonic()
        with pytest.raises(EndpointError) as err:
            post_json(drip.url + "/x", {}, timeout=1.5, setting="ETKI_LLM_TIMEOUT")
        took = time.monotonic() - start
        assert took < bound(1.5)
        _timed_out(err.value, drip.url + "/x", 1.5, "ETKI_LLM_TIMEOUT")
        # the abandoned request's socket is shut down: the server sees the hang-up
        assert drip.wait_for(lambda d: d.accepted == 1 and d.open == 0)


def test_chat_embeddings_and_rerank_clients_end_at_their_settings_deadlines() -> None:
    env = {"ETKI_LLM_TIMEOUT": "1", "ETKI_EMBED_TIMEOUT": "1.5", "ETKI_RERANK_TIMEOUT": "0.5"}
    s = Settings.from_env(env)
    assert (s.llm_timeout, s.embed_timeout, s.rerank_timeout) == (1.0, 1.5, 0.5)
    with DripServer() as drip:
        calls = [
            (
                lambda: ChatClient(drip.url, "m", timeout=s.llm_timeout).complete([]),
                drip.url + "/v1/chat/completions",
                1.0,
                "ETKI_LLM_TIMEOUT",
            ),
            (
                lambda: EmbeddingClient(drip.url, "m", timeout=s.embed_timeout).embed(["x"]),
                drip.url + "/v1/embeddings",
                1.5,
                "ETKI_EMBED_TIMEOUT",
            ),
            (
                lambda: RerankClient(drip.url, timeout=s.rerank_timeout).scores("q", ["a"]),
                drip.url + "/rerank",
                0.5,
                "ETKI_RERANK_TIMEOUT",
            ),
        ]
        for call, url, deadline, variable in calls:
            start = time.monotonic()
            with pytest.raises(EndpointError) as err:
                call()
            assert time.monotonic() - start < bound(deadline)
            _timed_out(err.value, url, deadline, variable)


def test_the_query_port_takes_its_deadlines_from_the_settings(sample) -> None:  # noqa: ANN001, F811
    """find_k_nodes (embeddings) and nl_query (chat, as the MCP server's graph_query)
    fall back after the settings' deadlines: nl_query used to wait 80 s."""
    graph, langs = sample
    with DripServer() as drip:
        env = {
            "ETKI_EMBED_BASE_URL": drip.url,
            "ETKI_EMBED_MODEL": "m",
            "ETKI_EMBED_TIMEOUT": "1",
            "ETKI_LLM_BASE_URL": drip.url,
            "ETKI_LLM_MODEL": "m",
            "ETKI_LLM_TIMEOUT": "1",
        }
        port = GraphQueryPort(graph, languages=langs, settings=Settings.from_env(env))
        start = time.monotonic()
        found = port.find_k_nodes(QUESTION, k=3)
        assert time.monotonic() - start < bound(1)
        assert found.scoring == "lexical-bm25"
        assert "1 s deadline (ETKI_EMBED_TIMEOUT)" in found.fallbacks[0]
        start = time.monotonic()
        answer = port.query("Which clause covers single sign-on?", strategy="nl_query")
        assert time.monotonic() - start < bound(1) * 2  # the embedder is skipped by now
        assert any("1 s deadline (ETKI_LLM_TIMEOUT)" in f for f in answer.fallbacks)


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan", "inf"])
def test_a_deadline_that_is_no_number_of_seconds_above_0_is_refused(value: str) -> None:
    with pytest.raises(InputError, match=r"ETKI_RERANK_TIMEOUT: .* above 0; use e\.g\. 3"):
        Settings.from_env({"ETKI_RERANK_TIMEOUT": value})


# --- real processes: etki preanalyse and etki add ----------------------------------------


def _etki(
    args: list[str], env: dict[str, str], cwd: Path
) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "etki.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,  # a hang fails here instead of holding the run
    )
    return done, time.monotonic() - start


@pytest.mark.slow  # a real process per call
def test_etki_preanalyse_against_a_dripping_model_ends_at_its_deadline(world: Path) -> None:  # noqa: F811
    with DripServer() as drip:
        env = {**_env(world, drip.url), "ETKI_LLM_TIMEOUT": "2"}
        case_id = Desk(Settings.from_env(env)).queue("demo")[0].case_id
        done, took = _etki(["preanalyse", case_id], env, world)
    assert done.returncode == 1, done.stderr
    assert took < bound(2) + STARTUP
    assert "failed:" in done.stdout
    assert f"{drip.url}/v1/chat/completions timed out" in done.stdout
    assert "2 s deadline (ETKI_LLM_TIMEOUT)" in done.stdout


@pytest.mark.slow  # a real process per call
def test_etki_add_against_a_dripping_model_stores_the_case_and_ends(world: Path) -> None:  # noqa: F811
    with DripServer() as drip:
        env = {**_env(world, drip.url), "ETKI_LLM_TIMEOUT": "2"}
        done, took = _etki(["add", "--project", "demo", "--title", "Kiosk", "A kiosk."], env, world)
    assert done.returncode == 0, done.stderr
    assert took < bound(2) + STARTUP
    assert "2 s deadline (ETKI_LLM_TIMEOUT)" in done.stdout + done.stderr
    desk = Desk(Settings.from_env(_env(world)))
    case = next(c for c in desk.queue("demo") if c.title == "Kiosk")
    assert case.preanalysis is not None and case.preanalysis.status == "error"


# --- proxies ----------------------------------------------------------------------------


def _chat_server():  # type: ignore[no-untyped-def]
    return openai_chat(lambda messages, n: "through")


def test_http_proxy_carries_the_call_unless_no_proxy_names_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with serve(_chat_server()) as server, ForwardProxy() as proxy:
        user = "etki:p@ss wörd"
        auth = "etki:p%40ss%20w%C3%B6rd"
        monkeypatch.setenv("HTTP_PROXY", proxy.url.replace("http://", f"http://{auth}@"))
        assert ChatClient(server.url, "m").complete([]).content == "through"
        assert [(r.method, r.target) for r in proxy.requests] == [
            ("POST", server.url + "/v1/chat/completions")
        ]
        sent = proxy.requests[0].headers["proxy-authorization"]
        assert sent == "Basic " + base64.b64encode(user.encode()).decode()
        assert len(server.requests) == 1
        assert "proxy-authorization" not in server.requests[0].headers
        for exempt in ("127.0.0.1", "localhost,127.0.0.1:1,.example,127.0.0.1", "*"):
            monkeypatch.setenv("NO_PROXY", exempt)
            assert ChatClient(server.url, "m").complete([]).content == "through"
            assert len(proxy.requests) == 1  # direct
        monkeypatch.setenv("NO_PROXY", "other.example")
        assert ChatClient(server.url, "m").complete([]).content == "through"
        assert len(proxy.requests) == 2


def test_https_goes_through_a_connect_tunnel_with_the_ca_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tls, ca_pem = tls_pair(tmp_path)
    monkeypatch.setenv("ETKI_CA_BUNDLE", str(ca_pem))
    with serve(_chat_server(), tls) as server, ForwardProxy() as proxy:
        assert server.url.startswith("https://127.0.0.1:")
        monkeypatch.setenv("HTTPS_PROXY", proxy.url.removeprefix("http://"))  # no scheme
        assert ChatClient(server.url, "m").complete([]).content == "through"
        host_port = server.url.removeprefix("https://")
        assert [(r.method, r.target) for r in proxy.requests] == [("CONNECT", host_port)]
        monkeypatch.setenv("HTTPS_PROXY", "socks5://" + host_port)
        with pytest.raises(EndpointError, match="HTTPS_PROXY: .*not an http://HOST:PORT or"):
            ChatClient(server.url, "m").complete([])


def test_a_dead_proxy_is_named_in_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.http_servers import closed_port_url

    dead = closed_port_url()
    with serve(_chat_server()) as server:
        monkeypatch.setenv("HTTP_PROXY", dead)
        with pytest.raises(EndpointError) as err:
            ChatClient(server.url, "m").complete([])
    assert err.value.kind == "connect" and f"through proxy {dead}" in str(err.value)


# --- the CA bundle -------------------------------------------------------------------------


def test_the_ca_bundle_decides_whom_an_https_endpoint_must_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tls, ca_pem = tls_pair(tmp_path)
    for name in ("ETKI_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"):
        monkeypatch.delenv(name, raising=False)
    with serve(openai_chat(lambda m, n: "trusted"), tls) as server:
        # the system's CAs do not know the test's CA
        with pytest.raises(EndpointError, match="CERTIFICATE_VERIFY_FAILED") as err:
            ChatClient(server.url, "m").complete([])
        assert err.value.kind == "connect"
        # each variable in turn, the first set wins
        for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "ETKI_CA_BUNDLE"):
            monkeypatch.setenv(name, str(ca_pem))
            assert ChatClient(server.url, "m").complete([]).content == "trusted"
        missing = tmp_path / "nowhere" / "ca.pem"
        monkeypatch.setenv("ETKI_CA_BUNDLE", str(missing))
        with pytest.raises(EndpointError) as err:
            ChatClient(server.url, "m").complete([])
        assert str(err.value).startswith(
            f"ETKI_CA_BUNDLE={str(missing)!r}: the CA bundle cannot be read"
        )
        not_pem = tmp_path / "not.pem"
        not_pem.write_text("no certificate here\n")
        monkeypatch.setenv("ETKI_CA_BUNDLE", str(not_pem))
        with pytest.raises(EndpointError, match="ETKI_CA_BUNDLE=.*cannot be read"):
            ChatClient(server.url, "m").complete([])
        monkeypatch.delenv("ETKI_CA_BUNDLE")
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(missing))
        with pytest.raises(EndpointError, match="^REQUESTS_CA_BUNDLE="):
            ChatClient(server.url, "m").complete([])
    assert len(server.requests) == 3


def test_an_http_endpoint_needs_no_readable_ca_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ETKI_CA_BUNDLE", "/nowhere/ca.pem")
    with serve(openai_chat(lambda m, n: "plain")) as server:
        assert ChatClient(server.url, "m").complete([]).content == "plain"


# --- the desk: quitting while p waits on a dripping model ---------------------------------


def _body_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if "preanalyse worker body" in t.name]


def test_quitting_the_desk_during_p_does_not_wait_for_the_call(world: Path) -> None:  # noqa: F811
    with DripServer(limit=600) as drip:
        env = {**_env(world, drip.url), "ETKI_LLM_TIMEOUT": "600"}
        desk = Desk(Settings.from_env(env))

        async def scenario() -> None:
            app = desk_app(desk, "demo")
            async with app.run_test(size=(120, 60)) as pilot:
                await settle(pilot)
                await pilot.press("p")  # not press(): that waits for the worker
                await until(pilot, lambda: drip.accepted == 1, "the model call to start")
                await pilot.press("ctrl+q")

        asyncio.run(scenario())  # joins the loop's executor threads, as the desk's exit does
        # the app is gone and its event loop closed while the call is still held
        assert drip.open == 1 and drip.accepted == 1
        assert len(_body_threads()) == 1
    # the server stops: the abandoned call ends, its answer goes nowhere
    deadline = time.monotonic() + 60
    while _body_threads() and time.monotonic() < deadline:
        _body_threads()[0].join(timeout=1)
    assert _body_threads() == []
