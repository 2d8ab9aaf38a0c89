"""LLM drafting end to end against a fake provider on loopback, on a small parsed paper."""

from __future__ import annotations

import json
import socket
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, json_reply, running

from expcurate.records import Figure, ParsedPaper, Section, Severity, Status, Table
from expcurate.settings import Settings
from extractors.llm import LLMClient
from extractors.tasks import PROMPT_VERSION, draft_tasks, prompt_version
from extractors.tasks.llm import draft_with_llm
from extractors.tasks.llm_inputs import chunks, cited_labels, outline, render_findings

MODEL = "openai/fake-model"

CLASSIFY = {
    "sections": [
        {"id": 0, "kind": "other"},
        {"id": 1, "kind": "context"},
        {"id": 2, "kind": "experiment"},
        {"id": 3, "kind": "experiment"},
        {"id": 4, "kind": "other"},
    ]
}
MAIN_TASK = {
    "question": "Does GateMix forecast ETTh1 more accurately than PatchTST and DLinear?",
    "method": "Train GateMix, PatchTST and DLinear on ETTh1 with horizon 96 and compare MSE.",
    "expected_outcome": "GateMix reaches an MSE of 0.412 against 0.438 for PatchTST (Table 1).",
    "subsection_source": "4.1 Main Results",
    "design_complexity": {
        "constant_variables": {"dataset": "ETTh1", "horizon": 96},
        "independent_variables": {"method": ["GateMix", "PatchTST", "DLinear"]},
        "dependent_variables": {"MSE": "mean squared error on the test split"},
    },
    "evidence": ["Tab. 1"],
}
GATE_TASK = {
    "question": "How does removing the gate change GateMix's error on ETTh1?",
    "method": "Train GateMix with and without the gating unit under identical settings.",
    "expected_outcome": "Without the gate MSE rises from 0.412 to 0.451; see Fig. 1.",
    "design_complexity": {
        "independent_variables": {"gate": ["on", "off"]},
        "dependent_variables": {"MSE": "test error"},
    },
    "evidence": ["Table 2"],
}
LEAKY_TASK = {**GATE_TASK, "question": "Does removing the gate raise MSE from 0.412 to 0.451?"}
MIX_TASK = {
    "question": "Does the mixing depth matter for GateMix?",
    "method": "Vary the number of mixing layers and record MSE.",
    "expected_outcome": "Two layers are best (Table 2).",
    "evidence": ["Table 2"],
}
TAKEAWAYS = {
    "main_takeaways": ["GateMix beats PatchTST on ETTh1.", "The gate carries the gain."],
    "follow_up_work_ideas": [
        {
            "idea": "Test the gate on irregular series.",
            "experiment_design": "Vary sampling irregularity; measure MSE against PatchTST.",
            "subsection_source": "5 Conclusion",
        }
    ],
}


def make_paper() -> ParsedPaper:
    return ParsedPaper(
        title="GateMix: Gated Mixing for Forecasting",
        abstract="We propose GateMix, a gated mixer for long-horizon forecasting.",
        sections=[
            Section(number="1", title="Introduction", text="Forecasting matters.", page=1),
            Section(
                number="4",
                title="Experimental Setup",
                text="We train with Adam at a learning rate of 0.001 and batch size 32.",
                page=4,
            ),
            Section(
                number="4.1",
                title="Main Results",
                text="Table 1 compares GateMix with PatchTST and DLinear on ETTh1.",
                page=5,
            ),
            Section(
                number="4.2",
                title="Ablation",
                text="Table 2 and Fig. 1 ablate the gate and the mixing depth.",
                page=6,
            ),
            Section(number="5", title="Conclusion", text="GateMix is accurate.", page=7),
        ],
        tables=[
            Table(
                label="Table 1",
                caption="Table 1: MSE on ETTh1.",
                page=5,
                rows=[["Method", "MSE"], ["GateMix", "0.412"], ["PatchTST", "0.438"]],
                image="images/table-1-p5.png",
            ),
            Table(
                label="Table 2",
                caption="Ablations.",
                page=6,
                rows=[["Variant", "MSE"], ["w/o gate", "0.451"]],
            ),
        ],
        figures=[Figure(label="Figure 1", caption="Error vs depth.", page=6, image="")],
    )


