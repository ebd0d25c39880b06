"""An https endpoint through a proxy spoken to over TLS (``HTTPS_PROXY=https://...``).

The connection to the proxy is TLS (its certificate checked like an endpoint's); the
``CONNECT`` tunnel runs inside it, and the endpoint's own TLS runs inside the tunnel:
TLS in TLS. The standard library cannot wrap an ``ssl.SSLSocket`` in a second
``SSLSocket``, so the inner TLS is an :class:`ssl.SSLObject` over memory buffers
(:meth:`ssl.SSLContext.wrap_bio`) pumped through the outer socket, as ``urllib3`` and
``httpcore`` do it. :class:`TunnelConnection` is the ``http.client`` connection that
sets this up; :class:`TunnelSocket` is what it reads and writes. Standard library only.
"""

from __future__ import annotations

import http.client
import io
import socket
import ssl
from collections.abc import Callable
from typing import Any

__all__ = ["TunnelConnection", "TunnelSocket"]

_READ = 65536


class TunnelSocket:
    """The endpoint's TLS inside the TLS connection ``outer`` to the proxy (the tunnel
    already open): ``sendall``, ``recv_into``, ``makefile("rb")``, ``settimeout`` and
    ``close``, what ``http.client`` uses of a socket. ``raw`` is the TCP socket under
    both (shutting it down ends a blocked read: the call's deadline does so). The
    handshake runs in the constructor, checking the endpoint's certificate and name
    against ``context``; raises ``ssl.SSLError``/``OSError`` as a socket would."""

    def __init__(self, outer: ssl.SSLSocket, context: ssl.SSLContext, hostname: str) -> None:
        self.raw: socket.socket = outer
        self._readers = 0
        self._closed = False
        self._incoming, self._outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self._tls = context.wrap_bio(self._incoming, self._outgoing, server_hostname=hostname)
        self._run(self._tls.do_handshake)

    def _flush(self) -> None:
        data = self._outgoing.read()
        if data:
            self.raw.sendall(data)

    def _run(self, op: Callable[..., Any], *args: Any) -> Any:
        """``op(*args)`` on the inner TLS, feeding it what the proxy sends until it
        has enough, and sending what it wrote."""
        while True:
            try:
                result = op(*args)
            except ssl.SSLWantReadError:
                self._flush()
                data = self.raw.recv(_READ)
                if data:
                    self._incoming.write(data)
                else:
                    self._incoming.write_eof()
                continue
            self._flush()
            return result

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[self._run(self._tls.write, view) :]

    def recv_into(self, buffer: Any, nbytes: int = 0) -> int:
        """Read at most ``nbytes`` (all of ``buffer`` when 0) decrypted bytes; 0 at the
        end of the stream (the endpoint's close, with or without its TLS goodbye)."""
        try:
            data = self._run(self._tls.read, nbytes or len(buffer))
        except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
            return 0
        buffer[: len(data)] = data
        return len(data)

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        """A reader of the decrypted stream; like a socket's, it keeps the connection
        open after :meth:`close` until it is closed too (``http.client`` closes the
        connection and reads the answer through the reader)."""
        self._readers += 1
        return io.BufferedReader(_Reader(self))

    def settimeout(self, timeout: float | None) -> None:
        self.raw.settimeout(timeout)

    def close(self) -> None:
        self._closed = True
        if self._readers == 0:
            self.raw.close()

    def _reader_closed(self) -> None:
        self._readers -= 1
        if self._closed and self._readers == 0:
            self.raw.close()


class _Reader(io.RawIOBase):
    def __init__(self, sock: TunnelSocket) -> None:
        self._sock: TunnelSocket | None = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._sock is None:
            raise ValueError("read of a closed file")
        return self._sock.recv_into(buffer)

    def close(self) -> None:
        if self._sock is not None:
            sock, self._sock = self._sock, None
            sock._reader_closed()
        super().close()


class TunnelConnection(http.client.HTTPSConnection):
    """An https connection to ``tunnel`` (host, port) through the proxy at
    ``host:port`` spoken to over TLS: the proxy's certificate is checked for its own
    name, ``CONNECT`` (with ``proxy_headers``) opens the tunnel inside that TLS, then the
    endpoint's TLS runs inside the tunnel (:class:`TunnelSocket`). Both use ``context``.
    ``sock`` is a :class:`TunnelSocket` once connected."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        timeout: float,
        context: ssl.SSLContext,
        tunnel: tuple[str, int],
        proxy_headers: dict[str, str],
    ) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._tls_context = context
        self._endpoint_host = tunnel[0]
        self.set_tunnel(tunnel[0], tunnel[1], headers=proxy_headers)
        self._create_connection = self._tls_to_proxy  # http.client's hook (an attribute)

    def _tls_to_proxy(self, address: Any, timeout: Any = None, source: Any = None) -> Any:
        tcp = socket.create_connection(address, timeout, source)
        try:
            return self._tls_context.wrap_socket(tcp, server_hostname=self.host)
        except BaseException:
            tcp.close()
            raise

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)  # TLS to the proxy, then CONNECT in it
        outer = self.sock
        assert isinstance(outer, ssl.SSLSocket)
        self.sock = TunnelSocket(outer, self._tls_context, self._endpoint_host)
