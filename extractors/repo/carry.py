"""Carry `file:first-last` references from one commit of a repository to another.

A task cites line ranges of the code at the commit it was curated at. When the code moves on,
each range is carried through git's own diff between the two commits (renames found by git,
lines shifted by the hunks above them): a range none of whose lines changed is carried to its
new place; a range with a changed, inserted or deleted line inside it, or in a file that is
gone, cannot be carried blindly and comes back `changed` or `gone` with the old code and the
best guess of the new, for a reviewer to look at side by side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

import git

from expcurate.records import Reference, TaskFields
from expcurate.records.refs import repo_path

CarryStatus = Literal["same", "moved", "changed", "gone"]
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
MAX_SHOWN_LINES = 40


@dataclass(frozen=True)
class Hunk:
    """Old lines `old_start`..+`old_len` became new lines `new_start`..+`new_len` (git's -U0
    header: a length of 0 means an insertion after, or a deletion before, the start line)."""

    old_start: int
    old_len: int
    new_start: int
    new_len: int


@dataclass
class FileChange:
    """What the diff did to one file of the old commit."""

    new_path: str | None  # None: deleted
    hunks: list[Hunk] = field(default_factory=list)


@dataclass(frozen=True)
class Carried:
    """One reference carried to the new commit."""

    old: Reference
    new: Reference | None  # None when the file is gone
    status: CarryStatus
    old_code: str = ""
    new_code: str = ""

    @property
    def clean(self) -> bool:
        return self.status in ("same", "moved")


class CodeDiff:
    """The diff between two commits of one repository, read once, for carrying references."""

    def __init__(self, repo: git.Repo, old: str, new: str) -> None:
        self.repo, self.old, self.new = repo, old, new
        self._seen: dict[str, bool] = {}  # does a path exist at the new commit
        self._texts: dict[tuple[str, str], list[str]] = {}  # a file's lines at a commit
        self.changes: dict[str, FileChange] = {} if old == new else _read_diff(repo, old, new)

    def carry(self, ref: Reference) -> Carried:
        change = self.changes.get(ref.path)
        if change is None:  # untouched: the same lines at the same place
            return Carried(ref, ref, "same")
        old_code = self._code(self.old, ref.path, ref.first, ref.last)
        if change.new_path is None:
            return Carried(ref, None, "gone", old_code=old_code)
        first, last, touched = _map_range(change.hunks, ref.first, ref.last)
        new = Reference(change.new_path, first, max(first, last))
        if touched:
            new_code = self._code(self.new, new.path, new.first, new.last)
            return Carried(ref, new, "changed", old_code=old_code, new_code=new_code)
        status: CarryStatus = "same" if new == ref else "moved"
        return Carried(ref, new, status)

    def moved_path(self, path: str) -> str | None:
        """Where a file or folder of the old commit is at the new one; None when gone."""
        change = self.changes.get(path.rstrip("/"))
        if change is not None:
            return change.new_path
        return path if self._exists(path.rstrip("/")) else None

    def rename_paths(self, text: str) -> str:
        """`text` with every renamed file's old path, written as a whole path, replaced by
        its new one (`python train.py` -> `python tools/train.py`)."""
        for old, change in self.changes.items():
            if change.new_path is None or change.new_path == old or old not in text:
                continue
            text = _whole_path(old).sub(change.new_path.replace("\\", "\\\\"), text)
        return text

    def deleted_in(self, text: str) -> list[str]:
        """The files deleted between the commits that `text` names as whole paths."""
        return [
            old
            for old, change in self.changes.items()
            if change.new_path is None and old in text and _whole_path(old).search(text)
        ]

    def _exists(self, path: str) -> bool:
        """Is `path` (a file or a folder) in the new commit?"""
        if path not in self._seen:
            try:
                self.repo.git.cat_file("-e", f"{self.new}:{path}")
                self._seen[path] = True
            except git.GitCommandError:
                self._seen[path] = False
        return self._seen[path]

    def _code(self, commit: str, path: str, first: int, last: int) -> str:
        """Lines `first`-`last` of `path` at `commit` (each file read once)."""
        if (commit, path) not in self._texts:
            try:
                self._texts[commit, path] = self.repo.git.show(f"{commit}:{path}").splitlines()
            except git.GitCommandError:
                self._texts[commit, path] = []
        lines = self._texts[commit, path][max(first - 1, 0) : last]
        shown = lines[:MAX_SHOWN_LINES]
        more = len(lines) - len(shown)
        return "\n".join(shown) + (f"\n… {more} more lines" if more > 0 else "")


def _whole_path(path: str) -> re.Pattern[str]:
    """`path` written as a whole path in prose or a command, not a part of a longer one."""
    return re.compile(r"(?<![\w/.-])" + re.escape(path) + r"(?![\w/-])")


def _read_diff(repo: git.Repo, old: str, new: str) -> dict[str, FileChange]:
    """Per old path: where it went and the hunks (`git diff -M -U0`, renames included)."""
    out = repo.git.diff(
        "--no-color", "--no-ext-diff", "-M", "-U0", "--src-prefix=a/", "--dst-prefix=b/", old, new
    )
    changes: dict[str, FileChange] = {}
    current: FileChange | None = None
    old_path: str | None = None
    for line in out.splitlines():
        if line.startswith("diff --git "):
            current, old_path = None, None
            continue
        if line.startswith("rename from "):
            old_path = _unquote(line[len("rename from ") :])
            continue
        if line.startswith("rename to ") and old_path is not None:
            current = changes[old_path] = FileChange(_unquote(line[len("rename to ") :]))
            continue
        if line.startswith("--- "):
            name = _unquote(line[4:])
            old_path = name[2:] if name.startswith("a/") else None  # /dev/null: a new file
            continue
        if line.startswith("+++ ") and old_path is not None:
            name = _unquote(line[4:])
            target = name[2:] if name.startswith("b/") else None  # /dev/null: deleted
            current = changes.setdefault(old_path, FileChange(target))
            current.new_path = target
            continue
        match = _HUNK.match(line)
        if match and current is not None:
            a, b, c, d = match.groups()
            current.hunks.append(
                Hunk(int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d))
            )
    return changes


def _unquote(name: str) -> str:
    """A path as git prints it in a diff: a tab after names with spaces, C-style quotes
    around names with special characters."""
    name = name.rstrip("\t")
    if len(name) >= 2 and name[0] == name[-1] == '"':
        raw = name[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        return raw.encode("latin-1").decode("utf-8", "replace")
    return name


def _map_range(hunks: list[Hunk], first: int, last: int) -> tuple[int, int, bool]:
    """The old range's new place, and whether any hunk touches it (a changed or deleted line
    inside it, or lines inserted between its first and last line)."""
    touched = False
    for hunk in hunks:
        if hunk.old_len == 0:  # inserted after old line old_start
            if first <= hunk.old_start < last:
                touched = True
        elif hunk.old_start <= last and hunk.old_start + hunk.old_len - 1 >= first:
            touched = True
    return _map_line(hunks, first, start=True), _map_line(hunks, last, start=False), touched


def _map_line(hunks: list[Hunk], line: int, *, start: bool) -> int:
    """Where old line `line` is in the new file: shifted by every hunk before it; inside a
    hunk, the start (or the end) of what replaced it."""
    shift = 0
    for hunk in hunks:
        if hunk.old_len == 0:
            if hunk.old_start < line:
                shift += hunk.new_len
            continue
        end = hunk.old_start + hunk.old_len - 1
        if end < line:
            shift += hunk.new_len - hunk.old_len
        elif hunk.old_start <= line:  # inside a changed block
            if hunk.new_len == 0:
                return max(hunk.new_start, 1)
            return hunk.new_start if start else hunk.new_start + hunk.new_len - 1
    return line + shift


# ------------------------------------------------------------------ a task's references

# One `path:first-last` inside a step's parentheses, alone or in a list: `(a.py:1-3, b.py:9)`.
_CITED = re.compile(r"(?<=[(,;])(\s*)([^\s:(),;]+):(\d+)(?:(\s*-\s*)(\d+))?(?=\s*[),;])")


@dataclass(frozen=True)
class Drift:
    """A reference that could not be carried: what a reviewer must look at, and its paths."""

    message: str
    paths: tuple[str, ...]


def cited(step: str) -> list[Reference]:
    """Every `path:first-last` a step cites, as written but for EXP-Bench's `/workspace/`."""
    return [_reference(m) for m in _CITED.finditer(step)]


