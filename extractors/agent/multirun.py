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
    # a program the repository keeps for the benchmark the runs choose, with its tuned
    # settings (fine_tuned/vmas/vmas_run.py for `task=vmas/...`), runs them in its place
    tuned = _tuned_program(args, entry, sweeps)
    if tuned:
        own = []
    command = own[0][3] if own else f"python {tuned or entry} -m"
    # a config group's choice drops the overrides of its keys (`task=` those of `task.`):
    # choices first, then the keys inside groups
    for key, values in sorted(sweeps.items(), key=lambda kv: "." in kv[0]):
        command = with_setting(command, [f"{key}={','.join(values)}"])
    settings = " ".join(f"{k}={','.join(v)}" for k, v in sweeps.items())
    run = Run(command, arms=covered, settings=settings, sweep=True)
    if own:  # the authors' multirun it is built on: cited as the step that runs it
        run.script, run.lines = own[0][0], (own[0][1], own[0][2])
    return run


def _tuned_program(args: EntryArgs, entry: str, sweeps: dict[str, list[str]]) -> str:
    """The one other hydra program of the repository whose folders name the benchmark all
    the runs' choices are under (`vmas` of `task=vmas/navigation,vmas/balance`):
    fine_tuned/vmas/vmas_run.py, which composes the same configs with settings tuned for
    VMAS. "" when the choices span benchmarks, or no such program (or several) exists."""
    heads = {c.split("/", 1)[0].lower() for vs in sweeps.values() for c in vs if "/" in c}
    if len(heads) != 1:
        return ""
    head = heads.pop()
    if head in posixpath.dirname(entry).lower().split("/"):
        return ""  # the entry is that benchmark's already
    found = [
        e.path
        for e in args.entries.values()
        if e.kind == "hydra"
        and e.runnable
        and e.path != entry
        and head in posixpath.dirname(e.path).lower().split("/")
        and not re.search(r"(?:^|/)(?:tests?|examples?)/", e.path)
    ]
    return found[0] if len(found) == 1 else ""


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


# an entry of a config's defaults list: `- experiment: base_experiment`
_DEFAULT = re.compile(r"\s*-\s*(?:override\s+)?(?P<group>[\w@/-]+)\s*:\s*(?P<choice>\S+)")
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
    return ([composed] if composed else []) + _own_blocks(args, e) + chosen[:MAX_CHOICES]


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
    path = primary_config(args, e)
    if not path:
        return None
    lines = args.search.lines(path)
    start = next((n for n, line in enumerate(lines, 1) if line.startswith("defaults:")), 0)
    if not start:
        return None
    fixed: list[str] = []
    end = start
    for n, line in enumerate(lines[start:], start=start + 1):
        m = _DEFAULT.match(line)
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


def primary_config(args: EntryArgs, e: EntryPoint) -> str:
    """The config a hydra program composes its runs from (`@hydra.main(config_path="conf",
    config_name="config")`: conf/config.yaml beside it), "" when the repository has none."""
    given = {f.name: f.default.strip("'\"") for f in e.flags}
    name = given.get("config_name", "")
    if not name:
        return ""
    folder = posixpath.dirname(e.path)
    path = posixpath.normpath(posixpath.join(folder, given.get("config_path", ""), name))
    path += "" if path.endswith((".yaml", ".yml")) else ".yaml"
    return path if any(f.path == path for f in args.index.files) else ""


MAX_BLOCK_KEYS = 6  # the keys a block's step names


def _own_blocks(args: EntryArgs, e: EntryPoint) -> list[Step]:
    """The settings the primary config gives a group's config in its own block, over what
    that group's default file sets (fine_tuned/vmas/conf/config.yaml's `experiment:`, whose
    `gamma`, `lr` and `max_n_frames` differ from conf/experiment/base_experiment.yaml's): one
    step per block, at most two, naming the keys it changes first."""
    path = primary_config(args, e)
    lines = args.search.lines(path) if path else []
    chosen = dict(_defaults(lines))
    files = args.hydra_choices()
    out: list[Step] = []
    for name, start, end, keys in _blocks(lines):
        if name == "hydra":
            continue
        given = _values(lines[start:end], indent=True)
        default = files.get((name, chosen.get(name, "")))
        base = _values(args.search.lines(default)) if default else {}
        changed = [k for k in keys if k in base and base[k] != given.get(k)]
        named = (changed or keys)[:MAX_BLOCK_KEYS]
        more = ", …" if len(changed or keys) > MAX_BLOCK_KEYS else ""
        what = (
            f"its own values of {posixpath.basename(default)}'s" if changed and default else "the"
        )
        out.append(
            Step(
                f"Set {what} {name} settings in {posixpath.basename(path)}: "
                + ", ".join(f"{k} {given[k]}" if k in given else k for k in named)
                + more,
                path,
                start,
                end,
            )
        )
    return out[:2]


def _defaults(lines: list[str]) -> list[tuple[str, str]]:
    """A config's defaults list as (group, choice) pairs: `- experiment: base_experiment`."""
    return [(m.group("group"), m.group("choice")) for line in lines if (m := _DEFAULT.match(line))]


def _values(lines: list[str], indent: bool = False) -> dict[str, str]:
    """The `key: value` lines of a YAML file's top level (or, with `indent`, of one block's
    first level in), their values as written."""
    out: dict[str, str] = {}
    level = -1
    for line in lines:
        m = re.match(r"(?P<pad>\s*)(?P<key>\w+)\s*:\s*(?P<value>[^#]*?)\s*(?:#.*)?$", line)
        if m is None or not m.group("value"):
            continue
        pad = len(m.group("pad"))
        if (pad == 0) is indent:
            continue
        level = pad if level < 0 else level
        if pad == level:
            out.setdefault(m.group("key"), m.group("value"))
    return out


def _blocks(lines: list[str]) -> list[tuple[str, int, int, list[str]]]:
    """A YAML file's top-level blocks holding keys: (name, first line, last line, the keys
    one level in, as written)."""
    out: list[tuple[str, int, int, list[str]]] = []
    level = 0  # the indentation of the open block's keys
    for n, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            m = re.match(r"(?P<key>\w+)\s*:\s*(?:#.*)?$", line)
            out.append((m.group("key") if m else "", n, n, []))
            level = 0
            continue
        if not out or not out[-1][0]:
            continue
        name, start, _, keys = out[-1]
        level = level or indent
        if indent == level and (inner := re.match(r"\s+(?P<key>\w+)\s*:", line)):
            keys.append(inner.group("key"))
        out[-1] = (name, start, n, keys)
    return [b for b in out if b[0] and b[3]]


def primary_key_line(args: EntryArgs, e: EntryPoint | None, key: str) -> tuple[str, int] | None:
    """Where the primary config sets a key the runs override: `seed` at its top level,
    `experiment.max_n_frames` in its `experiment:` block; None when it does not."""
    path = primary_config(args, e) if e is not None and e.kind == "hydra" else ""
    if not path:
        return None
    lines = args.search.lines(path)
    head, _, rest = key.partition(".")
    if not rest:
        n = next((n for n, x in enumerate(lines, 1) if re.match(rf"{re.escape(head)}\s*:", x)), 0)
        return (path, n) if n else None
    for name, start, end, _ in _blocks(lines):
        if name == head:
            for n in range(start + 1, end + 1):
                if re.match(rf"\s+{re.escape(rest)}\s*:", lines[n - 1]):
                    return path, n
    return None
