"""Entry point of the child process of `parse_pdf_isolated`: `python -m extractors.paper._child
REQUEST.json RESULT.json`.

It caps its own address space (so an allocation beyond the limit fails inside the parse
instead of taking the machine down), runs `parse_pdf` and writes one JSON answer: the parsed
paper, a load error, a memory error or an unexpected exception with its traceback.
"""

from __future__ import annotations

import contextlib
import json
import sys
import traceback
from pathlib import Path

from extractors.paper.errors import PaperLoadError
from extractors.paper.limits import MB, NO_MEMORY, STAGE
from extractors.paper.parse import parse_pdf

try:
    import resource
except ImportError:  # Windows has no `resource`
    resource = None  # type: ignore[assignment]


def _limit_memory(max_memory_mb: int) -> None:
    """Allow `max_memory_mb` of address space beyond what the interpreter already maps."""
    if resource is None:
        return  # Windows: only the wall-clock limit applies
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
        base = pages * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        base = 0  # not Linux: the limit then counts the interpreter too
    limit = base + max_memory_mb * MB
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    # Where the platform refuses, the wall-clock limit still holds.
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _answer(request: dict) -> dict:
    _limit_memory(int(request["max_memory_mb"]))
    try:
        paper = parse_pdf(
            Path(request["path"]),
            Path(request["images_dir"]) if request["images_dir"] else None,
            max_pages=int(request["max_pages"]),
            deadline_s=request["deadline_s"],
            max_image_mb=float(request["max_image_mb"]),
        )
    except MemoryError:
        return {"kind": "memory"}
    except PaperLoadError as exc:
        if isinstance(exc.__cause__, MemoryError) or NO_MEMORY.search(str(exc)):
            return {"kind": "memory"}  # MuPDF could not allocate while opening
        return {"kind": "load_error", "message": str(exc)}
    except Exception as exc:
        if NO_MEMORY.search(str(exc)):
            return {"kind": "memory"}
        return {"kind": "error", "message": str(exc), "traceback": traceback.format_exc()}
    hits = [e for e in paper.errors if NO_MEMORY.search(e.message)]
    if hits:
        pages = sorted({e.page for e in hits if e.page})
        paper.add_error(
            STAGE,
            "memory_limit",
            f"{len(hits)} part(s) of the paper (pages {pages or '?'}) ran out of memory; "
            "raise EXPCURATE_PARSE_MAX_MEMORY_MB",
        )
    return {"kind": "paper", "paper": paper.model_dump(mode="json")}


def main(argv: list[str]) -> int:
    request_path, result_path = Path(argv[0]), Path(argv[1])
    answer = _answer(json.loads(request_path.read_text(encoding="utf-8")))
    tmp = result_path.with_suffix(".part")
    tmp.write_text(json.dumps(answer), encoding="utf-8")
    tmp.replace(result_path)  # the parent never reads half an answer
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
