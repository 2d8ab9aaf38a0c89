"""The store as it was when migrations began (schema 4): papers, stage runs with leases,
tasks and their revisions, reviews, users, sign-ins and sign-in failures, releases.

Stores made before Alembic are brought to schema 4 by `expcurate.store.migrations.legacy` and
stamped with this revision; a new store is created by it.

Revision ID: 0004
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0004"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meta",
        sa.Column("key", AutoString(), nullable=False),
        sa.Column("value", AutoString(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "paper",
        sa.Column("id", AutoString(), nullable=False),
        sa.Column("title", AutoString(), nullable=False),
        sa.Column("conference", AutoString(), nullable=False),
        sa.Column("pdf_source", AutoString(), nullable=False),
        sa.Column("repo_source", AutoString(), nullable=False),
        sa.Column("requested_commit", AutoString(), nullable=False),
        sa.Column("pdf_sha256", AutoString(), nullable=False),
        sa.Column("commit", AutoString(), nullable=False),
        sa.Column("model", AutoString(), nullable=False),
        sa.Column("auto_approve", sa.Boolean(), nullable=False),
        sa.Column("status", AutoString(), nullable=False),
        sa.Column("stage", AutoString(), nullable=False),
        sa.Column("error", AutoString(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "release",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", AutoString(), nullable=False),
        sa.Column("path", AutoString(), nullable=False),
        sa.Column("manifest_sha256", AutoString(), nullable=False),
        sa.Column("paper_count", sa.Integer(), nullable=False),
        sa.Column("task_count", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "signin",
        sa.Column("token_hash", AutoString(), nullable=False),
        sa.Column("username", AutoString(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    op.create_index(op.f("ix_signin_username"), "signin", ["username"], unique=False)
    op.create_table(
        "signinfailure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", AutoString(), nullable=False),
        sa.Column("address", AutoString(), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_signinfailure_address"), "signinfailure", ["address"], unique=False)
    op.create_index(op.f("ix_signinfailure_at"), "signinfailure", ["at"], unique=False)
    op.create_index(op.f("ix_signinfailure_username"), "signinfailure", ["username"], unique=False)
    op.create_table(
        "user",
        sa.Column("username", AutoString(), nullable=False),
        sa.Column("password_hash", AutoString(), nullable=False),
        sa.Column("role", AutoString(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("username"),
    )
    op.create_table(
        "stagerun",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("paper_id", AutoString(), nullable=False),
        sa.Column("stage", AutoString(), nullable=False),
        sa.Column("inputs_hash", AutoString(), nullable=False),
        sa.Column("model", AutoString(), nullable=False),
        sa.Column("prompt_version", AutoString(), nullable=False),
        sa.Column("pipeline_version", AutoString(), nullable=False),
        sa.Column("status", AutoString(), nullable=False),
        sa.Column("result_status", AutoString(), nullable=False),
        sa.Column("errors", sa.JSON(), nullable=True),
        sa.Column("artifact", AutoString(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("items", sa.Integer(), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Column("duration_s", sa.Float(), nullable=False),
        sa.Column("current", sa.Boolean(), nullable=False),
        sa.Column("owner", AutoString(), nullable=False),
        sa.Column("heartbeat_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["paper_id"],
            ["paper.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_stagerun_inputs_hash"), "stagerun", ["inputs_hash"], unique=False)
    op.create_index(op.f("ix_stagerun_paper_id"), "stagerun", ["paper_id"], unique=False)
    op.create_index(op.f("ix_stagerun_stage"), "stagerun", ["stage"], unique=False)
    op.create_index(
        "one_running_run",
        "stagerun",
        ["paper_id", "stage"],
        unique=True,
        sqlite_where=sa.text("status = 'running'"),
        postgresql_where=sa.text("status = 'running'"),
    )
    op.create_table(
        "task",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("paper_id", AutoString(), nullable=False),
        sa.Column("key", AutoString(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("stage", AutoString(), nullable=False),
        sa.Column("status", AutoString(), nullable=False),
        sa.Column("head", sa.Integer(), nullable=False),
        sa.Column("flags", sa.JSON(), nullable=True),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"],
            ["paper.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("paper_id", "key"),
    )
    op.create_index(op.f("ix_task_paper_id"), "task", ["paper_id"], unique=False)
    op.create_table(
        "review",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("paper_id", AutoString(), nullable=False),
        sa.Column("stage", AutoString(), nullable=False),
        sa.Column("task_id", sa.Integer(), nullable=True),
        sa.Column("stage_run_id", sa.Integer(), nullable=True),
        sa.Column("revision", sa.Integer(), nullable=True),
        sa.Column("decision", AutoString(), nullable=False),
        sa.Column("reason", AutoString(), nullable=False),
        sa.Column("reviewer", AutoString(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"],
            ["paper.id"],
        ),
        sa.ForeignKeyConstraint(
            ["stage_run_id"],
            ["stagerun.id"],
        ),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["task.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_review_paper_id"), "review", ["paper_id"], unique=False)
    op.create_table(
        "taskrevision",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("task_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("author", AutoString(), nullable=False),
        sa.Column("kind", AutoString(), nullable=False),
        sa.Column("stage", AutoString(), nullable=False),
        sa.Column("base", sa.Integer(), nullable=True),
        sa.Column("fields", sa.JSON(), nullable=True),
        sa.Column("note", AutoString(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["task.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("task_id", "number"),
    )
    op.create_index(op.f("ix_taskrevision_task_id"), "taskrevision", ["task_id"], unique=False)


def downgrade() -> None:
    for table in (
        "taskrevision",
        "review",
        "task",
        "stagerun",
        "user",
        "signinfailure",
        "signin",
        "release",
        "paper",
        "meta",
    ):
        op.drop_table(table)
