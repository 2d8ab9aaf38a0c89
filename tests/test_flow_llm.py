"""The LLM drafting path through the real pipeline, under Prefect's test harness.

The provider is a scripted OpenAI-compatible server on loopback; everything else is real: the
CLI, the flow, the store, the sample paper and repository. The setup stage stays on the
heuristic (EXPCURATE_SETUP_MODEL) so the scripted answers cover drafting only.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent / "extractors"))
from fake_llm import FakeLLM, Reply, json_reply, running

from expcurate.cli import app
from expcurate.records import ExpBenchFile
from expcurate.store import Store
from extractors.tasks import prompt_version

pytestmark = pytest.mark.prefect
runner = CliRunner()
MODEL = "openai/fake-model"
PRICE_IN, PRICE_OUT = 2.0, 8.0  # USD per million tokens

MAIN: dict[str, Any] = {
    "question": "Does GateMix reach a lower test MSE than the MLP-Mixer on ETTh1 at horizon 96?",
    "method": "Train GateMix and the MLP-Mixer on ETTh1 and compare their test MSE.",
    "expected_outcome": "GateMix reaches an MSE of 0.361 on ETTh1 against 0.379 for the "
    "MLP-Mixer (Table 1).",
    "subsection_source": "4.2 Main Results",
    "design_complexity": {
        "constant_variables": {"dataset": "ETTh1", "horizon": 96},
        "independent_variables": {"model": ["GateMix", "MLP-Mixer"]},
        "dependent_variables": {"MSE": "test mean squared error"},
    },
    "evidence": ["Table 1"],
}
ABLATION: dict[str, Any] = {
    "question": "How much does removing the gate change GateMix's test MSE on ETTh1?",
    "method": "Train GateMix with and without its gating and compare ETTh1 test MSE.",
    "expected_outcome": "Without gating the ETTh1 MSE rises from 0.361 to 0.378 (Table 2).",
    "subsection_source": "4.3 Ablation Study",
    "design_complexity": {
        "independent_variables": {"gating": ["on", "off"]},
        "dependent_variables": {"MSE": "test mean squared error on ETTh1"},
    },
    "evidence": ["Table 2"],
}
REFINED_METHOD = (
    "Train GateMix and the MLP-Mixer on ETTh1 (look-back 336, horizon 96) with the settings of "
    "the setup and implementation sections, and compare their test MSE."
)
TAKEAWAYS = {
    "main_takeaways": ["A gate on token mixing makes an MLP forecaster the most accurate."],
    "follow_up_work_ideas": [{"idea": "Try the gate on irregular series."}],
}


class ScriptedPaper:
    """Answers like a model reading the sample paper; keeps every reply it served."""

    def __init__(self, garbage_drafts: bool = False) -> None:
        self.garbage_drafts = garbage_drafts
        self.served: list[tuple[str, Reply]] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        text = next(m["content"] for m in body["messages"] if m["role"] == "user")
        kind, reply = self._answer(text if isinstance(text, str) else json.dumps(text))
        self.served.append((kind, reply))
        return reply

    def _answer(self, text: str) -> tuple[str, Reply]:
        if text.startswith("Paper:") and "\nSections:\n[0]" in text:
            return "classify", json_reply(_classify(text), 600, 120)
        if "Section to draft tasks from:" in text:
            if self.garbage_drafts:
                return "draft", Reply("I would rather summarise the paper in prose.", 300, 40)
            if "Section to draft tasks from: 4.2 Main Results" in text:
                return "draft", json_reply({"tasks": [MAIN]}, 1500, 400)
            if "Section to draft tasks from: 4.3 Ablation Study" in text:
                return "draft", json_reply({"tasks": [ABLATION]}, 1400, 350)
            return "draft", json_reply({"tasks": []}, 1000, 10)
        if "Tasks drafted from section 4.2 Main Results" in text:
            refined = {
                "id": 0,
                "expected_outcome": MAIN["expected_outcome"],
                "method": REFINED_METHOD,
                "design_complexity": {"constant_variables": {"look-back window": 336}},
            }
            return "refine", json_reply({"tasks": [refined]}, 2000, 300)
        if "Tasks drafted from section" in text:
            return "refine", json_reply({"tasks": []}, 2000, 10)
        if text.startswith("Paper:"):  # the paper-level call: takeaways and follow-up ideas
            return "takeaways", json_reply(TAKEAWAYS, 800, 150)
        return "unknown", Reply(status=400, content="fake provider: unexpected request")


def _classify(text: str) -> dict[str, Any]:
    """Sections citing tables or figures report results; setup-like titles are context."""
    labels = []
    for m in re.finditer(r"^\[(\d+)\] (.*?) \((.*?)\):", text, re.M):
        ident, heading, notes = int(m.group(1)), m.group(2), m.group(3)
        if re.search(r"setup|implementation", heading, re.I):
            kind = "context"
        elif "cites " in notes and not heading.startswith("1 "):
            kind = "experiment"
        else:
            kind = "other"
        labels.append({"id": ident, "kind": kind})
    return {"sections": labels}


def _extract(data: Path, pdf: Path, repo: Path, model: str) -> tuple[int, str]:
    args = ["extract", "--pdf", str(pdf), "--repo", str(repo), "--paper-id", "p1"]
    args += ["--model", model, "--auto-approve", "--data-dir", str(data)]
    result = runner.invoke(app, args)
    # A failed paper exits non-zero with its reason; a traceback would be a bug.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPCURATE_API_KEY", "sk-test")
    monkeypatch.setenv("EXPCURATE_PRICE_INPUT_PER_MTOK", str(PRICE_IN))
    monkeypatch.setenv("EXPCURATE_PRICE_OUTPUT_PER_MTOK", str(PRICE_OUT))
    monkeypatch.setenv("EXPCURATE_SETUP_MODEL", "heuristic")
    monkeypatch.setenv("EXPCURATE_LLM_MAX_RETRIES", "0")


def test_llm_drafting_through_the_flow_to_export(
    tmp_path: Path,
    sample_pdf: Path,
    sample_repo: Path,
    prefect_harness: None,
    llm_env: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Drafted, refined tasks reach ready and the release; the tasks run records the model,
    the prompt hash, and tokens and cost exactly as the provider reported and the prices say."""
    script = ScriptedPaper()
    data = tmp_path / "data"
    with running(FakeLLM(responder=script)) as fake:
        monkeypatch.setenv("EXPCURATE_API_BASE", fake.url)
        code, out = _extract(data, sample_pdf, sample_repo, MODEL)
        refine_request = next(
            r["messages"][-1]["content"]
            for r in fake.requests
            if "Tasks drafted from section 4.2" in r["messages"][-1]["content"]
        )
    assert code == 0, out
    # The refinement re-read the appendix's implementation details.
    assert "A Implementation Details (appendix)" in refine_request
    kinds = [kind for kind, _ in script.served]
    assert "unknown" not in kinds
    assert kinds[0] == "classify" and kinds.count("takeaways") == 1
    assert kinds.count("refine") == 2  # one call per section that produced tasks

    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    paper = store.require_paper("p1")
    assert paper.status == "ready", paper.error
    run = store.current_runs("p1")["tasks"]
    assert (run.model, run.prompt_version) == (MODEL, prompt_version(MODEL))
    assert run.result_status == "succeeded", run.errors
    prompt_tokens = sum(r.prompt_tokens for _, r in script.served)
    completion_tokens = sum(r.completion_tokens for _, r in script.served)
    assert (run.prompt_tokens, run.completion_tokens) == (prompt_tokens, completion_tokens)
    expected_cost = (prompt_tokens * PRICE_IN + completion_tokens * PRICE_OUT) / 1e6
    assert run.cost_usd == pytest.approx(expected_cost)
    assert store.current_runs("p1")["setup"].model == "heuristic"

    drafted = {store.fields(t).question: store.fields(t) for t in store.tasks("p1")}
    assert set(drafted) == {MAIN["question"], ABLATION["question"]}
    main = drafted[MAIN["question"]]
    assert main.method == REFINED_METHOD
    assert main.design_complexity.constant_variables["look-back window"] == 336
    assert main.expected_outcome == MAIN["expected_outcome"]

    result = runner.invoke(app, ["export", "--release", "llm", "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    (final,) = (data / "published" / "llm" / "outputs" / "logs").glob("*/*/*_complete_final.json")
    published = ExpBenchFile.model_validate_json(final.read_text())
    assert {q.question for q in published.questions} == set(drafted)
    assert published.main_takeaways == TAKEAWAYS["main_takeaways"]


def test_garbage_drafting_answers_fail_the_paper_at_tasks(
    tmp_path: Path,
    sample_pdf: Path,
    sample_repo: Path,
    prefect_harness: None,
    llm_env: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every drafting answer unusable: no tasks, the paper fails at tasks with the reason."""
    script = ScriptedPaper(garbage_drafts=True)
    data = tmp_path / "data"
    with running(FakeLLM(responder=script)) as fake:
        monkeypatch.setenv("EXPCURATE_API_BASE", fake.url)
        code, out = _extract(data, sample_pdf, sample_repo, MODEL)
    assert code != 0 and "failed at tasks" in out
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    paper = store.require_paper("p1")
    assert (paper.status, paper.stage) == ("failed", "tasks")
    assert "gave no valid SectionTasks" in paper.error
    run = store.current_runs("p1")["tasks"]
    assert run.result_status == "failed" and run.items == 0
    assert [kind for kind, _ in script.served].count("unknown") == 0
    assert run.prompt_tokens == sum(r.prompt_tokens for _, r in script.served)
    assert store.tasks("p1") == []


def test_missing_key_fails_the_paper_at_tasks_naming_the_key(
    tmp_path: Path,
    sample_pdf: Path,
    sample_repo: Path,
    prefect_harness: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    data = tmp_path / "data"
    code, out = _extract(data, sample_pdf, sample_repo, "openai/gpt-4o-mini")
    assert code != 0 and "OPENAI_API_KEY" in out
    paper = Store(f"sqlite:///{data / 'expcurate.db'}").require_paper("p1")
    assert (paper.status, paper.stage) == ("failed", "tasks")
    assert "needs OPENAI_API_KEY" in paper.error and "--model heuristic" in paper.error
