"""Config values and result numbers: where a task's hyperparameters and outcomes live in a repo.

Configs are flattened to dotted keys (`optimizer.lr -> "0.001"`) so a task's "lr = 1e-3" can
be matched to the file that sets it; result and log files keep the numbers they contain so a
paper's reported value can be traced to the run that produced it.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from expcurate.records import CliFlag

from .pysource import flatten

try:  # PyYAML comes with prefect; the small reader below covers its absence.
    import yaml
except ImportError:  # pragma: no cover - exercised only without PyYAML
    yaml = None  # type: ignore[assignment]

CONFIG_EXTS = (".yaml", ".yml", ".json", ".toml")
RESULT_DIRS = frozenset(
    {"results", "result", "logs", "log", "outputs", "output", "runs", "eval_results", "records"}
)
RESULT_EXTS = (".csv", ".tsv", ".txt", ".json", ".log", ".out")
_NOT_CONFIGS = {"package.json", "package-lock.json", "tsconfig.json", ".pre-commit-config.yaml"}
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?%?(?![\w])")
MAX_NUMBERS = 1000


def is_result_file(path: str) -> bool:
    lower = path.lower()
    if lower.endswith((".log", ".out")):
        return True
    parts = lower.split("/")
    return lower.endswith(RESULT_EXTS) and any(p in RESULT_DIRS for p in parts[:-1])


def is_config_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return name.endswith(CONFIG_EXTS) and name not in _NOT_CONFIGS and not is_result_file(path)


def parse_config(path: str, text: str) -> tuple[dict[str, str], str]:
    """(flattened values, problem) for a YAML, JSON or TOML file."""
    lower = path.lower()
    data: Any
    try:
        if lower.endswith(".json"):
            data = json.loads(text)
        elif lower.endswith(".toml"):
            data = tomllib.loads(text)
        else:
            data = _load_yaml(text)
    except (ValueError, TypeError, RecursionError) as exc:
        return (
            {},
            f"could not parse: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}",
        )
    flat: dict[str, str] = {}
    flatten(data, "", flat)
    return flat, ""


def _load_yaml(text: str) -> Any:
    if yaml is not None:
        try:
            docs = [d for d in yaml.safe_load_all(text) if d is not None]
            return docs[0] if len(docs) == 1 else docs
        except yaml.YAMLError:
            pass  # custom tags or templating: the tolerant reader still gets the plain keys
    return tolerant_yaml(text)


def tolerant_yaml(text: str) -> dict[str, Any]:
    """Indentation-based `key: value` reader for YAML that a strict parser rejects."""
    root: dict[str, Any] = {}
    stack: list[tuple[int, dict[str, Any]]] = [(-1, root)]
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith(("#", "-", "---", "...")):
            continue
        m = re.match(r"^(\s*)([^:#]+?):(?:\s+(.*))?$", raw.rstrip())
        if not m:
            continue
        indent, key, value = len(m.group(1)), m.group(2).strip().strip("'\""), m.group(3)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else root
        if value is None or value.strip() == "" or value.strip().startswith("#"):
            child: dict[str, Any] = {}
            parent[key] = child
            stack.append((indent, child))
        else:
            parent[key] = re.sub(r"\s+#.*$", "", value).strip().strip("'\"")
    return root


def numbers_in(text: str, limit: int = MAX_NUMBERS) -> list[str]:
    """Distinct numbers in order of appearance, at most `limit`."""
    seen: dict[str, None] = {}
    for m in _NUMBER.finditer(text):
        seen.setdefault(m.group(0).lstrip("+"), None)
        if len(seen) >= limit:
            break
    return list(seen)


_TOP_KEY = re.compile(r"""^["']?([A-Za-z_][\w-]*)["']?\s*:(.*)$""")
_LISTED = re.compile(r"\s*(?:/|\||,|\bor\b)\s*")


def config_options(path: str, text: str, at: int = 0) -> list[CliFlag]:
    """A config file's top-level scalar keys as the options a program adds from it, each with
    its value as the default and its comment as help; a comment listing alternatives
    ("# ResNet18 / ResNet34 / ResNet50") is said as the values it lists. `at` is the line of
    the options (the config's own key lines when 0)."""
    values, problem = parse_config(path, text)
    if problem:
        return []
    out: list[CliFlag] = []
    lines = text.splitlines()
    if path.lower().endswith(".json"):  # its top-level keys are the least indented
        indents = [len(x) - len(x.lstrip()) for x in lines if re.match(r'\s*"[\w-]+"\s*:', x)]
        top = min(indents, default=0)
        lines = [x[top:] if len(x) - len(x.lstrip()) == top else " " + x for x in lines]
    for number, raw in enumerate(lines, start=1):
        m = _TOP_KEY.match(raw)
        if not m or m.group(1) not in values:  # nested or a list: no option of its own
            continue
        key, rest = m.group(1), m.group(2)
        comment = rest.split(" #", 1)[1].strip() if " #" in rest else ""
        help_text = comment
        listed = [w.strip("'\"") for w in _LISTED.split(comment) if w.strip()]
        if len(listed) >= 2 and all(len(w.split()) == 1 and len(w) <= 40 for w in listed):
            help_text = f"{comment} (values its comment lists: {listed!r})"
        out.append(
            CliFlag(name=f"--{key}", default=values[key], help=help_text[:300], line=at or number)
        )
    return out
