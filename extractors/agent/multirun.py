"""A hydra program's arms as one multirun.

When the entry point is a hydra program, the arms that pick a config file (`algorithm=qmix`)
and the numbers swept over a config key (`experiment.max_n_frames`) run as one `-m` command
over every combination, on what the task holds fixed, built on the authors' own multirun
when a launch script has one.
"""

from __future__ import annotations

import re

from expcurate.records import EntryPoint, TaskDraft

from .arms import Arm, listed, numeric
from .entry_args import CONFIG_GROUP, EntryArgs
from .launch import invocation_of, with_setting
from .query import TaskQuery
from .run import Run


def hydra_sweep(
    args: EntryArgs,
    task: TaskDraft,
    q: TaskQuery,
    arms: list[Arm],
    entry: str | None,
    launchers: list[EntryPoint],
) -> Run | None:
    """For a hydra program, one multirun over every arm that picks a config file and every
    numeric sweep of a config key (`-m algorithm=mappo,qmix task=vmas/balance
    experiment.max_n_frames=20000000,50000000`), built on the authors' own multirun when
    a launch script has one. None unless some variable is swept over two or more values."""
    e = args.entries.get(entry or "")
    if e is None or e.kind != "hydra" or entry is None:
        return None
    sweeps: dict[str, list[str]] = {}
    covered: list[Arm] = []
    for arm in arms:
        key, value = "", ""
        if numeric(arm.value) and (config_key := args.config_key(arm.variable)):
            key, value = config_key, _number(arm.value)
        elif not numeric(arm.value) and (choice := args.config_choice(arm.value)):
            key, value = choice.split("=", 1)
        if key:
            values = sweeps.setdefault(key, [])
            values += [value] if value not in values else []
            covered.append(arm)
    if not any(len(v) >= 2 for v in sweeps.values()):
        return None
    # what the task holds fixed, as the question and the constants name it ("on the
    # VMAS/balance task", "the Navigation task"): a config file of a group not swept
    fixed = " ".join(
        [task.question]
        + [str(v) for vs in task.design_complexity.constant_variables.values() for v in listed(vs)]
    ).lower()
    named: dict[str, set[str]] = {}
    for f in args.index.files:
        m = CONFIG_GROUP.search(f.path)
        if not m:
            continue
        group, _, inner = m.group("group").partition("/")
        stem_ = m.group("stem").lower()
        choice = f"{inner + '/' if inner else ''}{m.group('stem')}"
        full = bool(inner) and choice.lower() in fixed
        if group not in sweeps and (
            full or (len(stem_) >= 5 and re.search(rf"\b{re.escape(stem_)}\b", fixed))
        ):
            named.setdefault(group, set()).add(choice if full else f"?{choice}")
    for group, choices in named.items():
        exact = [c for c in choices if not c.startswith("?")]
        pick = exact if exact else [c[1:] for c in choices]
        if len(pick) == 1:  # "navigation" names one task file, else it is ambiguous
            sweeps[group] = pick
    own = [
        (x.path, first, last, inv)
        for x in launchers
        if entry in x.calls
        for first, last, _, inv in [invocation_of(args.search.lines(x.path), q, [])]
        if re.search(r"\s(?:-m|--multirun)\b", inv)
    ]
    command = own[0][3] if own else f"python {entry} -m"
    # a config group's choice drops the overrides of its keys (`task=` those of `task.`):
    # choices first, then the keys inside groups
    for key, values in sorted(sweeps.items(), key=lambda kv: "." in kv[0]):
        command = with_setting(command, [f"{key}={','.join(values)}"])
    settings = " ".join(f"{k}={','.join(v)}" for k, v in sweeps.items())
    run = Run(command, arms=covered, settings=settings, sweep=True)
    if own:  # the authors' multirun it is built on: cited as the step that runs it
        run.script, run.lines = own[0][0], (own[0][1], own[0][2])
    return run


def _number(text: str) -> str:
    """A design value as a config takes it: "2e7" and "20,000,000" as 20000000."""
    plain = text.replace(",", "").replace(" ", "")
    try:
        value = float(plain)
    except ValueError:
        return plain
    return (
        str(int(value)) if value.is_integer() and ("e" in plain.lower() or "," in text) else plain
    )
