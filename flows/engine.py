"""Which engine is at hand: a configured Prefect server, a running flow run."""

from __future__ import annotations


def prefect_server() -> str:
    """The Prefect API this process is configured for (PREFECT_API_URL, a profile, a test
    harness), or "" when there is none."""
    from prefect.settings import get_current_settings

    return str(get_current_settings().api.url or "")


def in_flow_run() -> bool:
    """Is this code running inside a Prefect flow run?"""
    from prefect.context import FlowRunContext

    return FlowRunContext.get() is not None
