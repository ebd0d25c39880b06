"""``etki mcp`` answers a line it cannot read (issue 30 item 11): invalid JSON, or a
lone surrogate (``\\ud800``, not Unicode text) got no reply at all and the client waited
for ever. Now a JSON-RPC error comes back (``-32700``, with the request's id when it can
be read), the session goes on, and closing stdin ends the server cleanly. A real
``etki mcp`` process fed raw bytes on its stdin."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from etki.config import Settings
from etki.services import init_project
from etki.store import CaseFileRepository
from tests.factories import frozen_clock

ROOT = Path(__file__).resolve().parents[1]
WAIT = 30.0  # seconds for one answer; no answer by then is the bug


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("mcp-raw")
    repo = CaseFileRepository(f"sqlite:///{tmp / 'etki.db'}", clock=frozen_clock)
    init_project(ROOT / "sample_project", repo, Settings(db_url="", wiki_dir=None))
    repo.dispose()
    return {
        "ETKI_DB_URL": f"sqlite:///{tmp / 'etki.db'}",
        "ETKI_WIKI_DIR": "",
        "PYTHONPATH": str(ROOT),
        "PATH": os.environ.get("PATH", ""),
    }


class Wire:
    """``etki mcp --project demo`` in a subprocess: raw bytes in, JSON lines out."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "etki.cli", "mcp", "--project", "demo"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=ROOT,
        )
        self.pending = b""

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self) -> dict:
        assert self.proc.stdout is not None
        end = time.monotonic() + WAIT
        while b"\n" not in self.pending:
            left = end - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(left, 0))
            assert ready, f"no answer in {WAIT:.0f} s"
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            assert chunk, "the server closed stdout without answering"
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()


def _message(**body: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **body}).encode() + b"\n"


INIT = _message(
    id=1,
    method="initialize",
    params={
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
)


def test_unreadable_lines_are_answered_and_the_session_goes_on(server: dict[str, str]) -> None:
    wire = Wire(server)
    try:
        wire.send(INIT)
        assert wire.answer()["id"] == 1
        wire.send(_message(method="notifications/initialized"))

        wire.send(b"{not json at all\n")
        reply = wire.answer()
        assert reply["id"] is None and reply["error"]["code"] == -32700

        # a lone surrogate escaped in a tool argument: JSON's syntax, not Unicode text
        wire.send(
            b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":'
            b'"wiki_search","arguments":{"query":"SSO \\ud800"}}}\n'
        )
        reply = wire.answer()
        assert reply["id"] == 7 and reply["error"]["code"] == -32700
        assert "surrogate" in reply["error"]["message"]

        wire.send(b'{"jsonrpc":"2.0","id":"s","method":"ping\\udfff"}\n')
        reply = wire.answer()
        assert reply["id"] == "s" and reply["error"]["code"] == -32700

        wire.send(b'{"jsonrpc":"2.0","foo":1}\n')  # JSON, but no JSON-RPC message
        reply = wire.answer()
        assert reply["id"] is None and reply["error"]["code"] == -32600

        # invalid UTF-8 bytes (a surrogate encoded as UTF-8) read as U+FFFD: answered
        wire.send(
            b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":'
            b'"wiki_search","arguments":{"query":"SSO \xed\xa0\x80"}}}\n'
        )
        reply = wire.answer()
        assert reply["id"] == 8 and reply["result"]["structuredContent"]["wiki"] == "off"

        wire.send(_message(id=9, method="ping"))  # still serving after all that
        assert wire.answer() == {"jsonrpc": "2.0", "id": 9, "result": {}}
    finally:
        code = wire.close()
    assert code == 0