class Router:
    """Answers by what the request is about (its first user message), in order per route."""

    def __init__(self, routes: dict[str, list[Reply]]) -> None:
        self.routes = routes
        self.taken: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        first_user = next(m for m in body["messages"] if m["role"] == "user")
        text = first_user["content"]
        if isinstance(text, list):
            text = " ".join(part.get("text", "") for part in text)
        # The most specific route wins: "... section 4.1" before "... section".
        for needle, replies in sorted(self.routes.items(), key=lambda r: -len(r[0])):
            if needle in text:
                self.taken.append(needle)
                return replies.pop(0) if len(replies) > 1 else replies[0]
        return Reply(status=500, content=f"no route for: {text[:80]}")


def standard_routes(**overrides: list[Reply]) -> dict[str, list[Reply]]:
    routes = {
        "Sections:\n[0]": [json_reply(CLASSIFY, 500, 100)],
        "Section to draft tasks from: 4.1": [json_reply({"tasks": [MAIN_TASK]}, 900, 300)],
        "Section to draft tasks from: 4.2": [
            json_reply({"tasks": [LEAKY_TASK, MIX_TASK]}, 800, 300),
            json_reply({"tasks": [GATE_TASK, MIX_TASK]}, 1000, 300),
        ],
        "Research questions drafted": [json_reply(TAKEAWAYS, 400, 100)],
        "Tasks drafted from section": [json_reply({"tasks": []}, 300, 50)],
    }
    routes.update(overrides)
    return routes


@pytest.fixture
def images_root(tmp_path: Path) -> Path:
    root = tmp_path / "paper"
    (root / "images").mkdir(parents=True)
    (root / "images" / "table-1-p5.png").write_bytes(b"\x89PNG\r\n\x1a\ntable-1")
    return root


def serve(router: Router) -> AbstractContextManager[FakeLLM]:
    return running(FakeLLM(responder=router))


def client_for(fake: FakeLLM, tmp_path: Path, **overrides: Any) -> LLMClient:
    options: dict[str, Any] = {
        "api_base": fake.url,
        "api_key": "sk-test",
        "cache_dir": tmp_path / "cache",
        "price_input_per_mtok": 1.0,
        "price_output_per_mtok": 4.0,
        "backoff_s": 0.001,
        "vision": True,
    }
    options.update(overrides)
    return LLMClient(MODEL, **options)


def test_draft_with_llm_end_to_end(tmp_path: Path, images_root: Path) -> None:
    router = Router(standard_routes())
    with serve(router) as fake:
        result = draft_with_llm(make_paper(), client_for(fake, tmp_path), images_root=images_root)
        requests = fake.requests

    assert result.status == Status.succeeded, result.errors
    assert [t.key for t in result.tasks] == ["sec-4.1:1", "sec-4.2:1", "sec-4.2:2"]
    main, gate, _ = result.tasks
    assert main.question == MAIN_TASK["question"]
    assert main.subsection_source == "4.1 Main Results"
    assert main.design_complexity.independent_variables == {
        "method": ["GateMix", "PatchTST", "DLinear"]
    }
    assert [(e.kind, e.label, e.page) for e in main.evidence] == [("table", "Table 1", 5)]
    # The leaky question was sent back once and fixed; the outcome's figure is evidence too.
    assert gate.question == GATE_TASK["question"]
    assert [e.label for e in gate.evidence] == ["Table 2", "Figure 1"]
    assert gate.subsection_source == "4.2 Ablation"
    assert result.main_takeaways == TAKEAWAYS["main_takeaways"]
    assert result.follow_up_work_ideas[0].subsection_source == "5 Conclusion"

    assert router.taken == [
        "Sections:\n[0]",
        "Section to draft tasks from: 4.1",
        "Section to draft tasks from: 4.2",
        "Section to draft tasks from: 4.2",
        "Research questions drafted",
        "Tasks drafted from section",
        "Tasks drafted from section",
    ]
    repair = requests[3]["messages"][-1]["content"]
    assert "gives away outcome numbers" in repair and "0.412" in repair

    # The drafting request: setup context, the section, its table's cells, the crop.
    main_request = requests[1]["messages"][-1]["content"]
    text = main_request[0]["text"]
    assert "learning rate of 0.001" in text
    assert "| GateMix | 0.412 |" in text
    assert "Forecasting matters." not in text  # 'other' sections are not context
    assert "Findings the paper states about them" in text  # claim-first, like the heuristic
    assert "no sentence of the paper states a finding about it" in text
    assert main_request[1]["image_url"]["url"].startswith("data:image/png;base64,")

    usage = result.usage
    assert usage.calls == 7
    assert usage.prompt_tokens == 500 + 900 + 800 + 1000 + 400 + 2 * 300
    assert usage.completion_tokens == 100 + 300 + 300 + 300 + 100 + 2 * 50
    assert usage.cost_usd == pytest.approx((4200 * 1.0 + 1200 * 4.0) / 1e6)


