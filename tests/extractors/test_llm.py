"""The LLM client against a fake OpenAI-compatible provider on loopback (real HTTP)."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, json_reply, running
from pydantic import BaseModel

from expcurate.settings import Settings
from extractors.llm import (
    BudgetExceeded,
    LLMClient,
    LLMError,
    LLMUnavailable,
    PrerequisiteError,
    extract_json,
    load_prompt,
    make_client,
)
from extractors.llm.jsonout import AnswerFormatError

MODEL = "openai/fake-model"
GOOD = {"label": "ablation", "score": 0.5}


class Answer(BaseModel):
    label: str
    score: float


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with running(FakeLLM()) as server:
        yield server


def make(fake: FakeLLM, tmp_path: Path, **overrides: Any) -> LLMClient:
    options: dict[str, Any] = {
        "api_base": fake.url,
        "api_key": "sk-test",
        "cache_dir": tmp_path / "cache",
        "price_input_per_mtok": 2.0,
        "price_output_per_mtok": 10.0,
        "timeout_s": 5.0,
        "backoff_s": 0.001,
    }
    options.update(overrides)
    return LLMClient(MODEL, **options)


def ask(client: LLMClient, text: str = "Classify this.", **kwargs: Any) -> Answer:
    return client.complete_json([{"role": "user", "content": text}], Answer, **kwargs)


def test_valid_answer_is_validated_and_costed_from_reported_usage(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.push(json_reply(GOOD, prompt_tokens=1000, completion_tokens=200))
    client = make(fake, tmp_path)
    answer = ask(client, purpose="classify")
    assert answer == Answer(**GOOD)
    assert fake.paths == ["/v1/chat/completions"]
    assert fake.auth == ["Bearer sk-test"]
    body = fake.requests[0]
    assert body["model"] == "fake-model"
    # a custom server (llama.cpp, Ollama, vLLM) is held to the answer's own schema
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["label", "score"]
    system = body["messages"][0]
    assert system["role"] == "system" and '"score"' in system["content"]
    usage = client.usage
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens) == (1, 1000, 200)
    assert usage.cost_usd == pytest.approx(1000 * 2.0 / 1e6 + 200 * 10.0 / 1e6)
    assert usage.latency_s > 0
    assert [(r.purpose, r.cached, r.repair) for r in client.log] == [("classify", False, 0)]


def test_fenced_answer_after_prose_needs_no_repair(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(Reply("Sure, here it is:\n```json\n" + json.dumps(GOOD) + "\n```\nAnything else?"))
    assert ask(make(fake, tmp_path)) == Answer(**GOOD)
    assert len(fake.requests) == 1


def test_malformed_json_is_sent_back_and_repaired(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(Reply('{"label": "ablation", "score": '), json_reply(GOOD, 300, 50))
    client = make(fake, tmp_path)
    assert ask(client) == Answer(**GOOD)
    assert len(fake.requests) == 2
    repair = fake.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"label": "ablation", "score": '}
    assert repair[-1]["role"] == "user" and "malformed" in repair[-1]["content"]
    assert client.usage.calls == 2
    assert client.usage.prompt_tokens == 400
    assert [r.repair for r in client.log] == [0, 1]


def test_truncated_answer_is_asked_to_be_briefer(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(Reply('{"label": "abl', finish_reason="length"), json_reply(GOOD))
    client = make(fake, tmp_path)
    assert ask(client) == Answer(**GOOD)
    assert "cut off" in fake.requests[1]["messages"][-1]["content"]
    assert [r.truncated for r in client.log] == [True, False]


def test_schema_violation_names_the_field_in_the_repair_turn(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(json_reply({"label": "ablation"}), json_reply(GOOD))
    assert ask(make(fake, tmp_path)) == Answer(**GOOD)
    assert "score" in fake.requests[1]["messages"][-1]["content"]


def test_garbage_after_all_repairs_raises_llm_error(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(Reply("no idea"), Reply("still none"), Reply("[1, 2]"))
    client = make(fake, tmp_path, max_repairs=2)
    with pytest.raises(LLMError, match="no valid Answer"):
        ask(client, purpose="section 4")
    assert len(fake.requests) == 3
    assert client.usage.calls == 3


def test_rate_limit_is_retried_with_backoff(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(Reply(status=429, content="slow down"), json_reply(GOOD))
    client = make(fake, tmp_path)
    assert ask(client) == Answer(**GOOD)
    assert len(fake.requests) == 2
    assert client.log[-1].attempts == 2
    assert client.usage.calls == 1  # the refused attempt is not a model call


def test_hang_past_the_timeout_is_retried(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(Reply(json.dumps(GOOD), delay_s=3.0), json_reply(GOOD))
    client = make(fake, tmp_path, timeout_s=0.5)
    started = time.monotonic()
    assert ask(client) == Answer(**GOOD)
    assert time.monotonic() - started < 2.5
    assert len(fake.requests) == 2


def test_a_timeout_is_retried_once_asking_for_fewer_tokens_then_explained(
    fake: FakeLLM, tmp_path: Path
) -> None:
    """The identical request would time out again: the retry asks for half the tokens, and a
    second timeout ends the call with what to change, not with 'is the server running?'."""
    fake.push(*[Reply(json.dumps(GOOD), delay_s=1.5)] * 2)
    client = make(fake, tmp_path, timeout_s=0.5, max_tokens=2048, max_retries=3)
    with pytest.raises(LLMUnavailable) as info:
        ask(client)
    assert [r["max_tokens"] for r in fake.requests] == [2048, 1024]
    assert "EXPCURATE_LLM_TIMEOUT_S" in str(info.value) and "running" not in str(info.value)


def test_a_server_error_is_not_called_a_server_that_is_down(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(*[Reply(status=500, content="<html>boom</html>")] * 2)
    with pytest.raises(LLMUnavailable) as info:
        ask(make(fake, tmp_path, max_retries=1))
    assert "answered with an error" in str(info.value)
    assert "running?" not in str(info.value)


def test_a_server_that_refuses_json_mode_steps_down(fake: FakeLLM, tmp_path: Path) -> None:
    """Schema refused: JSON object; that refused too: the prompt alone, for the rest of the run."""
    fake.push(
        Reply(status=400, content="'response_format' json_schema is not supported"),
        Reply(status=400, content="'response_format' is not supported by this server"),
        json_reply(GOOD),
        json_reply(GOOD),
    )
    client = make(fake, tmp_path)
    assert ask(client) == Answer(**GOOD)
    assert ask(client, "Another.") == Answer(**GOOD)
    formats = [r.get("response_format", {}).get("type") for r in fake.requests]
    assert formats == ["json_schema", "json_object", None, None]
    assert any("refused response_format 'schema'" in w for w in client.warnings)
    # set explicitly, the setting is kept and the refusal is the error
    fake.push(Reply(status=400, content="'response_format' is not supported"))
    with pytest.raises(LLMError, match="refused the request"):
        ask(make(fake, tmp_path / "b", json_mode="object"), "Third.")


def test_an_html_page_in_place_of_an_answer_is_a_clear_error(fake: FakeLLM, tmp_path: Path) -> None:
    """A proxy's login page with status 200: no crash, no valid answer made of it."""
    fake.push(*[Reply(raw="<html><body>Sign in</body></html>")] * 6)
    with pytest.raises((LLMError, LLMUnavailable)) as info:
        ask(make(fake, tmp_path, max_retries=1, max_repairs=1))
    assert "running?" not in str(info.value)


