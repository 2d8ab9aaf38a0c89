"""Write a release in the EXP-Bench harness layout.

    NAME/outputs/logs/<conference>/<paper id>/<paper id>_complete_final.json
    NAME/papers.jsonl        one paper per line: id, title, pdf_url, code_url (+ commit)
    NAME/tasks.jsonl         one task per line with its provenance
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

from pydantic import BaseModel, Field

from expcurate.records import ExpBenchFile


class ReleasePaper(BaseModel):
    paper_id: str
    conference: str
    title: str = ""
    pdf_url: str = ""
    code_url: str = ""
    commit: str = ""
    pdf_sha256: str = ""
    tasks: ExpBenchFile
    provenance: list[dict[str, Any]] = Field(default_factory=list)  # one per task, same order


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_release(papers: list[ReleasePaper], out_dir: Path) -> dict[str, Any]:
    """Write (or rewrite) a release folder; returns the manifest."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    paper_lines, task_lines = [], []
    for paper in sorted(papers, key=lambda p: (p.conference, p.paper_id)):
        folder = out_dir / "outputs" / "logs" / paper.conference / paper.paper_id
        folder.mkdir(parents=True, exist_ok=True)
        body = paper.tasks.model_dump(mode="json")
        (folder / f"{paper.paper_id}_complete_final.json").write_text(_dump(body))
        paper_lines.append(
            json.dumps(
                {
                    "id": paper.paper_id,
                    "conference": paper.conference,
                    "title": paper.title,
                    "pdf_url": paper.pdf_url,
                    "code_url": paper.code_url,
                    "commit": paper.commit,
                },
                ensure_ascii=False,
            )
        )
        for i, (task, prov) in enumerate(zip(body["questions"], paper.provenance, strict=True)):
            row = {"paper": paper.paper_id, "index": i, **task, "provenance": prov}
            task_lines.append(json.dumps(row, ensure_ascii=False, sort_keys=True))
    (out_dir / "papers.jsonl").write_text("".join(line + "\n" for line in paper_lines))
    (out_dir / "tasks.jsonl").write_text("".join(line + "\n" for line in task_lines))
    files = sorted(p for p in out_dir.rglob("*") if p.is_file())
    manifest = {
        "papers": len(papers),
        "tasks": len(task_lines),
        "files": {p.relative_to(out_dir).as_posix(): _sha(p) for p in files},
    }
    (out_dir / "manifest.json").write_text(_dump(manifest))
    return manifest
