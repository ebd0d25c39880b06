"""Alembic environment of Etki's store (DESIGN.md, "Layout": store/ migrations).

Run through :mod:`etki.store.migrate` (``etki db upgrade``, and every
:class:`~etki.store.CaseFileRepository` on open), which hands over an open connection in
``config.attributes["connection"]``; the migrations then run inside that connection's
transaction. Without one (a developer running the ``alembic`` command with
``-x url=...``) an engine is made from the URL with Etki's own settings.
"""

from __future__ import annotations

from alembic import context

from etki.store.models import Base

config = context.config


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:  # pragma: no cover - the alembic command line, for developers
    from etki.store.db import make_engine

    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise RuntimeError("no database URL: pass -x url=... or set sqlalchemy.url")
    engine = make_engine(url)
    with engine.connect() as conn:
        _run(conn)
        conn.commit()
