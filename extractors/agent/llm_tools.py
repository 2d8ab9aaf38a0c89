"""The setup agent's tools as a model sees them: function schemas, a dispatcher, an overview.

A model's tool call is untrusted input: its arguments may not parse, name a tool that does not
exist, or point outside the repository. `RepoTools.run` turns each of those into an error text
the model can act on (and the reviewer can read in the trace) instead of an exception, and
every path still goes through `RepoSearch`, the one place that keeps reads inside the root.
"""

from __future__ import annotations

import json
import posixpath
from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from expcurate.records import RepoIndex, ToolCall
from extractors.llm.jsonout import describe_validation_error
from extractors.repo import RepoPathError, RepoSearch, terms

from .query import TaskQuery
from .rank import Candidate

MAX_READ_LINES = 200
MAX_READ_CHARS = 12_000
MAX_LIST = 150
TRACE_CHARS = 600  # of a tool's result kept in the trace
OVERVIEW_CHARS = 6000


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListArgs(_Args):
    directory: str = ""


class SearchArgs(_Args):
    query: str = Field(min_length=1)
    regex: bool = False
    max_results: int = Field(10, ge=1, le=50)


class ReadArgs(_Args):
    path: str
    start: int = Field(1, ge=1)
    end: int | None = None


class OutlineArgs(_Args):
    path: str


class SubmitArgs(_Args):
    """The Setup fields a model fills; lenient on shape (a list of commands is joined)."""

    source: list[str] = Field(default_factory=list)
    usage_instructions: str = ""
    requirements: list[str] = Field(default_factory=list)
    masked_source: list[str] = Field(default_factory=list)
    agent_instructions: str = ""
    no_answer: str = ""

    @field_validator("usage_instructions", mode="before")
    @classmethod
    def _join_commands(cls, value: Any) -> Any:
        return "\n".join(str(v) for v in value) if isinstance(value, list) else value

    @field_validator("source", "masked_source", "requirements", mode="before")
    @classmethod
    def _split_text(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [line for line in value.splitlines() if line.strip()]
        return value


ARGS: dict[str, type[_Args]] = {
    "list": ListArgs,
    "search": SearchArgs,
    "read": ReadArgs,
    "outline": OutlineArgs,
    "submit": SubmitArgs,
}
DESCRIPTIONS = {
    "list": "Readable files under a folder of the repository ('' for all).",
    "search": "Files best matching some words, each with its best line; regex=true returns "
    "matching lines (path:line: text).",
    "read": "Numbered lines start..end (inclusive) of a file; at most "
    f"{MAX_READ_LINES} lines per call.",
    "outline": "Classes and functions of a Python file with line ranges (plus an entry "
    "point's CLI flags), or the headings of a Markdown file.",
    "submit": "Your final answer: the recovered setup of the experiment (or no_answer).",
}


def tool_schemas(names: tuple[str, ...] = tuple(ARGS)) -> list[dict[str, Any]]:
    """OpenAI function definitions, generated from the argument models so both stay in step."""
    out = []
    for name in names:
        params = ARGS[name].model_json_schema()
        params.pop("title", None)
        params.pop("description", None)
        for prop in params.get("properties", {}).values():
            prop.pop("title", None)
        out.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": DESCRIPTIONS[name],
                    "parameters": params,
                },
            }
        )
    return out


def parse_arguments(name: str, raw: str) -> tuple[_Args | None, dict[str, Any], str]:
    """(validated args, args for the trace, error for the model); exactly one of args/error."""
    shown: dict[str, Any] = {"raw": raw[:300]}
    if name not in ARGS:
        return None, shown, f"error: unknown tool {name!r}; the tools are {', '.join(ARGS)}"
    try:
        value = json.loads(raw.strip() or "{}")
    except json.JSONDecodeError as e:
        example = json.dumps({k: "..." for k in list(ARGS[name].model_fields)[:2]})
        problem = f"{e.msg} at column {e.colno}"
        return (
            None,
            shown,
            (
                f"error: the arguments of {name} are not valid JSON ({problem}); "
                f"send one JSON object, e.g. {example}"
            ),
        )
    if not isinstance(value, dict):
        return None, shown, f"error: the arguments of {name} must be a JSON object"
    try:
        return ARGS[name].model_validate(value), value, ""
    except ValidationError as e:
        return None, value, f"error: bad arguments for {name}: {describe_validation_error(e)}"


