"""Parse a PDF in a child process with a hard time and memory limit.

`parse_pdf` stops itself at its deadline, but a single MuPDF call can still run long or
allocate gigabytes on a hostile file, and no in-process check can interrupt that. The child
(`python -m extractors._parse_child`, which runs `extractors.paper._child`) caps its own
address space with RLIMIT_AS and gets the same deadline; the parent kills it at the deadline plus a grace period. Whatever happens
in the child, the parent returns a `ParsedPaper` (a killed or out-of-memory child gives
status `failed` with `time_limit` / `memory_limit`) or raises `PaperLoadError` exactly as
`parse_pdf` would, so the batch goes on.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from expcurate.records import ParsedPaper, Status
from extractors.paper.errors import PaperLoadError
from extractors.paper.limits import IMAGE_SHARE, STAGE, is_memory_failure

log = logging.getLogger(__name__)

CHILD_MODULE = "extractors._parse_child"  # runs extractors.paper._child


def parse_pdf_isolated(
    path: Path,
    images_dir: Path | None = None,
    *,
    max_pages: int = 400,
    timeout_s: float = 300.0,
    max_memory_mb: int = 2048,
    grace_s: float | None = None,
) -> ParsedPaper:
    """`parse_pdf` in a child process; never raises except `PaperLoadError` for bad files.

    The child stops itself at `timeout_s` (a partial result); it is killed at `timeout_s`
    plus `grace_s` (default 10 s + 10 %), which covers its start-up and the final assembly.
    `max_memory_mb` is the memory the parse may use on top of the interpreter's own.
    """
    grace = 10.0 + 0.1 * timeout_s if grace_s is None else grace_s
    request = {
        "path": str(Path(path).resolve()),
        "images_dir": None if images_dir is None else str(Path(images_dir).resolve()),
        "max_pages": max_pages,
        "deadline_s": timeout_s,
        "max_memory_mb": max_memory_mb,
        "max_image_mb": max_memory_mb / IMAGE_SHARE,
    }
    _sweep_leftovers()
    with tempfile.TemporaryDirectory(prefix=f"{TMP_PREFIX}{os.getpid()}-") as tmp:
        req, res = Path(tmp) / "request.json", Path(tmp) / "result.json"
        req.write_text(json.dumps(request), encoding="utf-8")
        proc = subprocess.Popen(
            [sys.executable, "-m", CHILD_MODULE, str(req), str(res)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,  # MuPDF may print notes; the result goes to a file
            stderr=subprocess.PIPE,
            env=_child_env(),
        )
        try:
            _, err = proc.communicate(timeout=timeout_s + grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return _failed(
                "time_limit",
                f"the parse was stopped after {timeout_s + grace:g} s (limit {timeout_s:g} s "
                "plus grace) and nothing was kept; raise EXPCURATE_PARSE_TIMEOUT_S",
            )
        stderr = err.decode("utf-8", "replace")[-4000:]
        answer = _read(res)
    return _interpret(answer, proc.returncode, stderr, max_memory_mb)


TMP_PREFIX = "expcurate-parse-"


def _sweep_leftovers() -> None:
    """Remove the exchange folders of parses whose process was killed before it could (their
    names carry the pid that made them)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{TMP_PREFIX}*-*"):
        pid = folder.name[len(TMP_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _child_env() -> dict[str, str]:
    """The parent's environment, with this source tree importable in the child."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def _read(res: Path) -> dict | None:
    try:
        return json.loads(res.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # the child died before writing (killed, crashed)


def _interpret(answer: dict | None, code: int, stderr: str, max_memory_mb: int) -> ParsedPaper:
    memory_hint = (
        f"the parse needed more than {max_memory_mb} MB of memory and was stopped; "
        "raise EXPCURATE_PARSE_MAX_MEMORY_MB"
    )
    if answer is not None:
        kind = answer.get("kind")
        if kind == "paper":
            return ParsedPaper.model_validate(answer["paper"])
        if kind == "load_error":
            raise PaperLoadError(answer["message"])
        if kind == "memory":
            return _failed("memory_limit", memory_hint)
        if is_memory_failure(str(answer.get("message", ""))):
            return _failed("memory_limit", memory_hint)
        log.error("the PDF parser failed in its child process:\n%s", answer.get("traceback"))
        return _failed("parser_error", f"the parser failed (a bug): {answer.get('message')}")
    if is_memory_failure(stderr) or code == -signal.SIGKILL:
        return _failed("memory_limit", memory_hint)  # SIGKILL we did not send: the OOM killer
    log.error("the PDF parser's child process exited with %s:\n%s", code, stderr)
    what = f"signal {-code}" if code < 0 else f"exit code {code}"
    return _failed("parser_crashed", f"the parser process died ({what}); see the log")


def _failed(category: str, message: str) -> ParsedPaper:
    paper = ParsedPaper(status=Status.failed)
    paper.add_error(STAGE, category, message)
    paper.status = Status.failed
    return paper
