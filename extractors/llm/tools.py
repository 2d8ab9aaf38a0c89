"""Tool calling: one assistant turn of a conversation in which the model may call functions.

The caller runs the loop (it owns the tools and their confinement); this module only asks for
the next turn with OpenAI-style `tools` through the client's plumbing: the spending cap,
retries, token and cost accounting. A turn is cached under the *whole* request, every earlier
message and tool result included, so a re-run over the same repository replays the same
conversation at no cost, while any change (a new commit, another prompt) asks the model again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from expcurate.records import Usage
from extractors.llm.cache import request_key

if TYPE_CHECKING:
    from extractors.llm.client import LLMClient


class ToolRequest(BaseModel):
    """One function call the model asked for, as it wrote it."""

    id: str = ""
    name: str = ""
    arguments: str = ""  # raw JSON text from the model: it may not parse


class AssistantTurn(BaseModel):
    """The model's turn: text, tool calls, and what it cost (kept even when cached)."""

    content: str = ""
    tool_calls: list[ToolRequest] = Field(default_factory=list)
    finish_reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def message(self) -> dict[str, Any]:
        """The turn as the assistant message to append to the conversation."""
        out: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            out["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.tool_calls
            ]
        else:
            out["content"] = self.content
        return out


def complete_tools(
    client: LLMClient,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]],
    *,
    purpose: str = "",
    tool_choice: str | dict[str, Any] | None = None,
) -> AssistantTurn:
    """Ask `client`'s model for its next turn, offering `tools` (OpenAI function format)."""
    convo = [dict(m) for m in messages]
    extra: dict[str, Any] = {"tools": list(tools)}
    if tool_choice is not None:
        extra["tool_choice"] = tool_choice
    key = request_key(
        {
            "kind": "tools",
            "model": client.model,
            "api_base": client.api_base,
            "messages": convo,
            "tools": extra["tools"],
            "tool_choice": tool_choice,
            "temperature": client.temperature,
        }
    )
    hit = _from_cache(client, key, purpose)
    if hit is not None:
        return hit
    response = client._send(convo, purpose, 0, extra)
    turn = _turn(response)
    if client.cache is not None:
        client.cache.put(
            key, {"model": client.model, "purpose": purpose, "turn": turn.model_dump(mode="json")}
        )
    return turn


def _turn(response: Any) -> AssistantTurn:
    usage = getattr(response, "usage", None)
    try:
        choice = response.choices[0]
        message = choice.message
    except (AttributeError, IndexError):
        return AssistantTurn()
    calls = []
    for raw in getattr(message, "tool_calls", None) or []:
        function = getattr(raw, "function", None)
        arguments = getattr(function, "arguments", "")
        if not isinstance(arguments, str):  # some providers hand back a decoded object
            arguments = json.dumps(arguments)
        calls.append(
            ToolRequest(
                id=str(getattr(raw, "id", "") or ""),
                name=str(getattr(function, "name", "") or ""),
                arguments=arguments,
            )
        )
    content = getattr(message, "content", None)
    return AssistantTurn(
        content=content if isinstance(content, str) else "",
        tool_calls=calls,
        finish_reason=str(getattr(choice, "finish_reason", "") or ""),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )


def _from_cache(client: LLMClient, key: str, purpose: str) -> AssistantTurn | None:
    from extractors.llm.client import CallRecord

    entry = client.cache.get(key) if client.cache is not None else None
    if entry is None:
        return None
    try:
        turn = AssistantTurn.model_validate(entry.get("turn"))
    except ValidationError:  # a damaged entry is a miss
        return None
    client.usage.add(Usage(cached_calls=1))
    client.log.append(CallRecord(purpose=purpose, model=client.model, cached=True, attempts=0))
    return turn.model_copy(update={"cached": True})
