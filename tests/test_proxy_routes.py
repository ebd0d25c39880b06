"""Proxies as a company sets them (issue 30 item 3, the gaps left).

* ``NO_PROXY`` with address ranges (``10.0.0.0/8``), domain suffixes in each spelling,
  ports, IPv6 in brackets. Before, the standard library's ``proxy_bypass`` read the list:
  it does not understand an address range, so an endpoint on ``10.1.2.3`` (here
  ``127.0.0.1`` under ``127.0.0.0/8``) went through the proxy although exempted.
* A proxy spoken to over TLS (``HTTPS_PROXY=https://proxy:port``): before, refused with
  "not supported"; now the proxy's certificate is checked against the CA bundle, the
  ``CONNECT`` tunnel runs inside that TLS and the endpoint's TLS inside the tunnel, and
  the call's one total deadline still holds.

A loopback endpoint and a forward proxy of the tests' own (tests/http_servers.py), a CA
of the test's own (``trustme``); no mocks."""

from __future__ import annotations

import base64
import time
from pathlib import Path

import pytest

from etki.endpoints import ChatClient, EndpointError, post_json
from etki.endpoints.route import bypasses, route
from tests.http_servers import DripServer, ForwardProxy, openai_chat, serve, tls_pair

PROXY_VARIABLES = ("NO_PROXY", "no_proxy", "HTTP_PROXY", "http_proxy", "HTTPS_PROXY")
PROXY_VARIABLES += ("https_proxy", "ETKI_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")


@pytest.fixture(autouse=True)
def _no_proxy_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("host", "port", "no_proxy", "exempt"),
    [
        ("10.1.2.3", 443, "10.0.0.0/8", True),
        ("11.1.2.3", 443, "10.0.0.0/8", False),
        ("10.1.2.3", 443, "intranet, 10.0.0.0/8", True),  # spaces and commas
        ("172.16.5.4", 443, "172.16.0.0/12,192.168.0.0/16", True),
        ("fd00::5", 443, "fd00::/8", True),
        ("::1", 80, "[::1]", True),
        ("::1", 80, "[::1]:81", False),
        ("10.1.2.3", 443, "10.0.0.0/33", False),  # not a range: matches nothing
        ("llm.corp.example", 443, ".corp.example", True),
        ("llm.corp.example", 443, "*.corp.example", True),
        ("LLM.Corp.Example.", 443, "corp.example", True),
        ("corp.example", 443, ".corp.example", True),
        ("xcorp.example", 443, "corp.example", False),
        ("llm.corp.example", 8443, "llm.corp.example:8443", True),
        ("llm.corp.example", 443, "llm.corp.example:8443", False),
        ("anything", 1, "*", True),
        ("llm.corp.example", 443, "", False),
    ],
)
def test_no_proxy_entries(host: str, port: int, no_proxy: str, exempt: bool) -> None:
    assert bypasses(host, port, no_proxy) is exempt


def test_an_address_range_in_no_proxy_sends_the_call_direct(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with serve(openai_chat(lambda m, n: "direct")) as server, ForwardProxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "10.0.0.0/8,127.0.0.0/8")
        assert route(server.url).proxy is None
        assert ChatClient(server.url, "m").complete([]).content == "direct"
        assert proxy.requests == []  # before: the call went through the proxy
        monkeypatch.setenv("NO_PROXY", "10.0.0.0/8")
        assert ChatClient(server.url, "m").complete([]).content == "direct"
        assert len(proxy.requests) == 1


def test_an_https_endpoint_through_a_proxy_spoken_to_over_tls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tls, ca_pem = tls_pair(tmp_path)
    monkeypatch.setenv("ETKI_CA_BUNDLE", str(ca_pem))
    with serve(openai_chat(lambda m, n: "tunnelled"), tls) as server, ForwardProxy(tls) as proxy:
        assert proxy.url.startswith("https://127.0.0.1:")
        monkeypatch.setenv("HTTPS_PROXY", proxy.url.replace("https://", "https://etki:s%C3%BCr@"))
        # before: "HTTPS_PROXY: ...: a proxy spoken to over TLS is not supported"
        assert ChatClient(server.url, "m").complete([]).content == "tunnelled"
        host_port = server.url.removeprefix("https://")
        assert [(r.method, r.target) for r in proxy.requests] == [("CONNECT", host_port)]
        sent = proxy.requests[0].headers["proxy-authorization"]
        assert sent == "Basic " + base64.b64encode("etki:sür".encode()).decode()
        assert "proxy-authorization" not in server.requests[0].headers


def test_an_http_endpoint_through_a_proxy_spoken_to_over_tls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tls, ca_pem = tls_pair(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_pem))
    with serve(openai_chat(lambda m, n: "asked")) as server, ForwardProxy(tls) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        assert ChatClient(server.url, "m").complete([]).content == "asked"
        assert [(r.method, r.target) for r in proxy.requests] == [
            ("POST", server.url + "/v1/chat/completions")
        ]


def test_a_tls_proxy_the_ca_bundle_does_not_know_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tls, _ca = tls_pair(tmp_path / "a" if (tmp_path / "a").mkdir() is None else tmp_path)
    _other, other_pem = tls_pair(tmp_path)
    monkeypatch.setenv("ETKI_CA_BUNDLE", str(other_pem))
    with serve(openai_chat(lambda m, n: "never")) as server, ForwardProxy(tls) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        with pytest.raises(EndpointError, match="CERTIFICATE_VERIFY_FAILED") as err:
            ChatClient(server.url, "m").complete([])
        assert err.value.kind == "connect" and f"through proxy {proxy.url}" in str(err.value)
        assert server.requests == []


def test_the_deadline_holds_through_a_tls_proxy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dripping endpoint behind a TLS proxy: the call ends at its deadline and the
    abandoned call's socket is shut down (the endpoint sees the hang-up)."""
    tls, ca_pem = tls_pair(tmp_path)
    monkeypatch.setenv("ETKI_CA_BUNDLE", str(ca_pem))
    with DripServer() as drip, ForwardProxy(tls) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        start = time.monotonic()
        with pytest.raises(EndpointError) as err:
            post_json(drip.url + "/x", {}, timeout=1.5, setting="ETKI_LLM_TIMEOUT")
        assert time.monotonic() - start < 1.5 * 5 + 5
        assert err.value.kind == "timeout" and f"through proxy {proxy.url}" in str(err.value)
        assert drip.wait_for(lambda d: d.accepted == 1 and d.open == 0)
