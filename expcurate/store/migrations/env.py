"""Alembic's environment for the store: the connection comes from `Store` (never a URL in a
config file), so every process upgrades the database it was pointed at."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
