"""Who acted, as the OS saw it (issue 11, item 9): the audit log keeps the asserted
``ETKI_REVIEWER`` and, beside it, the process that wrote the row: new nullable columns
``audit_log.os_user``, ``host``, ``pid`` and ``program``. Rows written before this
revision keep NULL there (unknown: nothing is guessed for them). A new append-only table
``project_audit`` records each creation of, and each attempt to change, a project's
reviewer list (``etki init`` / ``etki init --update-reviewers``).

``projects.root`` is left as stored: new loads store the folder as an absolute path, but
a relative root written earlier was relative to the working directory of an ``etki
init`` that is not recorded anywhere, so it cannot be made absolute safely here; the
next ``etki init`` of the project stores it absolute.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None

_IDENTITY = (
    ("os_user", sa.Text()),
    ("host", sa.Text()),
    ("pid", sa.Integer()),
    ("program", sa.Text()),
)


def upgrade() -> None:
    for name, type_ in _IDENTITY:  # ADD COLUMN: no table rebuild, even on SQLite
        op.add_column("audit_log", sa.Column(name, type_, nullable=True))
    op.create_table(
        "project_audit",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("before_json", sa.Text(), nullable=False),
        sa.Column("after_json", sa.Text(), nullable=False),
        sa.Column("root", sa.Text(), nullable=False),
        sa.Column("reviewer", sa.Text(), nullable=False),
        sa.Column("at", sa.String(length=20), nullable=False),
        *(sa.Column(name, type_, nullable=False) for name, type_ in _IDENTITY),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_project_audit_project_id", "project_audit", ["project_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_project_audit_project_id", table_name="project_audit")
    op.drop_table("project_audit")
    with op.batch_alter_table("audit_log") as batch:
        for name, _ in reversed(_IDENTITY):
            batch.drop_column(name)
