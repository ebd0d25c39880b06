"""How a call reaches a model endpoint (one job: the proxy to go through, the CAs to trust).

**Proxy.** The proxy of an ``http`` or ``https`` URL is the one the environment names for
that scheme (``HTTPS_PROXY``/``https_proxy``, ``HTTP_PROXY``/``http_proxy``; the
lower-case spelling wins; read by :func:`urllib.request.getproxies_environment`), unless
``NO_PROXY``/``no_proxy`` exempts the host (:func:`bypasses`, curl's rules): a list of
entries separated by commas or spaces, each a host name or domain suffix
(``.corp.example``, ``*.corp.example`` and ``corp.example`` all match
``llm.corp.example``), an IP address or an address range (``10.0.0.0/8``,
``fd00::/8``; ``[::1]`` in brackets too), optionally with ``:port`` (then only that
port), or ``*`` for every host. An address range matches an endpoint given by its
address; a host name is not resolved to find its address (no lookup outside the call's
deadline), so list such a host by name.
Nothing else is implied: a loopback endpoint goes through the proxy too unless
``NO_PROXY`` names it. A proxy URL without a scheme (``proxy.corp:3128``) is
``http://``; user and password in it (``http://user:pass@proxy:3128``, percent-encoded)
are sent as ``Proxy-Authorization: Basic``. An ``https`` endpoint is reached through a
``CONNECT`` tunnel (TLS end to end, the proxy sees only the host name); an ``http`` one
by asking the proxy for the absolute URL. A proxy spoken to over TLS (an ``https://``
proxy URL, port 443 unless given) has its certificate checked like an endpoint's (the CA
bundle below, its host name); an https endpoint's TLS then runs inside that connection
(:mod:`etki.endpoints.tlstunnel`).

**CA bundle.** An ``https`` endpoint's certificate is checked against the PEM file
named by ``ETKI_CA_BUNDLE``, else ``REQUESTS_CA_BUNDLE``, else ``SSL_CERT_FILE`` (the
first one set and not empty), and only against it, as ``requests`` and OpenSSL read
those variables; none set: the system's trusted CAs. A file that cannot be read or
holds no certificate fails the call with an error naming the variable and the path.
Host names are always checked.

Both are read at each call (a long-running desk sees a changed environment only after
a restart, as every process does, but tests and the MCP server need no reload).
"""

from __future__ import annotations

import base64
import functools
import http.client
import ipaddress
import os
import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit, urlunsplit
from urllib.request import getproxies_environment

from etki.endpoints.errors import EndpointError
from etki.endpoints.tlstunnel import TunnelConnection
from etki.errors import clip

__all__ = ["CA_BUNDLE_VARIABLES", "Route", "bypasses", "ca_bundle", "route", "tls_context"]

CA_BUNDLE_VARIABLES = ("ETKI_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")
"""Where the CA bundle's path is looked for, in this order (the first set wins)."""


@dataclass(frozen=True)
class Route:
    """How one call reaches ``url``: the socket goes to ``connect_host:connect_port``
    (the endpoint, or the proxy); ``tunnel`` is the ``(host, port)`` of a ``CONNECT``
    tunnel (an https endpoint through a proxy), else None; ``target`` is the
    request-target sent (``/path?query``, or the absolute URL for an http endpoint
    through a proxy); ``proxy`` is the proxy's URL without its credentials (None:
    direct); ``proxy_headers`` go to the proxy (``Proxy-Authorization``)."""

    url: str
    https: bool
    connect_host: str
    connect_port: int
    target: str
    tunnel: tuple[str, int] | None = None
    proxy: str | None = None
    proxy_headers: dict[str, str] = field(default_factory=dict)
    proxy_tls: bool = False
    """The proxy is spoken to over TLS (an ``https://`` proxy URL)."""

    @property
    def via(self) -> str:
        """`` through proxy P`` or the empty string, for messages."""
        return f" through proxy {self.proxy}" if self.proxy else ""

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """The request's ``headers``, with :attr:`proxy_headers` when the request itself
        goes to the proxy (an http endpoint; a tunnel sends them with ``CONNECT``)."""
        if self.proxy is None or self.tunnel is not None:
            return dict(headers)
        return {**headers, **self.proxy_headers}

    def connection(self, timeout: float) -> http.client.HTTPConnection:
        """A not yet connected ``http.client`` connection along this route (socket
        operations time out after ``timeout`` seconds each). Raises
        :class:`EndpointError` when the CA bundle cannot be read (:func:`tls_context`)."""
        if self.proxy_tls and self.tunnel is not None:
            return TunnelConnection(
                self.connect_host,
                self.connect_port,
                timeout=timeout,
                context=tls_context(),
                tunnel=self.tunnel,
                proxy_headers=self.proxy_headers,
            )
        if self.proxy_tls:  # an http endpoint, asked of the proxy over TLS
            return http.client.HTTPSConnection(
                self.connect_host, self.connect_port, timeout=timeout, context=tls_context()
            )
        if not self.https:
            return http.client.HTTPConnection(self.connect_host, self.connect_port, timeout=timeout)
        conn = http.client.HTTPSConnection(
            self.connect_host, self.connect_port, timeout=timeout, context=tls_context()
        )
        if self.tunnel is not None:
            conn.set_tunnel(self.tunnel[0], self.tunnel[1], headers=self.proxy_headers)
        return conn