def test_failed_section_is_recorded_and_drafting_goes_on(tmp_path: Path) -> None:
    routes = standard_routes(**{"Section to draft tasks from: 4.1": [Reply("I cannot help.")]})
    with serve(Router(routes)) as fake:
        result = draft_with_llm(make_paper(), client_for(fake, tmp_path, max_repairs=1))
    assert result.status == Status.partial
    assert [t.key for t in result.tasks] == ["sec-4.2:1", "sec-4.2:2"]
    errors = [e for e in result.errors if e.severity == Severity.error]
    assert len(errors) == 1 and errors[0].category == "draft" and errors[0].page == 5
    assert errors[0].message.startswith("4.1 Main Results:")
    assert result.main_takeaways  # the last step still ran


def test_budget_stops_cleanly_with_what_was_drafted(tmp_path: Path) -> None:
    router = Router(standard_routes())
    with serve(router) as fake:
        # classify costs $0.0009 and section 4.1 $0.0021: the budget is spent after it.
        client = client_for(fake, tmp_path, budget_usd=0.0025)
        result = draft_with_llm(make_paper(), client)
    assert result.status == Status.partial
    assert [t.key for t in result.tasks] == ["sec-4.1:1"]
    assert [e.category for e in result.errors] == ["budget"]
    assert "EXPCURATE_BUDGET_USD" in result.errors[0].message
    assert "Research questions drafted" not in router.taken
    assert result.usage.cost_usd == pytest.approx(0.003)


def test_unusable_classification_falls_back_to_rules(tmp_path: Path) -> None:
    routes = standard_routes(**{"Sections:\n[0]": [Reply("sections: intro, setup, results")]})
    with serve(Router(routes)) as fake:
        result = draft_with_llm(make_paper(), client_for(fake, tmp_path, max_repairs=1))
    assert [e.category for e in result.errors] == ["classify"]
    assert "classified by rule" in result.errors[0].message
    assert [t.key for t in result.tasks] == ["sec-4.1:1", "sec-4.2:1", "sec-4.2:2"]


def test_an_empty_classification_leaves_the_sections_to_the_rules(tmp_path: Path) -> None:
    """`{"sections": []}` validates, but it must not make every results section "other"."""
    routes = standard_routes(**{"Sections:\n[0]": [json_reply({"sections": []})]})
    with serve(Router(routes)) as fake:
        result = draft_with_llm(make_paper(), client_for(fake, tmp_path))
    assert [(e.category, e.severity) for e in result.errors] == [("classify", Severity.warning)]
    assert "labelled none of the 5 sections" in result.errors[0].message
    assert [t.key for t in result.tasks] == ["sec-4.1:1", "sec-4.2:1", "sec-4.2:2"]