def test_an_empty_choices_list_is_one_bad_answer_not_two_repairs_each(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.push(Reply(no_choices=True), json_reply(GOOD))
    client = make(fake, tmp_path, max_repairs=2)
    assert ask(client) == Answer(**GOOD)
    assert len(fake.requests) == 2 and [r.repair for r in client.log] == [0, 1]


def test_a_prompt_over_the_context_is_refused_once_with_the_servers_reason(
    fake: FakeLLM, tmp_path: Path
) -> None:
    message = "request (6031 tokens) exceeds the available context size (2048 tokens)"
    fake.push(Reply(status=400, content=message))
    with pytest.raises(LLMError, match="exceeds the available context size"):
        ask(make(fake, tmp_path))
    assert len(fake.requests) == 1  # the same prompt would not fit the next time either


def test_retries_are_bounded(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(*[Reply(status=429, content="slow down")] * 3)
    client = make(fake, tmp_path, max_retries=1)
    with pytest.raises(LLMUnavailable, match="after 2 attempts"):
        ask(client)
    assert len(fake.requests) == 2


def test_rejected_key_is_a_prerequisite_error(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(Reply(status=401, content="invalid api key"))
    with pytest.raises(PrerequisiteError, match="rejected the API key"):
        ask(make(fake, tmp_path))
    assert len(fake.requests) == 1


def test_missing_key_names_the_variable_and_the_way_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(PrerequisiteError) as info:
        LLMClient("openai/gpt-4o-mini")
    message = str(info.value)
    assert message.startswith("model openai/gpt-4o-mini needs OPENAI_API_KEY; set it")
    assert "--model heuristic" in message


def test_unknown_provider_is_a_prerequisite_error() -> None:
    with pytest.raises(PrerequisiteError, match="provider/model"):
        LLMClient("surely-not-a-model")


def test_vision_request_carries_the_png_as_a_data_url(fake: FakeLLM, tmp_path: Path) -> None:
    png = tmp_path / "table-3.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake-pixels")
    fake.push(json_reply(GOOD))
    ask(make(fake, tmp_path, vision=True), images=[png])
    content = fake.requests[0]["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "Classify this."}
    url = content[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png.read_bytes()


def test_blind_model_gets_text_only(fake: FakeLLM, tmp_path: Path) -> None:
    png = tmp_path / "figure-2.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n")
    fake.push(json_reply(GOOD))
    ask(make(fake, tmp_path, vision=False), images=[png])
    assert fake.requests[0]["messages"][-1]["content"] == "Classify this."


def test_identical_call_is_served_from_cache_without_http(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(json_reply(GOOD), json_reply({"label": "other", "score": 1}))
    first = make(fake, tmp_path)
    assert ask(first) == Answer(**GOOD)
    assert ask(first) == Answer(**GOOD)
    again = make(fake, tmp_path)  # a later run sharing the data dir
    assert ask(again) == Answer(**GOOD)
    assert len(fake.requests) == 1
    assert (first.usage.calls, first.usage.cached_calls) == (1, 1)
    assert (again.usage.calls, again.usage.cached_calls, again.usage.cost_usd) == (0, 1, 0.0)
    assert ask(again, "Classify that.") == Answer(label="other", score=1)
    assert len(fake.requests) == 2


def test_cache_key_covers_images(fake: FakeLLM, tmp_path: Path) -> None:
    png = tmp_path / "crop.png"
    png.write_bytes(b"\x89PNG one")
    fake.push(json_reply(GOOD), json_reply(GOOD))
    client = make(fake, tmp_path, vision=True)
    ask(client, images=[png])
    png.write_bytes(b"\x89PNG two")
    ask(client, images=[png])
    assert len(fake.requests) == 2


def test_budget_stops_calls_once_spent(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(json_reply(GOOD, 1000, 200), json_reply(GOOD))
    client = make(fake, tmp_path, budget_usd=0.003)  # the first call costs $0.004
    ask(client, "first")
    with pytest.raises(BudgetExceeded, match="EXPCURATE_BUDGET_USD"):
        ask(client, "second")
    assert len(fake.requests) == 1


def test_unpriced_model_costs_zero_with_one_warning(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(json_reply(GOOD), json_reply(GOOD))
    client = make(fake, tmp_path, price_input_per_mtok=None, price_output_per_mtok=None)
    ask(client, "one")
    ask(client, "two")
    assert client.usage.calls == 2 and client.usage.cost_usd == 0.0
    assert len(client.warnings) == 1 and "EXPCURATE_PRICE_INPUT_PER_MTOK" in client.warnings[0]


def test_make_client_reads_settings(tmp_path: Path) -> None:
    assert make_client(Settings(model="heuristic")) is None
    settings = Settings(
        data_dir=tmp_path,
        model=MODEL,
        api_base="http://127.0.0.1:9/v1",
        api_key="sk-test",
        budget_usd=1.5,
        llm_timeout_s=7,
        llm_max_retries=1,
        vision=True,
    )
    client = make_client(settings)
    assert client is not None
    assert (client.model, client.budget_usd, client.timeout_s, client.max_retries) == (
        MODEL,
        1.5,
        7,
        1,
    )
    assert client.can_see
    assert client.cache is not None and client.cache.root == tmp_path.resolve() / "cache" / "llm"


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        'Here you go: {"a": 1} hope it helps',
        '```json\n{"a": 1}\n```',
        '<think>maybe {"b": 2}? no</think>\n{"a": 1}',
    ],
)
def test_extract_json_tolerates_wrapping(text: str) -> None:
    assert extract_json(text) == {"a": 1}


@pytest.mark.parametrize("text", ["", "no json here", '{"a": 1', "[1, 2]"])
def test_extract_json_rejects_non_objects(text: str) -> None:
    with pytest.raises(AnswerFormatError):
        extract_json(text)


def test_prompt_version_follows_file_content(tmp_path: Path) -> None:
    path = tmp_path / "p.md"
    path.write_text("Classify the sections.\n")
    text, version = load_prompt(path)
    assert text == "Classify the sections." and len(version) == 12
    path.write_text("Classify the sections!\n")
    assert load_prompt(path).version != version


def test_json_mode_is_requested_when_enabled(fake: FakeLLM, tmp_path: Path) -> None:
    fake.push(json_reply(GOOD))
    ask(make(fake, tmp_path, json_mode="object"))
    assert fake.requests[0]["response_format"] == {"type": "json_object"}


class Listing(BaseModel):
    items: list[dict[str, Any]]


def test_an_inner_object_of_a_cut_off_answer_is_not_the_answer() -> None:
    from extractors.llm.jsonout import AnswerFormatError, extract_json

    with pytest.raises(AnswerFormatError, match="malformed or cut off"):
        extract_json('Here you go: {"items": [{}, {"name": "trunc')
    assert extract_json('Sure: {"items": [{}]} Hope that helps {x}') == {"items": [{}]}


def test_an_answer_cut_off_at_the_token_limit_is_repaired_and_never_cached(
    fake: FakeLLM, tmp_path: Path
) -> None:
    # It parses (the model closed the object early), but the provider says it was cut off.
    fake.push(Reply('{"label": "abl", "score": 0.1}', finish_reason="length"), json_reply(GOOD))
    client = make(fake, tmp_path)
    assert ask(client) == Answer(**GOOD)
    assert "cut off" in fake.requests[1]["messages"][-1]["content"]
    # A second client finds the good answer in the cache, never the cut-off one.
    assert ask(make(fake, tmp_path)) == Answer(**GOOD) and len(fake.requests) == 2


def test_a_repair_quotes_the_opening_of_a_long_broken_answer_not_all_of_it(
    fake: FakeLLM, tmp_path: Path
) -> None:
    broken = '{"label": "' + "x" * 5000
    fake.push(Reply(broken), json_reply(GOOD))
    assert ask(make(fake, tmp_path)) == Answer(**GOOD)
    quoted = fake.requests[1]["messages"][-2]["content"]
    assert quoted.startswith('{"label": "xxx') and len(quoted) < 700
