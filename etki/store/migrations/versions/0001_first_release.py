"""The schema as first released (etki 0.1.0): the tables ``create_all`` made before
migrations existed. Frozen: never edit; add a later revision instead.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "etki_meta",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "projects",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("root", sa.Text(), nullable=False),
        sa.Column("config_json", sa.Text(), nullable=False),
        sa.Column("edge_types_json", sa.Text(), nullable=False),
        sa.Column("index_hash", sa.String(length=80), nullable=False),
        sa.Column("index_json", sa.Text(), nullable=False),
        sa.Column("loaded_at", sa.String(length=20), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "cases",
        sa.Column("id", sa.String(length=120), nullable=False),
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("request_id", sa.String(length=200), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("submitted_by", sa.Text(), nullable=True),
        sa.Column("submitted_at", sa.String(length=40), nullable=True),
        sa.Column("labels_json", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("project_id", "request_id"),
    )
    op.create_index("ix_cases_project_id", "cases", ["project_id"], unique=False)
    op.create_index("ix_cases_status", "cases", ["status"], unique=False)
    op.create_table(
        "clauses",
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("ref", sa.String(length=300), nullable=False),
        sa.Column("contract_id", sa.String(length=200), nullable=False),
        sa.Column("number", sa.String(length=100), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("parent", sa.String(length=300), nullable=True),
        sa.Column("edges_json", sa.Text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"]),
        sa.PrimaryKeyConstraint("project_id", "ref"),
    )
    op.create_table(
        "contracts",
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("id", sa.String(length=200), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("chunking", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"]),
        sa.PrimaryKeyConstraint("project_id", "id"),
    )
    op.create_table(
        "modules",
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("id", sa.String(length=300), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("depends_on_json", sa.Text(), nullable=False),
        sa.Column("language", sa.String(length=32), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"]),
        sa.PrimaryKeyConstraint("project_id", "id"),
    )
    op.create_table(
        "workitems",
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("id", sa.String(length=200), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("date", sa.String(length=32), nullable=False),
        sa.Column("modules_json", sa.Text(), nullable=False),
        sa.Column("effort_days", sa.Float(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"]),
        sa.PrimaryKeyConstraint("project_id", "id"),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("case_id", sa.String(length=120), nullable=False),
        sa.Column("reviewer", sa.Text(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("ruling", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("at", sa.String(length=20), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("before", sa.String(length=16), nullable=False),
        sa.Column("after", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(["case_id"], ["cases.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_audit_log_case_id", "audit_log", ["case_id"], unique=False)
    op.create_table(
        "decisions",
        sa.Column("case_id", sa.String(length=120), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("engine_version", sa.String(length=32), nullable=False),
        sa.Column("decision_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(length=20), nullable=False),
        sa.ForeignKeyConstraint(["case_id"], ["cases.id"]),
        sa.PrimaryKeyConstraint("case_id"),
    )
    op.create_table(
        "rulings",
        sa.Column("case_id", sa.String(length=120), nullable=False),
        sa.Column("ruling", sa.String(length=16), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("reviewer", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("ruled_at", sa.String(length=20), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["case_id"], ["cases.id"]),
        sa.PrimaryKeyConstraint("case_id"),
    )


def downgrade() -> None:
    for table in (
        "rulings",
        "decisions",
        "audit_log",
        "workitems",
        "modules",
        "contracts",
        "clauses",
        "cases",
        "projects",
        "etki_meta",
    ):
        op.drop_table(table)
