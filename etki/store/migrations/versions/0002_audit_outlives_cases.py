"""The audit log outlives erased cases: drop the foreign key ``audit_log.case_id`` ->
``cases.id``, so a KVKK/GDPR erasure (``etki erase``) can delete a case while its audit
rows and the erasure tombstone stay. Rows are untouched.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.engine.interfaces import ReflectedForeignKeyConstraint

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None

_CONVENTION = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}
_SQLITE_NAME = "fk_audit_log_case_id_cases"


def _audit_fks() -> list[ReflectedForeignKeyConstraint]:
    return [
        fk
        for fk in sa.inspect(op.get_bind()).get_foreign_keys("audit_log")
        if fk.get("referred_table") == "cases"
    ]


def upgrade() -> None:
    for fk in _audit_fks():
        name = fk.get("name")
        if name:  # PostgreSQL names it audit_log_case_id_fkey
            op.drop_constraint(name, "audit_log", type_="foreignkey")
        else:  # SQLite keeps it unnamed: name it by convention, then rebuild the table
            with op.batch_alter_table("audit_log", naming_convention=_CONVENTION) as batch:
                batch.drop_constraint(_SQLITE_NAME, type_="foreignkey")


def downgrade() -> None:
    # fails while erasure tombstones point at deleted cases, as it must
    with op.batch_alter_table("audit_log", naming_convention=_CONVENTION) as batch:
        batch.create_foreign_key(_SQLITE_NAME, "cases", ["case_id"], ["id"])
