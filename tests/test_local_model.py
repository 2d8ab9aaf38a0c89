"""The LLM path against a real, weak model: SmolLM2-135M-Instruct served by llama.cpp on
loopback (see tests/local_model.py).

A 135M model rarely answers well; what these tests hold is what a weak real model must never
cause: a crash, a hang, an empty success, a junk answer cached as valid, an unchecked command
published, or a call whose tokens and time go unrecorded.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "extractors"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from local_model import missing, serve
from repo_fixture import build_demo_repo

from expcurate.records import ParsedPaper, Section, Status, Table, TaskDraft, TaskFields
from expcurate.settings import Settings
from extractors.agent import recover_setups
from extractors.llm import LLMClient
from extractors.repo import mine_repo
from extractors.tasks.llm import draft_with_llm
from extractors.validate import validate_setup

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "local model available")
MODEL = "openai/smollm2-135m-instruct"

PAPER = ParsedPaper(
    title="Gated Mixing for Forecasting",
    abstract="We propose GateMix, a gated token-mixing forecaster.",
    sections=[
        Section(
            number="4",
            title="Results",
            text="Table 1 compares GateMix with an MLP-Mixer on ETTh1 at horizon 96. GateMix "
            "reaches a lower test MSE (0.361) than the MLP-Mixer (0.379).",
            page=3,
        )
    ],
    tables=[
        Table(
            label="Table 1",
            caption="Table 1: Test MSE on ETTh1 (lower is better).",
            page=3,
            section="4 Results",
            rows=[["Method", "MSE"], ["MLP-Mixer", "0.379"], ["GateMix", "0.361"]],
        )
    ],
)


@pytest.fixture(scope="module")
def local_model() -> Iterator[str]:
    with serve() as url:
        yield url


def _client(url: str, cache: Path) -> LLMClient:
    return LLMClient(
        MODEL,
        api_base=url,
        cache_dir=cache,
        price_input_per_mtok=0.0,
        price_output_per_mtok=0.0,
        timeout_s=60.0,
        max_tokens=128,
        max_repairs=1,
    )


# A hang guard, not a speed check: how fast a model answers on a loaded machine is for the
# benchmarks; these tests hold that the pipeline ends, whatever the model does.
HANG_GUARD_S = 900


@pytest.mark.timeout(HANG_GUARD_S)
def test_drafting_with_a_weak_real_model_ends_in_tasks_or_a_stated_failure(
    local_model: str, tmp_path: Path
) -> None:
    client = _client(local_model, tmp_path / "cache")
    result = draft_with_llm(PAPER, client)
    # Every call the model answered is recorded with its tokens and its time.
    answered = [r for r in client.log if not r.cached and not r.error]
    assert answered, "no call reached the model"
    assert all(r.prompt_tokens > 0 and r.latency_s > 0 for r in answered)
    assert result.usage.calls == len(answered)
    # Never an empty success: no tasks means a failed result that says why.
    if not result.tasks:
        assert result.status == Status.failed
        assert any("gave no valid" in e.message for e in result.errors)
    for task in result.tasks:
        assert task.question.strip() and task.expected_outcome.strip()
    # Only validated answers are cached: junk is asked again on a rerun, never replayed.
    again = _client(local_model, tmp_path / "cache")
    rerun = draft_with_llm(PAPER, again)
    if result.status == Status.failed:
        assert any(not r.cached for r in again.log)
    if result.tasks:
        assert any(r.cached for r in again.log) and rerun.tasks


@pytest.mark.timeout(HANG_GUARD_S)
def test_the_setup_agent_with_a_weak_real_model_never_publishes_its_own_junk(
    local_model: str, tmp_path: Path
) -> None:
    """SmolLM2's chat template has no tools: the agent gets prose back, says so, and every
    task's setup is the heuristic's, flagged, with commands that pass the safety check."""
    root = build_demo_repo(tmp_path / "repo", outside=tmp_path / "outside")
    index = mine_repo(root, max_file_bytes=2000)
    task = TaskDraft(
        key="table-2",
        question="Does removing the gating unit (w/o Gate) hurt GateMix's top-1 accuracy?",
        method="Train GateMix on CIFAR-10 with and without the gate.",
        expected_outcome="Without the gate, top-1 accuracy drops from 91.2 to 88.7.",
    )
    settings = Settings(
        data_dir=tmp_path / "data",
        model=MODEL,
        api_base=local_model,
        price_input_per_mtok=0.0,
        price_output_per_mtok=0.0,
        llm_max_tokens=128,
        agent_max_steps=3,
    )
    result = recover_setups([task], index, root, settings)
    setup = result.setups["table-2"]
    fields = TaskFields.from_draft(task).with_setup(setup)
    flags = {f.check for f in validate_setup(fields, root)}
    assert "unsafe_command" not in flags
    if "model_fallback" in flags:  # the heuristic wrote it: the stage says the model did not
        assert any(e.category == "model_fallback" for e in result.errors)
        assert result.status != Status.succeeded
    assert result.usage.calls >= 1