def _reference(m: re.Match[str]) -> Reference:
    first = int(m.group(3))
    return Reference(repo_path(m.group(2)), first, int(m.group(5) or first))


def carry_task(fields: TaskFields, diff: CodeDiff) -> tuple[TaskFields, list[Drift]]:
    """The task's setup at the new commit: requirement ranges, source and masked paths and
    script paths in the instructions carried through the diff, and a drift for each range
    whose lines changed or vanished and each path that is gone."""
    drifts: list[Drift] = []
    steps = []
    for number, step in enumerate(fields.requirements, 1):

        def moved(m: re.Match[str], number: int = number) -> str:
            carried = diff.carry(_reference(m))
            if not carried.clean:
                drifts.append(_drift(number, carried, diff))
            new = carried.new
            if new is None or new == carried.old:
                return m.group(0)
            prefix = m.group(2)[: len(m.group(2)) - len(carried.old.path)]  # /workspace/
            text = f"{m.group(1)}{prefix}{new.path}:{new.first}"
            if m.group(5) is not None or new.last != new.first:
                text += f"{m.group(4) or '-'}{new.last}"
            return text

        steps.append(_CITED.sub(moved, step))
    changes: dict[str, Any] = {"requirements": steps}
    for name in ("source", "masked_source", "mask_also"):
        paths = []
        for path in getattr(fields, name):
            there = diff.moved_path(repo_path(path))
            if there is None:
                drifts.append(
                    Drift(
                        f"{name} names {path}, which is not in the repository at "
                        f"{diff.new[:12]} (it was at {diff.old[:12]})",
                        (path,),
                    )
                )
                paths.append(path)
            else:
                paths.append(there)
        changes[name] = paths
    for name in ("usage_instructions", "agent_instructions"):
        changes[name] = diff.rename_paths(getattr(fields, name))
        for path in diff.deleted_in(getattr(fields, name)):
            drifts.append(
                Drift(
                    f"{name.replace('_', ' ')} name {path}, which is gone at {diff.new[:12]}; "
                    "the commands need another script",
                    (path,),
                )
            )
    return fields.model_copy(update=changes), drifts


def _drift(number: int, carried: Carried, diff: CodeDiff) -> Drift:
    old = carried.old
    where = f"{old.path}:{old.first}-{old.last}"
    if carried.new is None:
        what = f"the file is gone at {diff.new[:12]}"
    else:
        new = carried.new
        what = f"those lines changed at {diff.new[:12]} (now {new.path}:{new.first}-{new.last})"
    message = (
        f"requirement {number} cites {where} at {diff.old[:12]}; {what}. Compare, then fix "
        f"the step:\n--- at {diff.old[:12]}\n{carried.old_code}\n--- at {diff.new[:12]}\n"
        f"{carried.new_code or '(nothing)'}"
    )
    return Drift(message, (old.path,))
