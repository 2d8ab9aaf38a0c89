"""Tool calling: one assistant turn of a conversation in which the model may call functions.

The caller runs the loop (it owns the tools and their confinement); this module only asks for
the next turn with OpenAI-style `tools` (`LLMClient.complete_tools`, which brings the spending
cap, retries, token and cost accounting) and reads the answer into an `AssistantTurn`. A turn
is cached under the *whole* request (`turn_key`), every earlier message and tool result
included, so a re-run over the same repository replays the same conversation at no cost,
while any change (a new commit, another prompt) asks the model again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from extractors.llm.cache import request_key


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


def turn_from_response(response: Any) -> AssistantTurn:
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


def turn_key(
    model: str,
    api_base: str | None,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]],
    tool_choice: str | dict[str, Any] | None,
    temperature: float,
) -> str:
    """The cache key of a turn: the whole request, so any change asks the model again."""
    return request_key(
        {
            "kind": "tools",
            "model": model,
            "api_base": api_base,
            "messages": list(messages),
            "tools": list(tools),
            "tool_choice": tool_choice,
            "temperature": temperature,
        }
    )
