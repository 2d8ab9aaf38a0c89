"""The LLM layer: every model call goes through `LLMClient` (litellm underneath).

    client = make_client(settings)             # None when settings.model == "heuristic"
    answer = client.complete_json(messages, MySchema, images=[png], purpose="classify")
    client.usage                                # tokens, cost, latency, cache hits
    turn = client.complete_tools(messages, tools)  # one turn of a tool-using loop

Errors: `PrerequisiteError` (configuration: missing/rejected key, unknown model),
`LLMError` (one unusable answer), `LLMUnavailable` (provider keeps failing),
`BudgetExceeded` (EXPCURATE_BUDGET_USD reached). Prompts live in versioned files read by
`load_prompt`.
"""

from extractors.llm.client import CallRecord, LLMClient, make_client
from extractors.llm.errors import BudgetExceeded, LLMError, LLMUnavailable, PrerequisiteError
from extractors.llm.jsonout import extract_json
from extractors.llm.prompts import Prompt, combined_version, load_prompt
from extractors.llm.tools import AssistantTurn, ToolRequest

__all__ = [
    "AssistantTurn",
    "BudgetExceeded",
    "CallRecord",
    "LLMClient",
    "LLMError",
    "LLMUnavailable",
    "PrerequisiteError",
    "Prompt",
    "ToolRequest",
    "combined_version",
    "extract_json",
    "load_prompt",
    "make_client",
]