def _default_port(https: bool) -> int:
    return 443 if https else 80


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def bypasses(host: str, port: int, no_proxy: str) -> bool:
    """Whether the ``NO_PROXY`` value ``no_proxy`` exempts ``host:port`` from the proxy
    (the module docstring's rules: names and domain suffixes case-insensitively, IP
    addresses and ranges by :mod:`ipaddress`, an entry's ``:port`` only that port,
    ``*`` everything). An entry that is none of these matches nothing."""
    name = host.strip("[]").rstrip(".").lower()
    address = _address(name)
    for raw in re.split(r"[,\s]+", no_proxy.strip().lower()):
        entry = raw.strip()
        if entry == "*":
            return True
        if not entry:
            continue
        want_port: int | None = None
        bracket = re.fullmatch(r"\[([^\]]+)\](?::(\d+))?", entry)
        if bracket:
            entry, want_port = bracket[1], int(bracket[2]) if bracket[2] else None
        elif entry.count(":") == 1:  # host:port (an IPv6 address has more colons)
            entry, _, digits = entry.partition(":")
            if not digits.isdigit():
                continue
            want_port = int(digits)
        if want_port is not None and want_port != port:
            continue
        if "/" in entry or _address(entry) is not None:
            try:
                network = ipaddress.ip_network(entry, strict=False)
            except ValueError:
                continue
            if address is not None and address.version == network.version and address in network:
                return True
            continue
        domain = entry.removeprefix("*").lstrip(".").rstrip(".")
        if domain and (name == domain or name.endswith("." + domain)):
            return True
    return False


def route(url: str) -> Route:
    """The :class:`Route` to ``url`` under the current environment (see the module
    docstring). Raises :class:`EndpointError` (``connect``) for a URL that is not
    http(s) with a host, and for a proxy URL that cannot be used (naming the
    variable)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError("connect", f"not an http(s) URL: {clip(repr(url))}")
    https = parts.scheme == "https"
    try:
        port = parts.port or _default_port(https)
    except ValueError as exc:
        raise EndpointError("connect", f"not an http(s) URL: {clip(repr(url))}: {exc}") from exc
    host = parts.hostname
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    proxies = getproxies_environment()
    proxy_url = proxies.get(parts.scheme)
    if not proxy_url or bypasses(host, port, proxies.get("no", "")):
        return Route(url, https, host, port, target)
    variable = f"{parts.scheme.upper()}_PROXY"
    raw = proxy_url.strip()
    proxy = urlsplit(raw if "://" in raw else f"http://{raw}")
    proxy_tls = proxy.scheme == "https"
    try:
        proxy_port = proxy.port or (443 if proxy_tls else 80)
    except ValueError:
        proxy_port = -1
    if proxy.scheme not in ("http", "https") or not proxy.hostname or proxy_port < 0:
        shown = urlunsplit(proxy._replace(netloc=proxy.netloc.rpartition("@")[2]))
        raise EndpointError(
            "connect",
            f"{variable}: {clip(repr(shown))}: not an http://HOST:PORT or https://HOST:PORT "
            "proxy URL",
        )
    headers = {}
    if proxy.username is not None:
        pair = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}"
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    shown = f"{proxy.scheme}://{proxy.hostname}:{proxy_port}"
    if https:
        return Route(
            url, True, proxy.hostname, proxy_port, target, (host, port), shown, headers, proxy_tls
        )
    absolute = urlunsplit(
        ("http", parts.netloc.rpartition("@")[2], parts.path or "/", parts.query, "")
    )
    return Route(url, False, proxy.hostname, proxy_port, absolute, None, shown, headers, proxy_tls)


def ca_bundle() -> tuple[str, str] | None:
    """``(variable, path)`` of the CA bundle the environment names (the first of
    :data:`CA_BUNDLE_VARIABLES` set and not blank), or None."""
    for variable in CA_BUNDLE_VARIABLES:
        value = os.environ.get(variable, "").strip()
        if value:
            return variable, value
    return None


@functools.lru_cache(maxsize=8)
def _context(bundle: tuple[str, str] | None, stamp: tuple[int, int] | None) -> ssl.SSLContext:
    if bundle is None:
        return ssl.create_default_context()
    variable, path = bundle
    try:
        return ssl.create_default_context(cafile=path)
    except (OSError, ssl.SSLError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise EndpointError(
            "connect",
            f"{variable}={clip(repr(path))}: the CA bundle cannot be read ({reason}); "
            f"point it at a PEM file of CA certificates, or unset it",
        ) from exc


def tls_context() -> ssl.SSLContext:
    """The TLS context of an https call: certificates and host names checked, against
    the CA bundle of :func:`ca_bundle` when one is named, else the system's CAs. Built
    once per bundle file (and again when the file changes). Raises
    :class:`EndpointError` (``connect``) naming the variable when the bundle cannot be
    read or holds no certificate."""
    bundle = ca_bundle()
    stamp = None
    if bundle is not None:
        try:
            st = os.stat(bundle[1])
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None  # _context reports it
    return _context(bundle, stamp)
