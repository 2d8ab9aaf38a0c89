"""Write a release in the EXP-Bench harness layout.

    NAME/outputs/logs/<conference>/<paper id>/<paper id>_complete_final.json
    NAME/papers.jsonl        one paper per line: id, title, pdf_url, code_url (+ commit)
    NAME/tasks.jsonl         one task per line with its provenance and masking
    NAME/masked/<paper id>/<index>.mask.patch     deletes the task's masked files
    NAME/masked/<paper id>/<index>.restore.patch  the ground truth: restores them
    NAME/README.md           how a harness uses the patches
    NAME/manifest.json       every file with its sha256

Output is a pure function of the approved tasks: no timestamps, sorted, so re-exporting the
same tasks gives byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from pydantic import Field

from expcurate.records import ExpBenchFile, PaperListEntry
from extractors.package.mask import MaskPatches
from extractors.package.tasks_file import tasks_file_text

HARNESS_NOTES = """\
# ExpCurate release

`outputs/logs/<conference>/<paper>/<paper>_complete_final.json` and `papers.jsonl` follow
EXP-Bench's harness layout. Paths in tasks are relative to the repository root (EXP-Bench's
own files write them under `/workspace/`, where its harness mounts the repository).

## Building a task's starter repository

For task `<index>` of paper `<paper>` (its line in `tasks.jsonl` gives `provenance.repo_commit`):

1. Check out the paper's `code_url` at `commit` (from `papers.jsonl`), never the default branch.
2. `git apply masked/<paper>/<index>.mask.patch`: deletes the masked files (and any file a
   reviewer chose to hide because it leaked the answer).
3. Give the agent a fresh repository of that tree (`rm -rf .git && git init && git add -A &&
   git commit`): the original history still holds the masked files.

`masked/<paper>/<index>.restore.patch` is the ground truth: `git apply` on the masked tree gives
back the original files exactly. A task without patches masks nothing (see `masking` in
`tasks.jsonl` for why). `manifest.json` lists every file with its sha256.
"""


class ReleasePaper(PaperListEntry):
    """A paper of a release: its line of `papers.jsonl`, and what goes in its folders."""

    pdf_sha256: str = ""
    tasks: ExpBenchFile
    provenance: list[dict[str, Any]] = Field(default_factory=list)  # one per task, same order
    # One per task, same order: the patches, or the reason there are none.
    masks: list[MaskPatches | str] = Field(default_factory=list)


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_masks(out_dir: Path, paper: ReleasePaper, index: int) -> dict[str, Any]:
    mask = paper.masks[index] if index < len(paper.masks) else "no masking computed"
    if isinstance(mask, str):
        return {"patches": False, "note": mask}
    if not mask.files:
        return {"patches": False, "note": "nothing to mask", "commit": mask.commit}
    folder = out_dir / "masked" / paper.id
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for kind, text in (("mask", mask.mask), ("restore", mask.restore)):
        path = folder / f"{index}.{kind}.patch"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        paths[f"{kind}_patch"] = path.relative_to(out_dir).as_posix()
    return {"patches": True, "commit": mask.commit, "files": mask.files, **paths}


def _beside(out_dir: Path, what: str) -> Path:
    return out_dir.parent / f".{out_dir.name}.{what}"


class ReleaseUnreadable(ValueError):
    """A release folder whose files are missing or not what `write_release` writes."""


def read_release(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A release folder's paper lines and task lines (`papers.jsonl`, `tasks.jsonl`), or
    ReleaseUnreadable naming the file and line that is not a JSON object."""
    return _records(folder / "papers.jsonl"), _records(folder / "tasks.jsonl")


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise ReleaseUnreadable(f"{path} is missing: is this a release folder?")
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines()):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise ReleaseUnreadable(f"{path}, line {number + 1}: not JSON ({exc})") from None
        if not isinstance(record, dict):
            raise ReleaseUnreadable(f"{path}, line {number + 1}: not a JSON object")
        out.append(record)
    return out


def write_release(papers: list[ReleasePaper], out_dir: Path) -> dict[str, Any]:
    """Write (or rewrite) a release folder; returns the manifest.

    The release is built in a hidden folder beside `out_dir` and swapped in by renames: the
    previous release stays whole until the new one is complete. A kill while building leaves
    the previous release as it was; a kill between the two renames leaves it under
    `.<name>.previous`, which the next write puts back first."""
    staging, previous = _beside(out_dir, "staging"), _beside(out_dir, "previous")
    if previous.exists() and not out_dir.exists():
        previous.rename(out_dir)  # killed mid-swap last time: the last good release returns
    shutil.rmtree(staging, ignore_errors=True)  # a build a kill cut short
    staging.mkdir(parents=True)
    manifest = _write_release(papers, staging)
    shutil.rmtree(previous, ignore_errors=True)
    if out_dir.exists():
        out_dir.rename(previous)
    staging.rename(out_dir)
    shutil.rmtree(previous, ignore_errors=True)
    return manifest


def _write_release(papers: list[ReleasePaper], out_dir: Path) -> dict[str, Any]:
    paper_lines, task_lines = [], []
    for paper in sorted(papers, key=lambda p: (p.conference, p.id)):
        folder = out_dir / "outputs" / "logs" / paper.conference / paper.id
        folder.mkdir(parents=True, exist_ok=True)
        body = paper.tasks.model_dump(mode="json")
        (folder / f"{paper.id}_complete_final.json").write_text(tasks_file_text(paper.tasks))
        paper_lines.append(json.dumps(paper.entry(), ensure_ascii=False))
        for i, (task, prov) in enumerate(zip(body["questions"], paper.provenance, strict=True)):
            row = {
                "paper": paper.id,
                "index": i,
                **task,
                "provenance": prov,
                "masking": _write_masks(out_dir, paper, i),
            }
            task_lines.append(json.dumps(row, ensure_ascii=False, sort_keys=True))
    (out_dir / "papers.jsonl").write_text("".join(line + "\n" for line in paper_lines))
    (out_dir / "tasks.jsonl").write_text("".join(line + "\n" for line in task_lines))
    (out_dir / "README.md").write_text(HARNESS_NOTES)
    files = sorted(p for p in out_dir.rglob("*") if p.is_file())
    manifest = {
        "papers": len(papers),
        "tasks": len(task_lines),
        "files": {p.relative_to(out_dir).as_posix(): _sha(p) for p in files},
    }
    (out_dir / "manifest.json").write_text(_dump(manifest))
    return manifest