class RepoTools:
    """Runs the read-only tools for a model and renders their results as text."""

    def __init__(self, index: RepoIndex, search: RepoSearch) -> None:
        self.index = index
        self.search = search
        self.lines = {f.path: f.lines for f in index.files}
        self.entries = {e.path: e for e in index.entry_points}

    def run(self, name: str, args: _Args) -> str:
        """The tool's answer for the model; a path outside the repo becomes an error text."""
        try:
            if isinstance(args, ListArgs):
                return self._list(args.directory)
            if isinstance(args, SearchArgs):
                return self._search(args)
            if isinstance(args, ReadArgs):
                return self._read(args)
            if isinstance(args, OutlineArgs):
                return self._outline(args.path)
        except (RepoPathError, OSError) as e:
            return f"error: {e}"
        raise ValueError(f"{name} is not a repository tool")

    def _list(self, directory: str) -> str:
        files = self.search.ls(directory)
        where = directory.strip(" /") or "the repository"
        if not files:
            return f"no readable files under {where}"
        if len(files) <= MAX_LIST:
            return "\n".join(f"{p} ({self.lines.get(p, 0)} lines)" for p in files)
        base = directory.strip(" /")
        cut = len(base) + 1 if base else 0
        folders = Counter(p[cut:].split("/", 1)[0] for p in files if "/" in p[cut:])
        here = [p for p in files if "/" not in p[cut:]]
        out = [f"{len(files)} files under {where}; list a folder to see its files."]
        out += [f"{posixpath.join(base, d)}/ ({n} files)" for d, n in sorted(folders.items())]
        out += [f"{p} ({self.lines.get(p, 0)} lines)" for p in here[:MAX_LIST]]
        return "\n".join(out)

    def _search(self, args: SearchArgs) -> str:
        if args.regex:
            hits = self.search.grep(args.query, max_hits=args.max_results)
            return "\n".join(f"{p}:{n}: {line}" for p, n, line in hits) or "no matching line"
        wanted = set(terms(args.query))
        out = []
        for path, score in self.search.search(args.query, k=args.max_results):
            best = _best_line(self.search.text(path), wanted)
            where = f" line {best[0]}: {best[1]}" if best else ""
            out.append(f"{path} (score {score:.2f}){where}")
        return "\n".join(out) or "no file matches these words"

    def _read(self, args: ReadArgs) -> str:
        lines = self.search.text(args.path).splitlines()
        if args.start > len(lines):
            return f"error: {args.path} has {len(lines)} lines; start is beyond its end"
        end = min(args.end or len(lines), len(lines), args.start + MAX_READ_LINES - 1)
        if end < args.start:
            return f"error: bad line range {args.start}-{args.end}; end must be >= start"
        width = len(str(end))
        out: list[str] = []
        size = 0
        for no in range(args.start, end + 1):
            row = f"{no:>{width}}| {lines[no - 1]}"
            if size + len(row) > MAX_READ_CHARS and out:
                end = no - 1
                break
            out.append(row)
            size += len(row) + 1
        if end < len(lines):
            out.append(f"(lines {args.start}-{end} of {len(lines)}; read on from {end + 1})")
        return "\n".join(out)

    def _outline(self, path: str) -> str:
        items = self.search.outline(path)
        rel = self.search.resolve(path).relative_to(self.search.root).as_posix()
        out = [f"{kind} {name}: lines {start}-{end}" for kind, name, start, end in items]
        entry = self.entries.get(rel)
        if entry is not None:
            out.append(f"entry point ({entry.kind}) at line {entry.line}")
            if entry.parser:
                out.append(f"its options are defined in {entry.parser}:")
            out += [_flag_text(f) for f in entry.flags]
        if not out:
            n = len(self.search.text(path).splitlines())
            return f"no outline for {rel} ({n} lines); read it instead"
        return "\n".join(out)


def _best_line(text: str, wanted: set[str]) -> tuple[int, str] | None:
    best: tuple[int, int, str] | None = None
    for no, line in enumerate(text.splitlines()[:5000], start=1):
        hits = len(set(terms(line)) & wanted)
        if hits and (best is None or hits > best[0]):
            best = (hits, no, line.strip()[:160])
    return (best[1], best[2]) if best else None


def _flag_text(flag: Any) -> str:
    default = f" (default {flag.default})" if flag.default else ""
    at = f" line {flag.line}" if flag.line else ""
    helps = f": {flag.help[:80]}" if flag.help else ""
    return f"  flag {flag.name}{default}{at}{helps}"


def trace_entry(tool: str, args: dict[str, Any], result: str) -> ToolCall:
    text = result if len(result) <= TRACE_CHARS else result[: TRACE_CHARS - 4] + " ..."
    return ToolCall(tool=tool, args=args, result=text)


# ---------------------------------------------------------------- overview


def overview(index: RepoIndex, search: RepoSearch, q: TaskQuery, ranked: list[Candidate]) -> str:
    """What a person opening the repository sees first, ordered by the task's words."""
    files = search.readable
    commit = f" at commit {index.commit[:10]}" if index.commit else ""
    parts = [f"{len(files)} readable files{commit}."]
    folders = Counter(p.split("/", 1)[0] + "/" for p in files if "/" in p)
    top = [p for p in files if "/" not in p]
    if folders:
        parts.append("Folders: " + ", ".join(f"{d} ({n})" for d, n in sorted(folders.items())[:30]))
    if top:
        parts.append("Top-level files: " + ", ".join(top[:30]))
    wanted = q.terms
    unique = {c.text: c for c in reversed(index.commands)}.values()  # first place it is written
    commands = sorted(unique, key=lambda c: (-len(set(terms(c.text)) & wanted), c.doc, c.line))
    if commands:
        parts.append("Commands written in the docs:")
        parts += [f"  {c.doc}:{c.line}: {c.text[:160]}" for c in commands[:15]]
    score = {c.path: c.score for c in ranked}
    entries = sorted(
        (e for e in index.entry_points if e.runnable),
        key=lambda e: (-score.get(e.path, 0.0), e.path),
    )
    programs = [e for e in entries if e.kind != "shell"][:10]
    scripts = [e for e in entries if e.kind == "shell"][:15]
    if programs:
        parts.append("Programs (kind: flags with defaults):")
        for e in programs:
            flags = ", ".join(f.name + (f"={f.default}" if f.default else "") for f in e.flags[:12])
            more = f" (+{len(e.flags) - 12} more)" if len(e.flags) > 12 else ""
            parts.append(f"  {e.path} ({e.kind}): {flags}{more}".rstrip(": "))
    if scripts:
        parts.append("Launch scripts (best match first):")
        for e in scripts:
            runs = f" runs {', '.join(e.calls[:3])}" if e.calls else ""
            parts.append(f"  {e.path}{runs}")
    if ranked:
        parts.append("Files whose text and names best match the task (a hint, not an answer):")
        parts += [f"  {c.path} ({c.kind})" for c in ranked[:8]]
    text = "\n".join(parts)
    return text if len(text) <= OVERVIEW_CHARS else text[: OVERVIEW_CHARS - 4] + " ..."
