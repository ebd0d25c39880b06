"""The suite's PostgreSQL: the server on 127.0.0.1:5432, database ``test``, and a fresh
schema per test (:func:`fresh_schema`), dropped with everything in it afterwards. A test
that needs it skips cleanly when the ``psycopg`` driver is not installed or the server
does not answer (mark it ``@pytest.mark.postgres``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from sqlalchemy import Engine, create_engine, text

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
"""The test database, reached as the ``postgres`` user (no password)."""


@dataclass(frozen=True)
class Schema:
    """One fresh schema of the test database: ``name`` (``{prefix}_`` and ten hex
    digits) and ``admin``, an engine on the database's default search path (for SQL the
    test runs beside Etki's, such as a trigger in ``"{name}"``)."""

    name: str
    admin: Engine

    @property
    def url(self) -> str:
        """A database URL whose connections work in this schema (libpq's ``options``
        parameter sets ``search_path``), so other processes reach it too."""
        return f"{PG_URL}?options=-csearch_path%3D{self.name}"

    def engine(self, **connect_args: str) -> Engine:
        """A new engine whose connections work in this schema (the caller disposes it);
        ``connect_args`` go to the driver beside the ``options`` that set the search path
        (such as ``application_name``)."""
        return create_engine(
            PG_URL, connect_args={"options": f"-csearch_path={self.name}", **connect_args}
        )


@contextmanager
def fresh_schema(prefix: str = "etki_test") -> Iterator[Schema]:
    """A new empty schema of the test database for the ``with`` block, dropped
    (``CASCADE``) when it ends, however it ends. Skips the test when ``psycopg`` is not
    installed or the server is not reachable; dispose the engines made in the block
    before it ends."""
    pytest.importorskip("psycopg", reason="psycopg not installed")
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_URL)
    try:
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{name}"'))
    except Exception as exc:  # server absent: skip cleanly
        admin.dispose()
        pytest.skip(f"PostgreSQL not reachable on 127.0.0.1:5432: {exc}")
    try:
        yield Schema(name, admin)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        admin.dispose()
