"""EXP-Bench's tasks file (`<id>_complete_final.json`): the one reader and the one writer.

Every command and stage that reads or writes the format comes here: `import-expbench`, the
`draft`, `setup` and `usage-tasks` commands, and the release writer. Reading repairs the known
inconsistencies of published files (see `extractors.validate.schema`) and reports, never
raises, what could not be read. `read_expbench` accepts one `<id>_complete_final.json`, a folder holding them (in the harness layout
`outputs/logs/<conference>/<id>/…` or flat), or a paper list (JSONL) whose papers' files sit
in or under the list's folder. Paper ids come from file names; the conference from the
harness folder, else the paper list. What could not be read is reported, never raised, so one
broken file does not stop the others.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from expcurate.records import ExpBenchFile, FollowUpIdea, PaperListEntry, StageError, TaskFields
from extractors.validate import normalise_task

SUFFIX = "_complete_final.json"


class ImportedTask(BaseModel):
    index: int
    fields: TaskFields
    repairs: list[str] = Field(default_factory=list)  # what import changed, for the reviewer


class ImportedPaper(PaperListEntry):
    """A paper read from EXP-Bench files: its paper-list line and its tasks."""

    pdf_url: str = ""
    code_url: str = ""
    repo: str = ""  # owner/name, when the paper list gives it
    commit: str = ""
    source_file: str = ""
    sha256: str = ""
    tasks: list[ImportedTask] = Field(default_factory=list)
    main_takeaways: list[str] = Field(default_factory=list)
    follow_up_work_ideas: list[FollowUpIdea] = Field(default_factory=list)


class ExpBenchImport(BaseModel):
    papers: list[ImportedPaper] = Field(default_factory=list)
    listed_without_file: list[str] = Field(default_factory=list)  # paper ids
    errors: list[StageError] = Field(default_factory=list)


def task_key(index: int) -> str:
    """Imported tasks are keyed by their place in the file, stable across re-imports."""
    return f"expbench-{index}"


def _paper_entries(path: Path, errors: list[StageError]) -> dict[str, dict[str, Any]]:
    """Lines of a paper list that are papers (id plus a pdf or code URL); others are skipped."""
    out: dict[str, dict[str, Any]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(StageError(stage="import", category="read", message=str(exc), file=str(path)))
        return out
    for line in lines:
        try:
            data = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "id" in data and ("pdf_url" in data or "code_url" in data):
            out[str(data["id"])] = data
    return out


def _text_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in value]
    return [str(value)]


def _ideas(value: Any) -> list[FollowUpIdea]:
    out = []
    for item in value if isinstance(value, list) else _text_list(value):
        if isinstance(item, str):
            out.append(FollowUpIdea(idea=item))
        elif isinstance(item, dict):
            try:
                out.append(FollowUpIdea.model_validate({**item, "idea": str(item.get("idea", ""))}))
            except ValidationError:
                out.append(FollowUpIdea(idea=json.dumps(item, ensure_ascii=False)))
    return out


def _conference(path: Path, paper_id: str) -> str:
    """`…/<conference>/<id>/<id>_complete_final.json` in the harness layout."""
    if path.parent.name == paper_id and path.parent.parent != path.parent:
        name = path.parent.parent.name
        return "" if name in ("logs", "outputs", "") else name
    return ""


def tasks_file_text(file: ExpBenchFile) -> str:
    """The file as written everywhere: indented JSON, UTF-8 as is, a final newline."""
    return json.dumps(file.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def parse_tasks(
    body: Any, source: str, errors: list[StageError], *, keep_keys: bool = False
) -> tuple[list[ImportedTask], list[str], list[FollowUpIdea]] | None:
    """The tasks, takeaways and ideas of a decoded file; None when it is not a tasks file.

    Tasks are keyed by their place in the file; with `keep_keys`, a task's own `key` (files
    our `draft` command wrote) wins, so a chain of commands keeps one key per task.
    """
    if isinstance(body, list):
        body = {"questions": body}
    if not isinstance(body, dict) or not isinstance(body.get("questions"), list):
        errors.append(
            StageError(
                stage="import",
                category="format",
                message="expected an object with a 'questions' list",
                file=source,
            )
        )
        return None
    tasks = []
    for i, raw in enumerate(body["questions"]):
        if not isinstance(raw, dict):
            errors.append(
                StageError(
                    stage="import",
                    category="format",
                    message=f"question {i} is {type(raw).__name__}, not an object",
                    file=source,
                )
            )
            continue
        data, repairs = normalise_task(raw)
        data["key"] = str((keep_keys and raw.get("key")) or task_key(i))
        try:
            fields = TaskFields.model_validate(data)
        except ValidationError as exc:
            errors.append(
                StageError(
                    stage="import",
                    category="schema",
                    message=f"question {i}: {str(exc).splitlines()[0]}",
                    file=source,
                )
            )
            continue
        tasks.append(ImportedTask(index=i, fields=fields, repairs=repairs))
    return tasks, _text_list(body.get("main_takeaways")), _ideas(body.get("follow_up_work_ideas"))


def read_tasks_file(
    path: Path, entry: dict[str, Any] | None, errors: list[StageError]
) -> ImportedPaper | None:
    paper_id = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem
    raw_bytes = path.read_bytes()
    try:
        body = json.loads(raw_bytes)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        errors.append(StageError(stage="import", category="json", message=str(exc), file=str(path)))
        return None
    parsed = parse_tasks(body, str(path), errors)
    if parsed is None:
        return None
    tasks, takeaways, ideas = parsed
    entry = entry or {}
    return ImportedPaper(
        id=paper_id,
        conference=_conference(path, paper_id)
        or str(entry.get("conference") or entry.get("conf") or ""),
        title=str(entry.get("title") or ""),
        pdf_url=str(entry.get("pdf_url") or ""),
        code_url=str(entry.get("code_url") or ""),
        repo=str(entry.get("repo") or ""),
        commit=str(entry.get("commit") or ""),
        source_file=str(path),
        sha256=hashlib.sha256(raw_bytes).hexdigest(),
        tasks=tasks,
        main_takeaways=takeaways,
        follow_up_work_ideas=ideas,
    )


def read_expbench(path: Path) -> ExpBenchImport:
    """Every paper found at `path` (a tasks file, a folder, or a paper list)."""
    result = ExpBenchImport()
    if not path.exists():
        result.errors.append(
            StageError(stage="import", category="missing", message="not found", file=str(path))
        )
        return result
    entries: dict[str, dict[str, Any]] = {}
    if path.is_dir():
        task_files = sorted(path.rglob(f"*{SUFFIX}"))
        for jsonl in sorted(path.rglob("*.jsonl")):
            entries.update(_paper_entries(jsonl, result.errors))
    elif path.suffix == ".jsonl":
        entries = _paper_entries(path, result.errors)
        task_files = sorted(path.parent.rglob(f"*{SUFFIX}"))
        task_files = [f for f in task_files if f.name[: -len(SUFFIX)] in entries]
    else:
        task_files = [path]
        for jsonl in sorted(path.parent.glob("*.jsonl")):
            entries.update(_paper_entries(jsonl, result.errors))
    seen: set[str] = set()
    for file in task_files:
        paper_id = file.name[: -len(SUFFIX)] if file.name.endswith(SUFFIX) else file.stem
        if paper_id in seen:
            result.errors.append(
                StageError(
                    stage="import",
                    category="duplicate",
                    message=f"paper {paper_id} appears twice; kept the first file",
                    file=str(file),
                )
            )
            continue
        paper = read_tasks_file(file, entries.get(paper_id), result.errors)
        if paper is not None:
            seen.add(paper_id)
            result.papers.append(paper)
    if path.suffix == ".jsonl" or path.is_dir():
        result.listed_without_file = sorted(set(entries) - seen)
    return result
