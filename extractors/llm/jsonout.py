"""Reading a JSON object out of a model's answer, and saying precisely what was wrong with it.

Models wrap JSON in code fences, put a sentence before it, or think aloud in `<think>` blocks;
all of that is tolerated here so that only a genuinely malformed answer costs a repair call.
The error texts are written for the model: they are sent back to it in the repair turn.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


class AnswerFormatError(ValueError):
    """The answer holds no parseable JSON object."""


def extract_json(text: str) -> Any:
    """The JSON object `text` holds (whole, fenced, or after leading prose); raises
    `AnswerFormatError` with the parser's complaint."""
    text = _THINK.sub("", text or "").strip()
    if not text:
        raise AnswerFormatError("the answer was empty")
    candidates = [text] + [m.group(1).strip() for m in _FENCE.finditer(text)]
    first_error = ""
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError as e:
            first_error = first_error or f"{e.msg} at line {e.lineno} column {e.colno}"
            continue
        if isinstance(value, dict):
            return value
    # Leading or trailing prose: the object opening at the first brace, and only that one. An
    # inner object of a broken or cut-off answer ("{... "items": [{}, {") is not the answer.
    start = text.find("{")
    if start < 0:
        raise AnswerFormatError("the answer contains no JSON object")
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as e:
        raise AnswerFormatError(
            f"the JSON object is malformed or cut off ({e.msg} at line {e.lineno} column {e.colno})"
        ) from None
    if not isinstance(value, dict):
        raise AnswerFormatError("the answer's JSON is not an object")
    return value


def describe_validation_error(error: ValidationError, limit: int = 10) -> str:
    """Pydantic's errors as `field.path: message` lines a model can act on."""
    lines = []
    for item in error.errors()[:limit]:
        loc = ".".join(str(part) for part in item["loc"]) or "(top level)"
        lines.append(f"{loc}: {item['msg']}")
    more = len(error.errors()) - limit
    if more > 0:
        lines.append(f"(and {more} more problems)")
    return "; ".join(lines)
