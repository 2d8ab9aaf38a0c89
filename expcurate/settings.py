"""One settings object for the whole pipeline.

Every field reads an `EXPCURATE_<NAME>` environment variable and every CLI flag maps onto a
field, so a curator can configure a batch with flags or with the environment. Defaults work
offline on a laptop. Nothing is computed at import time: call `get_settings()`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PIPELINE_VERSION = "0.1.0"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EXPCURATE_", extra="ignore")

    data_dir: Path = Field(Path("data"), description="Store, artifacts, clones and releases.")
    db_url: str = Field("", description="SQLAlchemy URL; default: SQLite file in the data dir.")
    model: str = Field("heuristic", description="litellm model name, or 'heuristic' (offline).")
    tasks_model: str = Field("", description="Model of the tasks stage (default: model).")
    setup_model: str = Field("", description="Model of the setup stage (default: model).")
    api_base: str = Field("", description="Base URL of an OpenAI-compatible server.")
    auto_approve: bool = Field(False, description="Pass a checkpoint when validators are clean.")
    engine: Literal["auto", "prefect", "local"] = Field(
        "auto",
        description="How commands run the flows: 'prefect' as Prefect flow runs (a temporary "
        "server when none is configured), 'local' in-process without Prefect's API, 'auto' "
        "Prefect when a server is configured (PREFECT_API_URL or a profile), else local.",
    )
    dask_address: str = Field(
        "",
        description="A Dask scheduler (tcp://host:8786): a batch's papers run on its workers "
        "(Prefect's DaskTaskRunner under a server, Dask's client without one; the dask extra).",
    )
    launcher: Literal["inline", "background", "prefect"] = Field(
        "background",
        description="How approving a stage's last item starts the next stage.",
    )
    cpu_slots: int | None = Field(
        None,
        ge=0,
        description="Stages that compute (parse, mine, package, offline drafting) running at "
        "once across every process and worker; default: this machine's cores, 0: no limit.",
    )
    llm_slots: int = Field(
        4,
        ge=0,
        description="Stages calling a model running at once across every process and worker "
        "(a provider's rate limit, a local server's threads); 0: no limit.",
    )
    slots_scope: Literal["machine", "team"] = Field(
        "machine",
        description="Where the slots are counted: 'machine', lock files in the data dir shared "
        "by this machine's processes (a killed holder's slot is free at once); 'team', Prefect "
        "global concurrency limits shared by every worker of the server (a killed holder's "
        "slot comes back when its lease expires, slot_lease_s).",
    )
    slot_lease_s: float = Field(
        60.0, gt=0, description="Lease of a team slot; renewed while its stage runs."
    )
    max_file_bytes: int = Field(1_000_000, description="Repo files above this are not read.")
    max_repo_files: int = Field(50_000, description="Stop inventorying a repo after this many.")
    max_pdf_pages: int = Field(400, description="Pages beyond this are not parsed.")
    parse_timeout_s: float = Field(
        300.0, description="Seconds one PDF may take to parse; past it the result is partial."
    )
    parse_max_memory_mb: int = Field(
        2048, description="Memory (MB) one PDF's parse may use; a quarter of it per image crop."
    )
    agent_max_steps: int = Field(40, description="Tool calls the setup agent may make per task.")
    agent_max_tokens: int = Field(
        400_000, description="Tokens an LLM setup agent may use per task."
    )
    budget_usd: float = Field(5.0, description="Most a paper may spend on model calls.")
    setup_time_budget_s: float = Field(
        3600.0,
        description="Seconds the setup stage may take for one paper; the tasks it has not "
        "reached by then get a no_answer saying so and the stage is partial.",
    )
    api_key: str = Field(
        "", repr=False, description="API key for the model (else the provider's own variable)."
    )
    llm_timeout_s: float = Field(
        60.0,
        description="Seconds before one model request times out; a request that times out is "
        "retried once asking for half as many tokens, then the stage says the model is too slow.",
    )
    llm_max_tokens: int = Field(
        4096,
        description="Most tokens one answer may have (lower it for a slow local model: on CPU "
        "each token costs time).",
    )
    llm_json_mode: Literal["schema", "object", "off"] | None = Field(
        None,
        description="How answers are held to JSON (response_format): 'schema' (the server "
        "enforces the answer's schema), 'object' (any JSON) or 'off' (the prompt asks); default "
        "'schema' with an API base, else 'object', stepping down by itself when refused.",
    )
    llm_max_retries: int = Field(
        3, description="Retries of a model request on 429, timeouts and connection errors."
    )
    price_input_per_mtok: float | None = Field(
        None, description="USD per million prompt tokens, for models litellm has no price for."
    )
    price_output_per_mtok: float | None = Field(
        None, description="USD per million completion tokens, for models litellm has no price for."
    )
    vision: bool | None = Field(
        None, description="Send table/figure crops to the model (default: ask litellm)."
    )
    reextract_cron: str = Field(
        "",
        description="Cron schedule of the `reextract` deployment `expcurate serve` and "
        "`expcurate deploy` make (e.g. '0 3 * * *': every night at 3); empty: no schedule.",
    )
    conference: str = Field("custom", description="Conference folder used in exports.")
    sign_in_hours: float = Field(
        12.0, description="How long a review-app sign-in lasts, page reloads included."
    )
    lease_timeout_s: float = Field(
        120.0,
        description="A running stage on another host with no heartbeat for this long is "
        "taken as dead and rerun (on this host a dead process is seen at once).",
    )
    pause_at: str = Field(
        "",
        description="Fault injection for kill tests: hold at this stage once its lease is "
        "taken ('parse'), or just before taking it ('before-parse'), until killed.",
    )

    def stage_model(self, stage: Literal["tasks", "setup"]) -> str:
        """The model a stage uses: a cheap drafter and a strong agent, or one for both."""
        return (self.tasks_model if stage == "tasks" else self.setup_model) or self.model

    def resolved_data_dir(self) -> Path:
        return self.data_dir.expanduser().resolve()

    def database_url(self) -> str:
        if self.db_url:
            return self.db_url
        return f"sqlite:///{self.resolved_data_dir() / 'expcurate.db'}"

    @property
    def artifacts_dir(self) -> Path:
        return self.resolved_data_dir() / "artifacts"

    @property
    def clones_dir(self) -> Path:
        return self.resolved_data_dir() / "clones"

    @property
    def published_dir(self) -> Path:
        return self.resolved_data_dir() / "published"


_current: Settings | None = None


def get_settings() -> Settings:
    """The active settings (read from the environment on first use)."""
    global _current
    if _current is None:
        _current = Settings()
    return _current


def set_settings(settings: Settings | None) -> None:
    global _current
    _current = settings


@contextlib.contextmanager
def override_settings(**changes: Any) -> Iterator[Settings]:
    """Scoped settings for tests and for one CLI invocation."""
    global _current
    previous = _current
    base = previous or Settings()
    _current = base.model_copy(update=changes)
    try:
        yield _current
    finally:
        _current = previous
