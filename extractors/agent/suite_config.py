"""The benchmarks a task measures, when its program runs a suite of them from a config.

A program evaluating on several benchmarks keeps a code folder per benchmark beside the
others (`tasks/gpqa/`, `tasks/humaneval/`, `tasks/mbpp/`) and a config listing the ones a run
evaluates (EEVEE's `tasks:` with `- name: gpqa_diamond`). The benchmarks a task measures are
named by its data sets or its measured columns ("MBPP", "MMLU-Pro"). Each one's documented
data preparation (`python tasks/mbpp/prepare_mbpp_data.py`) comes before the runs, and a run
whose config lists other benchmarks of the suite than the task's must list the task's.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from expcurate.records import ConfigFile, DocCommand
from extractors.repo.commands import run_from

from .arm_options import (
    fold,
)

# a program that readies a benchmark's data rather than evaluating on it
_PREPARES = re.compile(r"(?i)^(?:prepare|prep|preprocess|download|fetch|build|make|get)[_-]?")


def names_folder(said: str, folder: str) -> bool:
    """A folded task name and a folded folder name are one (`arms.fold`): equal, or the name is the
    folder's with a short qualifier after it (`gpqadiamond` and `gpqa`)."""
    if said == folder:
        return True
    return len(folder) >= 4 and said.startswith(folder) and len(said) - len(folder) <= 8


def preparations(commands: Iterable[DocCommand], folders: list[str], known: set[str]) -> list[str]:
    """For each benchmark folder, in order, the first documented command running a program
    of that folder that prepares its data (`prepare_mbpp_data.py`, `download.py`); the
    README's commands before other documents'."""
    ordered = sorted(commands, key=lambda c: (c.doc != "README.md", c.doc, c.line))
    out: list[str] = []
    for folder in folders:
        for c in ordered:
            programs = [r for r in c.runs if r.endswith(".py") and r.startswith(folder + "/")]
            if any(_PREPARES.match(posixpath.basename(p)) for p in programs):
                out.append(run_from(c, known))
                break
    return list(dict.fromkeys(out))


def benchmark_list(config: ConfigFile, folders: dict[str, str]) -> tuple[str, list[str]] | None:
    """The list key of `config` whose items name the suite's benchmark folders (two or more
    of them; `tasks.0.name: gpqa_diamond` for `tasks/gpqa/`), with its items in order."""
    lists: dict[str, list[str]] = {}
    for key, value in config.values.items():
        parts = key.split(".")
        # `tasks.0` (a list of names) or `tasks.0.name` (a list of entries, by their name)
        at = next((i for i, p in enumerate(parts) if p.isdigit()), None)
        if at is None or at == 0 or "/" in value:
            continue
        rest = parts[at + 1 :]
        if rest and rest != ["name"]:
            continue
        lists.setdefault(".".join(parts[:at]), []).append(value)
    for key, items in lists.items():
        hits = [i for i in items if any(names_folder(fold(i), f) for f in folders.values())]
        if len(hits) >= 2:
            return key, items
    return None


def unlisted_note(
    config: ConfigFile, key: str, items: list[str], wanted: list[str], evaluated: str = ""
) -> str:
    """What a run must change when its config lists other benchmarks than the task's:
    `wanted` are the task's benchmarks as the suite names their folders; `evaluated` is how
    an entry says it is only evaluated (`mode: eval`), when the task holds them out."""
    missing = [w for w in wanted if not any(names_folder(fold(i), fold(w)) for i in items)]
    if not missing:
        return ""
    how = f", each with {evaluated} (the task holds them out: not trained on)" if evaluated else ""
    return (
        f"{config.path} lists {', '.join(items)} under {key}, not {', '.join(missing)}, which "
        f"the task measures: list those under {key}{how} in a copy of it and pass the copy"
    )


# a task whose runs each take one benchmark of a suite ("Single-benchmark results", "after
# learning on each benchmark independently")
ON_ITS_OWN = re.compile(
    r"\bsingle[- ](?:benchmark|task|dataset)\b|\b(?:on|for|with) each (?:benchmark|task|"
    r"dataset|data set)s? (?:independently|separately|individually|on its own|alone)\b",
    re.I,
)


def alone_note(config: ConfigFile, key: str, items: list[str], said: str) -> str:
    """What a run must change when its config lists a suite's benchmarks together and the
    task runs each on its own."""
    return (
        f'the task runs each benchmark on its own ("{said}"), and {config.path} lists '
        f"{', '.join(items)} together under {key}: run once per benchmark, with a copy of it "
        f"listing only that one"
    )


# a task measuring benchmarks its method never trains on
HELD_OUT = re.compile(r"\bheld[- ]out\b|\bunseen (?:benchmark|task|dataset)s?\b", re.I)
# code choosing what an entry does by a mode compared with a value (`task_mode == "eval"`)
_MODE_TEST = re.compile(r"""\b(\w*mode)\s*==\s*['"](eval|test|evaluate)['"]""")


def evaluated_mode(config: ConfigFile, key: str, count: int, code: str) -> str:
    """How an entry of the config's list is only evaluated: its `mode` field, every entry
    of which says "train", where the code tests the mode against "eval" (`mode: eval`);
    "" when the entries or the code say nothing of it."""
    field = next(
        (
            name
            for name in ("mode", "split", "stage")
            if [config.values.get(f"{key}.{i}.{name}") for i in range(count)] == ["train"] * count
        ),
        None,
    )
    if field is None:
        return ""
    for m in _MODE_TEST.finditer(code):
        if m.group(1).lower().endswith(field):
            return f"{field}: {m.group(2)}"
    return ""