def test_unreachable_provider_fails_the_stage_quickly(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = LLMClient(
        MODEL,
        api_base=f"http://127.0.0.1:{port}/v1",
        api_key="sk-test",
        max_retries=1,
        backoff_s=0.001,
        timeout_s=2,
    )
    result = draft_with_llm(make_paper(), client)
    assert result.status == Status.failed
    assert result.errors[0].category == "provider"
    assert f"127.0.0.1:{port}" in result.errors[0].message


def test_draft_tasks_without_key_fails_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = draft_tasks(make_paper(), "openai/gpt-4o-mini", settings=Settings())
    assert result.status == Status.failed and not result.tasks
    assert result.errors[0].category == "prerequisite"
    assert result.errors[0].message.startswith("model openai/gpt-4o-mini needs OPENAI_API_KEY")


def test_draft_tasks_uses_settings_and_reuses_cached_answers(tmp_path: Path) -> None:
    router = Router(standard_routes())
    with serve(router) as fake:
        settings = Settings(
            data_dir=tmp_path / "data",
            model=MODEL,
            api_base=fake.url,
            api_key="sk-test",
            price_input_per_mtok=1.0,
            price_output_per_mtok=4.0,
        )
        first = draft_tasks(make_paper(), MODEL, settings=settings)
        calls = len(fake.requests)
        again = draft_tasks(make_paper(), MODEL, settings=settings)
        assert len(fake.requests) == calls  # every answer came from the cache
    assert first.status == Status.succeeded
    assert json.dumps(again.model_dump(exclude={"usage"})) == json.dumps(
        first.model_dump(exclude={"usage"})
    )
    assert (again.usage.calls, again.usage.cached_calls, again.usage.cost_usd) == (0, 6, 0.0)
    assert any((tmp_path / "data" / "cache" / "llm").rglob("*.json"))


def test_prompt_version_names_the_strategy() -> None:
    assert prompt_version("heuristic") == PROMPT_VERSION
    version = prompt_version(MODEL)
    assert version.startswith("tasks-llm-") and len(version) == len("tasks-llm-") + 12
    assert prompt_version("ollama/llama3") == version


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        ("as Table 3 shows", ["Table 3"]),
        ("Tables 2 and 3 and Fig. 4", ["Table 2", "Table 3", "Figure 4"]),
        ("see Figures 1-3", ["Figure 1", "Figure 2", "Figure 3"]),
        ("Tab. A.1 in the appendix", ["Table A1"]),
        ("a table of results", []),
    ],
)
def test_cited_labels(text: str, labels: list[str]) -> None:
    assert cited_labels(text) == labels


def test_long_section_is_drafted_in_pieces_without_losing_its_end(tmp_path: Path) -> None:
    """A section longer than one request's budget is split, not truncated: late results count."""
    paper = make_paper()
    filler = "The encoder mixes channels with a learned gate before the forecast head. " * 250
    paper.sections[2].text = filler + "\n\nFinally, Table 1 compares GateMix with PatchTST."
    assert len(chunks(paper.sections[2].text)) == 2
    routes = standard_routes(
        **{
            "Section to draft tasks from: 4.1 Main Results (part 1 of 2)": [
                json_reply({"tasks": [MIX_TASK]})
            ],
            "Section to draft tasks from: 4.1 Main Results (part 2 of 2)": [
                json_reply({"tasks": [MAIN_TASK]})
            ],
        }
    )
    del routes["Section to draft tasks from: 4.1"]
    with serve(Router(routes)) as fake:
        result = draft_with_llm(paper, client_for(fake, tmp_path, vision=False))
        second = next(
            r["messages"][-1]["content"]
            for r in fake.requests
            if "(part 2 of 2)" in r["messages"][-1]["content"]
        )
    assert "Finally, Table 1 compares" in second and "| GateMix | 0.412 |" in second
    assert [t.key for t in result.tasks][:2] == ["sec-4.1:1", "sec-4.1:2"]
    assert result.tasks[1].question == MAIN_TASK["question"]


def test_chunks_respect_the_limit_and_keep_every_word() -> None:
    text = "\n\n".join(f"Paragraph {i} says something about results." * 3 for i in range(40))
    pieces = chunks(text, limit=500)
    assert len(pieces) > 1 and all(len(p) <= 500 for p in pieces)
    assert " ".join(pieces).split() == text.split()
    assert chunks("short text", limit=500) == ["short text"]
    assert all(len(p) <= 100 for p in chunks("x" * 350, limit=100))


