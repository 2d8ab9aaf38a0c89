"""`LLMClient`: every model call of the pipeline goes through here.

One place owns what each call needs around it: the JSON answer validated against a pydantic
schema (with a bounded repair loop that shows the model its own mistake), images for models
that can see, a file cache keyed by the full request, token/cost/latency accounting, a spending
cap, retries with backoff on transient provider errors, and error messages that tell the
curator what to do. litellm does the provider work, so any provider string, an
OpenAI-compatible server (`api_base`) or Ollama is just a model name.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from expcurate.records import Usage
from extractors.llm.cache import ResponseCache, request_key
from extractors.llm.errors import BudgetExceeded, LLMError, LLMUnavailable, PrerequisiteError
from extractors.llm.jsonout import AnswerFormatError, describe_validation_error, extract_json
from extractors.llm.tools import AssistantTurn, turn_from_response, turn_key

if TYPE_CHECKING:
    from expcurate.settings import Settings

T = TypeVar("T", bound=BaseModel)

# Part of every request (and so of the cache key): change it and cached answers are not reused.
JSON_INSTRUCTION = (
    "Answer with one JSON object and nothing else: no prose before or after it, no code "
    "fences. The object must validate against this JSON Schema:\n{schema}"
)
REPAIR_INSTRUCTION = (
    "That answer could not be used: {problem}. Reply again with only the corrected JSON "
    "object, keeping everything that was right."
)
# Providers that run on the curator's machine by default: their *_API_BASE is optional.
_LOCAL_PROVIDERS = {"ollama", "ollama_chat", "lm_studio", "llamafile", "hosted_vllm"}


def _litellm() -> Any:
    """Import litellm on first use: it is slow to import and most stages never need it."""
    # The bundled price table keeps runs offline and reproducible (no fetch at import).
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


# How answers are held to JSON: the server enforces the schema (llama.cpp, Ollama, vLLM and
# OpenAI take `json_schema`), or only JSON (`json_object`), or only the prompt asks ("off").
JsonMode = Literal["schema", "object", "off"]


class CallRecord(BaseModel):
    """One model request (or cache hit), for the per-call log."""

    purpose: str = ""
    model: str
    cached: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    attempts: int = 1  # transport attempts, retries included
    repair: int = 0  # 0 for the first answer, n for the n-th repair
    truncated: bool = False  # the answer hit the output token limit
    error: str = ""


class LLMClient:
    """A configured model plus the bookkeeping every call needs (see the module docstring)."""

    def __init__(
        self,
        model: str,
        *,
        api_base: str = "",
        api_key: str = "",
        cache_dir: Path | None = None,
        budget_usd: float = 5.0,
        price_input_per_mtok: float | None = None,
        price_output_per_mtok: float | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        max_repairs: int = 2,
        backoff_s: float = 1.0,
        vision: bool | None = None,
        json_mode: JsonMode | None = None,
        max_tokens: int | None = 4096,
        temperature: float = 0.0,
    ) -> None:
        self.model = model
        self.api_base = api_base.rstrip("/")
        self.api_key = api_key
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self.budget_usd = budget_usd
        self.price_input_per_mtok = price_input_per_mtok
        self.price_output_per_mtok = price_output_per_mtok
        self.timeout_s = timeout_s
        self.max_retries = max(0, max_retries)
        self.max_repairs = max(0, max_repairs)
        self.backoff_s = backoff_s
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.usage = Usage()
        self.log: list[CallRecord] = []
        self.warnings: list[str] = []
        self.provider = self._check_prerequisites()
        self.can_see = self._supports(vision, "supports_vision")
        # Structured answers unless set off: a custom server (llama.cpp, Ollama, vLLM) is held
        # to the schema itself, a hosted provider to JSON; a server that rejects the parameter
        # steps down (schema, object, off) for the rest of the run.
        self.json_mode: JsonMode = json_mode or ("schema" if self.api_base else "object")
        self.json_mode_set = json_mode is not None

    # ------------------------------------------------------------------ setup

    def _check_prerequisites(self) -> str:
        litellm = _litellm()
        try:
            _, provider, _, _ = litellm.get_llm_provider(self.model, api_base=self.api_base or None)
        except Exception as e:  # litellm raises BadRequestError for a bare unknown name
            raise PrerequisiteError(
                f"model {self.model!r} names no provider litellm knows; write it as "
                "provider/model (e.g. openai/gpt-4o-mini, ollama/llama3) or use --model heuristic"
            ) from e
        if self.api_key or self.api_base:
            return str(provider)
        env = litellm.validate_environment(self.model)
        missing = [
            name
            for name in env.get("missing_keys") or []
            if not (provider in _LOCAL_PROVIDERS and name.endswith(("_API_BASE", "_BASE_URL")))
        ]
        if missing:
            raise PrerequisiteError(
                f"model {self.model} needs {' or '.join(missing)}; set it (or EXPCURATE_API_KEY) "
                "or use --model heuristic"
            )
        return str(provider)

    def _supports(self, override: bool | None, check: str) -> bool:
        if override is not None:
            return override
        try:
            return bool(getattr(_litellm(), check)(model=self.model))
        except Exception:  # unknown model: assume text only
            return False

    # ------------------------------------------------------------------ public

    def complete_json(
        self,
        messages: Sequence[dict[str, Any]],
        schema: type[T],
        *,
        images: Sequence[Path] = (),
        purpose: str = "",
    ) -> T:
        """Ask for an answer shaped like `schema`; repair malformed answers a bounded number of times.

        Raises `LLMError` when the answers stay unusable, `LLMUnavailable` when the provider stays
        unreachable, `BudgetExceeded` before a request once the budget is spent, and
        `PrerequisiteError` when the provider rejects the key or the model.
        """
        json_schema = schema.model_json_schema()
        convo = self._with_instruction(messages, json_schema)
        pictures = self._load_images(images) if self.can_see else []
        key = request_key(
            {
                "model": self.model,
                "api_base": self.api_base,
                "messages": convo,
                "images": [digest for digest, _ in pictures],
                "schema": schema.__name__,
                "json_schema": json_schema,
                "temperature": self.temperature,
            }
        )
        hit = self._from_cache(key, schema, purpose)
        if hit is not None:
            return hit
        convo = self._attach_images(convo, [data for _, data in pictures])
        problem = ""
        for repair in range(self.max_repairs + 1):
            content = self._request(convo, purpose, repair, schema.__name__, json_schema)
            try:
                if self.log and self.log[-1].truncated:
                    raise AnswerFormatError("the answer was cut off")  # even when it parses
                answer = schema.model_validate(extract_json(content))
            except AnswerFormatError as e:
                problem = str(e)
                if self.log and self.log[-1].truncated:
                    problem += " (it was cut off at the output token limit: answer more briefly)"
            except ValidationError as e:
                problem = "it does not match the schema: " + describe_validation_error(e)
            else:
                if self.cache is not None:
                    self.cache.put(
                        key,
                        {
                            "model": self.model,
                            "purpose": purpose,
                            "schema": schema.__name__,
                            "answer": answer.model_dump(mode="json"),
                        },
                    )
                return answer
            convo = [
                *convo,
                # The broken answer's opening, not all of it: each repair would double the prompt.
                {"role": "assistant", "content": _excerpt(content)},
                {"role": "user", "content": REPAIR_INSTRUCTION.format(problem=problem)},
            ]
        raise LLMError(
            f"{self.model} gave no valid {schema.__name__} for {purpose or 'a request'} after "
            f"{self.max_repairs + 1} answers; last problem: {problem}"
        )

    def complete_tools(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        *,
        purpose: str = "",
        tool_choice: str | dict[str, Any] | None = None,
    ) -> AssistantTurn:
        """One assistant turn of a tool-using conversation: its text and its tool calls.

        Arguments of the calls come back as the raw strings the model wrote: judging them is
        the caller's job, since a malformed call is an answer to show the model, not a crash.
        A turn is cached under the whole request (see `extractors.llm.tools`).
        """
        convo = [dict(m) for m in messages]
        extra: dict[str, Any] = {"tools": list(tools)}
        if tool_choice is not None:
            extra["tool_choice"] = tool_choice
        key = turn_key(self.model, self.api_base, convo, extra["tools"], tool_choice,
                       self.temperature)  # fmt: skip
        hit = self._from_cache(key, AssistantTurn, purpose, field="turn")
        if hit is not None:
            return hit.model_copy(update={"cached": True})
        turn = turn_from_response(self._send(convo, purpose, 0, extra))
        if self.cache is not None:
            self.cache.put(
                key, {"model": self.model, "purpose": purpose, "turn": turn.model_dump(mode="json")}
            )
        return turn

    # ------------------------------------------------------------------ request building

    @staticmethod
    def _with_instruction(
        messages: Sequence[dict[str, Any]], json_schema: dict[str, Any]
    ) -> list[dict[str, Any]]:
        instruction = JSON_INSTRUCTION.format(schema=json.dumps(json_schema, ensure_ascii=False))
        convo = [dict(m) for m in messages]
        if convo and convo[0].get("role") == "system" and isinstance(convo[0].get("content"), str):
            convo[0]["content"] = f"{convo[0]['content']}\n\n{instruction}"
        else:
            convo.insert(0, {"role": "system", "content": instruction})
        return convo

    def _load_images(self, images: Sequence[Path]) -> list[tuple[str, str]]:
        out = []
        for path in images:
            try:
                data = Path(path).read_bytes()
            except OSError as e:
                self._warn(f"image {path} not sent: {e.strerror or e}")
                continue
            digest = hashlib.sha256(data).hexdigest()
            out.append((digest, "data:image/png;base64," + base64.b64encode(data).decode("ascii")))
        return out

    @staticmethod
    def _attach_images(convo: list[dict[str, Any]], urls: list[str]) -> list[dict[str, Any]]:
        """Images go into the last user message as OpenAI-style content parts."""
        if not urls:
            return convo
        for message in reversed(convo):
            if message.get("role") == "user":
                text = message.get("content")
                parts = text if isinstance(text, list) else [{"type": "text", "text": text or ""}]
                message["content"] = [
                    *parts,
                    *({"type": "image_url", "image_url": {"url": url}} for url in urls),
                ]
                return convo
        convo.append(
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": u}} for u in urls],
            }
        )
        return convo

    # ------------------------------------------------------------------ transport

    def _request(
        self,
        convo: list[dict[str, Any]],
        purpose: str,
        repair: int,
        name: str,
        json_schema: dict[str, Any],
    ) -> str:
        """One answer from the model, with retries on transient errors; returns its text."""
        while True:
            extra: dict[str, Any] = {}
            if self.json_mode == "schema":
                schema_format = {"name": name, "schema": json_schema}
                extra["response_format"] = {"type": "json_schema", "json_schema": schema_format}
            elif self.json_mode == "object":
                extra["response_format"] = {"type": "json_object"}
            try:
                response = self._send(convo, purpose, repair, extra)
                break
            except LLMError as e:
                if not extra or self.json_mode_set or not JSON_MODE_REFUSED.search(str(e)):
                    raise
                refused = self.json_mode
                self.json_mode = "object" if refused == "schema" else "off"
                self._warn(
                    f"{self.model} refused response_format {refused!r}; asking with "
                    f"{self.json_mode!r} instead (set EXPCURATE_LLM_JSON_MODE={self.json_mode} "
                    "to skip the first try)"
                )
        try:
            content = response.choices[0].message.content
        except (AttributeError, IndexError):
            content = None
        return content if isinstance(content, str) else ""

    def _send(
        self, convo: list[dict[str, Any]], purpose: str, repair: int, extra: dict[str, Any]
    ) -> Any:
        """One response from the model, accounted, with retries on transient errors.

        `extra` holds request parameters of one kind of call (JSON mode, tools).
        """
        if self.usage.cost_usd >= self.budget_usd:
            raise BudgetExceeded(
                f"model calls cost ${self.usage.cost_usd:.4f}, reaching the budget of "
                f"${self.budget_usd:.2f} for this paper (EXPCURATE_BUDGET_USD); raise it, use a "
                "cheaper model, or --model heuristic"
            )
        litellm = _litellm()
        import openai  # a dependency of litellm; the base of all its exception types

        transient = (
            litellm.RateLimitError,
            litellm.Timeout,
            litellm.APIConnectionError,
            litellm.ServiceUnavailableError,
            litellm.InternalServerError,
        )
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": convo,
            "temperature": self.temperature,
            "timeout": self.timeout_s,
            "max_retries": 0,  # retries are ours: one policy, one count
            "num_retries": 0,
            "drop_params": True,
        }
        if self.max_tokens:
            kwargs["max_tokens"] = self.max_tokens
        if self.api_base:
            kwargs["api_base"] = self.api_base
            # OpenAI-compatible local servers ignore the key, but the client library wants one.
            kwargs["api_key"] = self.api_key or "not-needed"
        elif self.api_key:
            kwargs["api_key"] = self.api_key
        kwargs.update(extra)

        last: Exception | None = None
        timeouts = 0
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            started = time.perf_counter()
            try:
                response = litellm.completion(**kwargs)
            except litellm.Timeout as e:
                # The same request would time out again: ask for a shorter answer, once.
                last, timeouts = e, timeouts + 1
                if timeouts > 1 or not kwargs.get("max_tokens"):
                    break
                kwargs["max_tokens"] = max(256, int(kwargs["max_tokens"]) // 2)
                continue
            except transient as e:
                last = e
                continue
            except (litellm.AuthenticationError, litellm.PermissionDeniedError) as e:
                raise PrerequisiteError(
                    f"model {self.model} rejected the API key ({_short(e)}); check the provider's "
                    "key variable or EXPCURATE_API_KEY, or use --model heuristic"
                ) from e
            except litellm.NotFoundError as e:
                where = f" at {self.api_base}" if self.api_base else ""
                raise PrerequisiteError(
                    f"model {self.model} was not found{where} ({_short(e)}); check --model "
                    "(EXPCURATE_MODEL) or use --model heuristic"
                ) from e
            except openai.OpenAIError as e:
                self.log.append(
                    CallRecord(
                        purpose=purpose,
                        model=self.model,
                        error=_short(e),
                        attempts=attempt + 1,
                        repair=repair,
                    )
                )
                raise LLMError(
                    f"{self.model} refused the request for {purpose}: {_short(e)}"
                ) from e
            self._account(response, time.perf_counter() - started, purpose, attempt, repair)
            return response
        assert last is not None
        self.log.append(
            CallRecord(
                purpose=purpose,
                model=self.model,
                error=_short(last),
                attempts=attempt + 1,
                repair=repair,
            )
        )
        raise LLMUnavailable(
            f"{self.model} still failing after {attempt + 1} attempts "
            f"({type(last).__name__}: {_short(last)}){self._hint(last)}"
        ) from last

    def _hint(self, error: Exception) -> str:
        """What the curator can do about a provider that kept failing, by what went wrong."""
        litellm = _litellm()
        if isinstance(error, litellm.Timeout):
            return (
                f"; each answer took longer than {self.timeout_s:g} s, even asking for half as "
                "many tokens: raise EXPCURATE_LLM_TIMEOUT_S or lower EXPCURATE_LLM_MAX_TOKENS"
            )
        if isinstance(error, litellm.RateLimitError):
            return "; the provider is rate-limiting: wait, or lower the number of papers at once"
        if isinstance(error, (litellm.InternalServerError, litellm.ServiceUnavailableError)):
            where = f"the server at {self.api_base}" if self.api_base else "the provider"
            return f"; {where} answered with an error: see its log"
        if self.api_base:
            return f"; is the server at {self.api_base} running?"
        return "; check the network connection to the provider"

    def _account(
        self, response: Any, latency: float, purpose: str, attempt: int, repair: int
    ) -> None:
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        cost = self._cost(response, prompt_tokens, completion_tokens)
        record = CallRecord(
            purpose=purpose,
            model=self.model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=cost,
            latency_s=latency,
            attempts=attempt + 1,
            repair=repair,
        )
        self.log.append(record)
        self.usage.add(
            Usage(
                calls=1,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                cost_usd=cost,
                latency_s=latency,
            )
        )
        choices = getattr(response, "choices", None) or [None]
        record.truncated = getattr(choices[0], "finish_reason", "") == "length"

    def _cost(self, response: Any, prompt_tokens: int, completion_tokens: int) -> float:
        """Explicit prices win; then litellm's table; else 0 with one warning."""
        if self.price_input_per_mtok is not None or self.price_output_per_mtok is not None:
            return (
                prompt_tokens * (self.price_input_per_mtok or 0.0)
                + completion_tokens * (self.price_output_per_mtok or 0.0)
            ) / 1e6
        try:
            return float(_litellm().completion_cost(completion_response=response) or 0.0)
        except Exception:
            self._warn(
                f"no price known for {self.model}: its calls count as $0 and the budget cannot "
                "stop them; set EXPCURATE_PRICE_INPUT_PER_MTOK and EXPCURATE_PRICE_OUTPUT_PER_MTOK"
            )
            return 0.0

    def _from_cache(
        self, key: str, schema: type[T], purpose: str, field: str = "answer"
    ) -> T | None:
        """The cached reply under `key` (its `field` read as `schema`), counted as a cached
        call; None on a miss, and a damaged entry is a miss."""
        entry = self.cache.get(key) if self.cache is not None else None
        if entry is None:
            return None
        try:
            answer = schema.model_validate(entry.get(field))
        except ValidationError:
            return None
        self.usage.add(Usage(cached_calls=1))
        self.log.append(CallRecord(purpose=purpose, model=self.model, cached=True, attempts=0))
        return answer

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


# How servers say they do not take `response_format` (vLLM, older llama.cpp, LM Studio, …).
JSON_MODE_REFUSED = re.compile(r"response_format|json_object|json_schema|json mode", re.I)


def _excerpt(text: str, limit: int = 600) -> str:
    """The opening of a long answer, marked as cut by us."""
    return text if len(text) <= limit else text[:limit] + " […answer shortened…]"


def _short(error: BaseException, limit: int = 300) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def make_client(settings: Settings, model: str | None = None) -> LLMClient | None:
    """The configured client, or None for the offline `heuristic` model."""
    name = model or settings.model
    if name == "heuristic":
        return None
    return LLMClient(
        name,
        api_base=settings.api_base,
        api_key=settings.api_key,
        cache_dir=settings.resolved_data_dir() / "cache" / "llm",
        budget_usd=settings.budget_usd,
        price_input_per_mtok=settings.price_input_per_mtok,
        price_output_per_mtok=settings.price_output_per_mtok,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        vision=settings.vision,
        json_mode=settings.llm_json_mode,
        max_tokens=settings.llm_max_tokens,
    )
