"""EXP-Bench's task schema on raw dicts: what deviates, and the repairs import makes.

Published EXP-Bench files drift from their own schema: `hypothesis` for `question`,
`design_complexity` wrapped in itself, `experiment_design_complexity` beside (or instead of)
`design_complexity`, strings where the harness expects lists, `/workspace/` path prefixes.
`check_schema` names every deviation of a raw task; `normalise_task` repairs the ones whose
meaning is clear and says what it changed, so an imported task is stored in one shape and the
reviewer still sees what the file had.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from expcurate.records import Flag, Severity
from expcurate.records.refs import repo_path, strip_workspace_refs
from expcurate.records.task import (
    CORE_FIELDS,
    DESIGN_PARTS,
    LIST_FIELDS,
    PATH_FIELDS,
    TEXT_FIELDS,
)
from extractors.validate.catalog import flag

CORE = CORE_FIELDS
# Names seen in published files -> the name EXP-Bench's schema uses.
ALIASES = {
    "hypothesis": "question",
    "experiment_design_complexity": "design_complexity",
    "experiment_design_ambiguity": "design_ambiguity",
    "setup_ambiguity": "experiment_setup_ambiguity",
}
# Annotations published wrapped in a parent key -> the parts EXP-Bench keeps at top level.
WRAPPERS = {"experiment_uncertainty": ("random_uncertainty", "systematic_uncertainty")}


def _wrapped(value: Any) -> bool:
    return isinstance(value, dict) and "design_complexity" in value


def check_schema(raw: Mapping[str, Any]) -> list[Flag]:
    """Deviations of one raw task from the published schema (errors: the harness misreads it)."""
    problems: list[tuple[Severity, str]] = []
    for old, new in ALIASES.items():
        if old in raw:
            severity = Severity.error if new in CORE and new not in raw else Severity.warning
            problems.append((severity, f"field {old!r} should be named {new!r}"))
    for wrapper, parts in WRAPPERS.items():
        if wrapper in raw:
            problems.append((Severity.warning, f"{' and '.join(parts)} are wrapped in {wrapper!r}"))
    if "question" not in raw and "hypothesis" not in raw:
        problems.append((Severity.error, "no 'question' field"))
    for name in TEXT_FIELDS:
        if name in raw and not isinstance(raw[name], str):
            problems.append((Severity.error, f"{name} is {type(raw[name]).__name__}, not text"))
    for name in LIST_FIELDS:
        value = raw.get(name)
        if name in raw and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            problems.append((Severity.error, f"{name} is not a list of strings"))
    dc = raw.get("design_complexity", raw.get("experiment_design_complexity"))
    if dc is None:
        problems.append((Severity.error, "no 'design_complexity' field"))
    elif _wrapped(dc):
        problems.append((Severity.error, "design_complexity is wrapped twice"))
    elif not isinstance(dc, dict):
        problems.append((Severity.error, "design_complexity is not an object"))
    else:
        bad = [p for p in DESIGN_PARTS if p in dc and not isinstance(dc[p], dict)]
        if bad:
            problems.append((Severity.error, f"design_complexity parts not objects: {bad}"))
    out = []
    for severity in (Severity.error, Severity.warning):
        found = [text for s, text in problems if s == severity]
        if found:
            out.append(flag("schema", severity, "; ".join(found)))
    return out


# ------------------------------------------------------------------ repairs


def _as_list(value: Any, *, lines: bool) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        parts = value.splitlines() if lines else re.split(r"[,\n]", value)
        return [p.strip() for p in parts if p.strip()]
    if isinstance(value, list | tuple):
        return [v if isinstance(v, str) else str(v) for v in value if v is not None]
    return [str(value)]


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return "\n".join(str(v) for v in value)
    return value if isinstance(value, str) else str(value)


def _design(value: Any, repairs: list[str]) -> dict[str, Any]:
    while _wrapped(value):
        inner = value["design_complexity"]
        others = {k: v for k, v in value.items() if k != "design_complexity" and v}
        if others:
            break
        value = inner
        repairs.append("unwrapped design_complexity nested in itself")
    if not isinstance(value, dict):
        if value not in (None, "", [], {}):
            repairs.append(f"dropped a design_complexity that was {type(value).__name__}")
        return {}
    out = dict(value)
    for part in DESIGN_PARTS:
        got = out.get(part)
        if isinstance(got, list):
            out[part] = {str(v): "" for v in got}
            repairs.append(f"design_complexity.{part} was a list; kept its names as keys")
        elif isinstance(got, str):
            out[part] = {got: ""} if got.strip() else {}
            repairs.append(f"design_complexity.{part} was text; kept it as one name")
        elif got is None:
            out[part] = {}
    return out


def normalise_task(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """One task in the stored shape, and what had to change (empty when the task was clean).

    Fields outside the schema (annotations such as `mode` or `design_ambiguity`) are kept.
    """
    data = dict(raw)
    repairs: list[str] = []
    for old, new in ALIASES.items():
        if old not in data:
            continue
        value = data.pop(old)
        if new not in data:
            data[new] = value
            repairs.append(f"renamed {old} to {new}")
        elif data[new] == value:
            repairs.append(f"dropped {old}, a copy of {new}")
        else:
            data[old] = value  # two different versions: keep both, the reviewer picks
            repairs.append(f"kept {old} beside {new}: they differ (the harness reads {new})")
    for wrapper, parts in WRAPPERS.items():
        inner = data.get(wrapper)
        if isinstance(inner, dict) and any(p in inner for p in parts):
            data.pop(wrapper)
            for p in parts:
                if p in inner and p not in data:
                    data[p] = inner[p]
            repairs.append(f"unwrapped {' and '.join(parts)} from {wrapper}")
    missing = [n for n in CORE if n not in data]
    if missing:
        repairs.append(f"added missing {', '.join(missing)} (empty)")
    for name in TEXT_FIELDS:
        value = data.get(name)
        if name in data and not isinstance(value, str) and value is not None:
            repairs.append(f"{name} was {type(value).__name__}; joined into text")
        data[name] = _as_text(value).strip() if name == "question" else _as_text(value)
    for name in dict.fromkeys((*LIST_FIELDS, *PATH_FIELDS)):
        value = data.get(name)
        if isinstance(value, str) and value.strip():
            repairs.append(f"{name} was text; split into a list")
        elif isinstance(value, list) and not all(isinstance(v, str) for v in value):
            repairs.append(f"{name} held non-text items; turned into text")
        data[name] = _as_list(value, lines=name == "requirements")
    for name in PATH_FIELDS:
        data[name] = [repo_path(p) for p in data[name]]
    data["requirements"] = [strip_workspace_refs(s) for s in data["requirements"]]
    data["design_complexity"] = _design(data.get("design_complexity"), repairs)
    return data, repairs