def test_outline_shows_what_a_section_cites() -> None:
    """A results section hidden under a wrong heading is still recognisable to the classifier."""
    lines = outline(make_paper()).splitlines()
    assert lines[2].startswith("[2] 4.1 Main Results (")
    assert "cites Table 1" in lines[2]
    assert "cites Table 2, Figure 1" in lines[3]
    assert "cites" not in lines[0]


# ------------------------------------------------------------------ refinement

REFINED_METHOD = (
    "Train GateMix, PatchTST and DLinear on ETTh1 with horizon 96 using Adam at a learning "
    "rate of 0.001, batch size 32, dropout 0.1 and 30 epochs; compare test MSE."
)


def refined_main(**changes: Any) -> dict[str, Any]:
    task = {
        "id": 0,
        "expected_outcome": MAIN_TASK["expected_outcome"],
        "method": REFINED_METHOD,
        "design_complexity": {
            "constant_variables": {"dataset": "ETTh1", "horizon": 96, "learning rate": 0.001},
        },
    }
    task.update(changes)
    return {"tasks": [task]}


def paper_with_appendix() -> ParsedPaper:
    paper = make_paper()
    paper.sections.append(
        Section(
            number="A",
            title="Hyperparameters",
            text="Dropout is 0.1 and every model trains for 30 epochs.",
            page=9,
            appendix=True,
        )
    )
    return paper


def test_refinement_completes_the_method_from_setup_and_appendix(tmp_path: Path) -> None:
    """The refinement pass re-reads setup sections drafting did not show (the appendix) and
    replaces method and design variables only: question, outcome and evidence stay."""
    routes = standard_routes(
        **{"Tasks drafted from section 4.1": [json_reply(refined_main(), 700, 200)]}
    )
    router = Router(routes)
    with serve(router) as fake:
        result = draft_with_llm(paper_with_appendix(), client_for(fake, tmp_path, vision=False))
        refine_request = next(
            r["messages"][-1]["content"]
            for r in fake.requests
            if "Tasks drafted from section 4.1" in r["messages"][-1]["content"]
        )
        draft_request = next(
            r["messages"][-1]["content"]
            for r in fake.requests
            if "Section to draft tasks from: 4.1" in r["messages"][-1]["content"]
        )

    assert result.status == Status.succeeded, result.errors
    main = result.tasks[0]
    assert main.method == REFINED_METHOD
    assert main.design_complexity.constant_variables["learning rate"] == 0.001
    # Parts the answer left empty keep the draft's values.
    assert main.design_complexity.independent_variables == {
        "method": ["GateMix", "PatchTST", "DLinear"]
    }
    assert (main.question, main.expected_outcome) == (
        MAIN_TASK["question"],
        MAIN_TASK["expected_outcome"],
    )
    assert [e.label for e in main.evidence] == ["Table 1"]
    assert result.tasks[1].method == GATE_TASK["method"]  # an empty answer changes nothing
    assert "Dropout is 0.1" in refine_request and "learning rate of 0.001" in refine_request
    assert "Dropout is 0.1" not in draft_request  # only the refinement saw the appendix
    assert router.taken.count("Tasks drafted from section 4.1") == 1
    assert router.taken[-1] == "Tasks drafted from section"  # 4.2's batch, after 4.1's


def test_refinement_changing_the_outcome_numbers_is_rejected(tmp_path: Path) -> None:
    """An answer that alters the expected outcome's numbers is sent back; when it stays wrong
    the task keeps its draft and the section's refinement is recorded as failed."""
    changed = str(MAIN_TASK["expected_outcome"]).replace("0.412", "0.415")
    routes = standard_routes(
        **{"Tasks drafted from section 4.1": [json_reply(refined_main(expected_outcome=changed))]}
    )
    with serve(Router(routes)) as fake:
        result = draft_with_llm(make_paper(), client_for(fake, tmp_path, max_repairs=1))
        repairs = [
            r["messages"][-1]["content"]
            for r in fake.requests
            if "Tasks drafted from section 4.1" in r["messages"][1]["content"]
            and len(r["messages"]) > 2
        ]

    main = result.tasks[0]
    assert main.method == MAIN_TASK["method"]
    assert "learning rate" not in main.design_complexity.constant_variables
    assert result.status == Status.partial
    errors = [e for e in result.errors if e.severity == Severity.error]
    assert [(e.category, e.page) for e in errors] == [("refine", 5)]
    assert errors[0].message.startswith("4.1 Main Results:")
    assert "kept the drafted method" in errors[0].message
    assert len(repairs) == 1 and "0.415" in repairs[0] and "0.412" in repairs[0]


