"""How a task points into its repository: repo-relative paths and `(path:first-last)` steps.

One definition of each, used by the drafting agent, the validators, the review app and the
importer alike: a requirement is a step (`Step k: …` or `Final Step: …`) ending in a
reference; EXP-Bench writes paths under `/workspace/`, we store them repo-relative; a path is
confined to the repository by its text alone (no absolute path, no `..`), with or without a
checkout, and by its resolved location when there is one (symlinks out do not count).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

WORKSPACE = "/workspace/"
STEP_RE = re.compile(r"^(Step \d+|Final Step): .+")
# The reference a step ends with.
REF_RE = re.compile(r"\(([^()\s]+?):(\d+)(?:-(\d+))?\)\s*$")
_PARENS = re.compile(r"\(([^()]*)\)")
_ONE_REF = re.compile(r"^\s*([^\s:(),;]+):(\d+)(?:\s*-\s*(\d+))?\s*$")


class Reference(NamedTuple):
    """A cited line range of a repository file."""

    path: str
    first: int
    last: int


def repo_path(path: str) -> str:
    """EXP-Bench writes `/workspace/x.py`; we store repo-relative `x.py`. Accept both."""
    path = path.strip()
    return path[len(WORKSPACE) :] if path.startswith(WORKSPACE) else path.lstrip("/")


def confined(path: str) -> str | None:
    """`path` as a clean repo-relative path, or None when its text leaves the repository.

    Absolute paths (other than EXP-Bench's `/workspace/`), `..` parts and empty paths are
    refused; no file system is consulted, so it holds for imported tasks with no checkout.
    """
    path = path.strip().replace("\\", "/")
    if path.startswith(WORKSPACE):
        path = path[len(WORKSPACE) :]
    elif path.startswith("/"):
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def inside(root: Path, path: str) -> Path | None:
    """The file `path` names under the checkout `root`, or None if it would leave it.

    Both the text (see `confined`) and the resolved location count, so a symlink that points
    out of the repository is refused too.
    """
    clean = confined(path)
    if clean is None:
        return None
    base = root.resolve()
    target = (base / clean).resolve()
    return target if target.is_relative_to(base) else None


def _unprefixed(path: str) -> str:
    """Only EXP-Bench's `/workspace/` is dropped: any other absolute path stays visible, so
    `confined` can refuse it."""
    return path[len(WORKSPACE) :] if path.startswith(WORKSPACE) else path


def last_reference(step: str) -> Reference | None:
    """The `(path:first-last)` a requirement step ends with."""
    m = REF_RE.search(step)
    if m is None:
        return None
    first = int(m.group(2))
    return Reference(_unprefixed(m.group(1)), first, int(m.group(3) or first))


def references(step: str) -> list[Reference]:
    """Every `path:first-last` cited anywhere in a step, `(a.py:1-3, b.py:9)` included.

    Paths are as written but for `/workspace/`: check them with `confined` before use.
    """
    out = []
    for group in _PARENS.findall(step):
        for part in re.split(r"[,;]", group):
            m = _ONE_REF.match(part)
            if m:
                first = int(m.group(2))
                out.append(Reference(_unprefixed(m.group(1)), first, int(m.group(3) or first)))
    return out


def strip_workspace_refs(step: str) -> str:
    """`(/workspace/a.py:1-9)` -> `(a.py:1-9)`; prose outside references is left alone."""

    def one(m: re.Match[str]) -> str:
        parts = re.split(r"([,;])", m.group(1))
        fixed = [
            re.sub(r"^(\s*)" + re.escape(WORKSPACE), r"\1", p) if re.search(r":\d", p) else p
            for p in parts
        ]
        return "(" + "".join(fixed) + ")"

    return _PARENS.sub(one, step)
