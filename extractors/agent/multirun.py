"""A hydra program's arms as one multirun.

When the entry point is a hydra program, the arms that pick a config file (`algorithm=qmix`)
and the numbers swept over a config key (`experiment.max_n_frames`) run as one `-m` command
over every combination, on what the task holds fixed, built on the authors' own multirun
when a launch script has one.
"""

from __future__ import annotations

import posixpath
import re

from expcurate.records import EntryPoint, TaskDraft

from .arms import Arm, listed, numeric, spread, unexplained
from .entry_args import EntryArgs
from .launch import invocation_of, with_setting
from .query import TaskQuery
from .run import Run
from .steps import Step


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
        # "10000000 (original)": the number is the run's, the note only says which it is
        number = unexplained(arm.value)
        if numeric(number) and (config_key := args.config_key(arm.variable)):
            key, value = config_key, _number(number)
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
    for group, choice in args.hydra_choices():
        stem_ = choice.rsplit("/", 1)[-1].lower()
        full = "/" in choice and choice.lower() in fixed
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


MAX_CHOICES = 4  # the config files the runs choose that are cited, every group first
_OVERRIDE = re.compile(r"(?<!\S)\+?(?P<group>[\w/-]+)=(?P<choices>[\w/.,-]+)")
_KEY = re.compile(r"^(?P<key>\w+)\s*:")


def hydra_config_steps(args: EntryArgs, entry: str, runs: list[Run]) -> list[Step]:
    """For a hydra program, what composes each run's config: the primary config's defaults
    (`experiment: base_experiment`, `model: layers/mlp`), then the config files the runs
    choose on the command line (`algorithm=mappo,qmix` is conf/algorithm/mappo.yaml and
    qmix.yaml), each cited at its keys and named after the arm it sets; every chosen group
    gets one before any gets a second. Empty for any other program."""
    e = args.entries.get(entry)
    if e is None or e.kind != "hydra":
        return []
    files = args.hydra_choices()
    labels = {
        args.config_choice(a.value): a.value for r in runs for a in r.arms if not numeric(a.value)
    }
    by_group: dict[str, list[Step]] = {}
    for r in runs:
        for m in _OVERRIDE.finditer(f"{r.command} {r.invocation}"):
            group = m.group("group")
            for choice in m.group("choices").split(","):
                path = files.get((group, choice))
                step = _keys_step(args, path, group, labels.get(f"{group}={choice}", choice))
                steps = by_group.setdefault(group, [])
                if step is not None and all(s.path != step.path for s in steps):
                    steps.append(step)
    # each group's files in an order that covers its ends first (masac, then qmix, of six)
    by_group = {g: spread(steps) for g, steps in by_group.items()}
    chosen: list[Step] = []
    for rank in range(MAX_CHOICES):  # round robin: each group's first, then its second
        chosen += [s[rank] for s in by_group.values() if len(s) > rank]
    composed = _defaults_step(args, e, set(by_group))
    return ([composed] if composed else []) + chosen[:MAX_CHOICES]


def _keys_step(args: EntryArgs, path: str | None, group: str, label: str) -> Step | None:
    """A chosen config file, cited from its first key to its last (its defaults list aside)."""
    if path is None:
        return None
    at = [
        (n, m.group("key"))
        for n, line in enumerate(args.search.lines(path), start=1)
        if (m := _KEY.match(line)) and m.group("key") != "defaults"
    ]
    if not at:
        return None
    keys = [k for _, k in at]
    shown = ", ".join(keys[:6]) + (", …" if len(keys) > 6 else "")
    return Step(f"Set the {group} config of {label}: {shown}", path, at[0][0], at[-1][0])


def _defaults_step(args: EntryArgs, e: EntryPoint, chosen: set[str]) -> Step | None:
    """The primary config's defaults list (`@hydra.main(config_path=..., config_name=...)`):
    the configs every run composes besides those its command chooses."""
    given = {f.name: f.default.strip("'\"") for f in e.flags}
    name = given.get("config_name", "")
    if not name:
        return None
    folder = posixpath.dirname(e.path)
    path = posixpath.normpath(posixpath.join(folder, given.get("config_path", ""), name))
    path += "" if path.endswith((".yaml", ".yml")) else ".yaml"
    lines = args.search.lines(path) if any(f.path == path for f in args.index.files) else []
    start = next((n for n, line in enumerate(lines, 1) if line.startswith("defaults:")), 0)
    if not start:
        return None
    fixed: list[str] = []
    end = start
    for n, line in enumerate(lines[start:], start=start + 1):
        m = re.match(r"\s*-\s*(?:override\s+)?(?P<group>[\w@/-]+)\s*:\s*(?P<choice>\S+)", line)
        if m is None and not line.strip().startswith("-"):
            break
        end = n
        if m and m.group("choice") != "???" and m.group("group") not in chosen:
            fixed.append(f"{m.group('group')} {m.group('choice')}")
    if not fixed:
        return None
    return Step(
        f"Compose each run's config from the defaults: {', '.join(fixed[:5])}", path, start, end
    )