def test_refinement_leaking_results_into_the_method_is_rejected(tmp_path: Path) -> None:
    leaky = refined_main(method=REFINED_METHOD + " GateMix should reach 0.412.")
    routes = standard_routes(**{"Tasks drafted from section 4.1": [json_reply(leaky)]})
    with serve(Router(routes)) as fake:
        result = draft_with_llm(make_paper(), client_for(fake, tmp_path))
    assert result.tasks[0].method == MAIN_TASK["method"]
    assert [e.category for e in result.errors] == ["refine"]
    assert "gives away outcome numbers (0.412)" in result.errors[0].message


def test_malformed_refinement_answer_is_repaired(tmp_path: Path) -> None:
    routes = standard_routes(
        **{
            "Tasks drafted from section 4.1": [
                Reply('Here is the refinement: {"tasks": [{"id": 0, "method": '),
                json_reply(refined_main()),
            ]
        }
    )
    with serve(Router(routes)) as fake:
        result = draft_with_llm(make_paper(), client_for(fake, tmp_path))
        refine_calls = [
            r
            for r in fake.requests
            if "Tasks drafted from section 4.1" in r["messages"][1]["content"]
        ]
    assert result.status == Status.succeeded, result.errors
    assert result.tasks[0].method == REFINED_METHOD
    assert len(refine_calls) == 2
    assert "could not be used" in refine_calls[1]["messages"][-1]["content"]


def test_refinement_is_skipped_without_setup_sections(tmp_path: Path) -> None:
    """No setup to re-read, no call: the pass must not pay for a request that cannot help."""
    paper = make_paper()
    paper.sections[1].title = "Approach"
    paper.sections[1].text = "GateMix mixes channels through a gate."
    classify = {
        "sections": [{**s, "kind": "other"} if s["id"] == 1 else s for s in CLASSIFY["sections"]]
    }
    router = Router(standard_routes(**{"Sections:\n[0]": [json_reply(classify)]}))
    with serve(router) as fake:
        result = draft_with_llm(paper, client_for(fake, tmp_path))
    assert result.status == Status.succeeded, result.errors
    assert "Tasks drafted from section" not in router.taken


def test_prompt_version_changes_with_the_refinement_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rewording refine.md must change the recorded version (and so the stage's inputs hash)."""
    from extractors.tasks import llm, refine

    before = llm.prompt_version()
    edited = tmp_path / "refine.md"
    edited.write_text(refine.PROMPT_FILE.read_text() + "\nBe brief.\n")
    monkeypatch.setattr(refine, "PROMPT_FILE", edited)
    refine.refine_prompt.cache_clear()
    llm.prompt_version.cache_clear()
    try:
        assert llm.prompt_version() != before
    finally:
        refine.refine_prompt.cache_clear()
        llm.prompt_version.cache_clear()


def test_findings_given_to_the_model_are_the_papers_own_claims() -> None:
    """The LLM strategy drafts from the same claim sentences as the offline one, with the
    headline results marked, and is told which items no sentence discusses."""
    paper = make_paper()
    paper.sections[2].text = "As Table 1 shows, GateMix reaches a lower MSE than PatchTST."
    text = render_findings(paper, [paper.tables[0], paper.tables[1]])
    assert "Table 1 (a headline result of the paper):" in text
    assert "- As Table 1 shows, GateMix reaches a lower MSE than PatchTST." in text
    assert "Table 2" in text and "no sentence of the paper states a finding" in text
