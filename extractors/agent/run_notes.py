"""What a reviewer must know about a run, and what makes runs comparable.

The placeholder paths a config file it passes still holds, the model its script trains when
that is a variant of the arm or the authors' own, the config list it runs when an arm is an
item of one, and the settings runs of rival programs must share. Each reads the mined index,
the files or the method's modules; none needs the planner's state for a task.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from expcurate.records import ConfigFile, EntryPoint
from extractors.repo import RepoSearch, terms

from .arms import Arm, about_data, numeric, value_forms
from .launch import blocks_of, placeholder_value, with_setting
from .methods import MethodModules
from .run import Run

# options that say where output goes or how the machine is used, not what is run
_INCIDENTAL_OPTION = re.compile(
    r"out|save|log|dir|path|device|gpu|cuda|worker|thread|port|seed|verbose|debug|name|ckpt", re.I
)
MODEL_OPTION = re.compile(r"(?<!\S)--(?:model|model_name|arch|backbone)(?:=|\s+)([A-Za-z][\w.-]*)")


def config_placeholders(configs: list[ConfigFile]) -> str:
    """The placeholder paths inside the config files a command passes (`"ct_path":
    "path/to/ct"` in config/config_demo.json), as an instruction: the run would fail, or
    read nothing, until the user fills them."""
    out: list[str] = []
    for config in configs:
        keys = [k for k, v in config.values.items() if placeholder_value(v)]
        if keys:
            out.append(f"set {', '.join(keys[:4])} in {config.path} to your own paths")
    return "; ".join(dict.fromkeys(out))


def config_item(
    arm: Arm, runs: list[Run], configs_of: Callable[[str], list[ConfigFile]]
) -> tuple[Run, str, str, str] | None:
    """The run, config file, list key and item that name the arm, when a config file a run
    passes lists the arm's value as an item (or an item named by it: "resnet50_trunc" for
    "ResNet50")."""
    if numeric(arm.value.split()[0]) or about_data(arm.variable) or not arm.words:
        return None
    forms = {re.sub(r"[\W_]+", "", f.lower()) for f in value_forms(arm.value)} - {""}
    for run in sorted(runs, key=lambda r: len(r.settings)):  # the plainest run first
        if run.missing or not run.command:
            continue
        for config in configs_of(run.invocation or run.command):  # the script's, filled
            for key, value in config.values.items():
                head, _, place = key.rpartition(".")
                # a list of values, not of files it includes (mmcv's `_base_` paths)
                if head and place.isdigit() and "/" not in value:
                    names = {re.sub(r"[\W_]+", "", t) for t in [*terms(value), value.lower()]}
                    if forms & names:
                        return run, config.path, head, value
    return None


def comparable(
    runs: list[Run], entries: dict[str, EntryPoint], programs_of: Callable[[str], list[str]]
) -> None:
    """Runs of different programs compared with each other run on the same setting: an
    option both programs define with different defaults (`--task` of Trace's script and
    DSPy's) is given the first program's default in the others' commands."""
    by_program: dict[str, list[Run]] = {}
    for r in runs:
        if r.missing or r.script or not r.command.startswith(("python", "cd ")):
            continue
        program = next((p for p in programs_of(r.command) if p in entries), "")
        if program:
            by_program.setdefault(program, []).append(r)
    if len(by_program) < 2:
        return
    # only when the programs are rival methods (Trace's script against DSPy's), not when
    # each runs a different task or data set by design (prompt against solution
    # optimization)
    variables = [{a.variable for r in rs for a in r.arms} for rs in by_program.values()]
    shared = set.intersection(*variables)
    if not shared or any(about_data(v) or "task" in terms(v) for v in shared):
        return
    programs = list(by_program)
    first = {f.name: f for f in entries[programs[0]].flags if f.name.startswith("--")}
    for other in programs[1:]:
        for f in entries[other].flags:
            mine = first.get(f.name)
            if (
                mine is None
                or f.switch
                or mine.switch
                or not mine.default.strip("'\"")
                or f.default == mine.default
                or _INCIDENTAL_OPTION.search(f.name)
            ):
                continue
            value = mine.default.strip("'\"")
            for r in by_program[other]:
                if f.name not in r.command.split():
                    r.command = with_setting(r.command, [f.name, value])


def variant_warning(run: Run, arm: Arm, methods: MethodModules) -> str:
    """A warning when the arm's script trains a model whose name holds the arm's name but
    is not it (`--model CycleiTransformer` in scripts/iTransformer/ for "iTransformer"): a
    baseline run as the authors' variant of it, which a reviewer should know."""
    m = MODEL_OPTION.search(run.invocation)
    if m is None:
        return ""
    model = m.group(1)
    names = [f for f in value_forms(arm.value) if re.fullmatch(r"[\w.-]+", f)]
    if any(model.lower() == n.lower() for n in names):
        return ""
    inside = [n for n in names if len(n) >= 3 and n.lower() in model.lower()]
    if not inside:
        return ""
    own = methods.modules_by_stem().get(inside[0].lower())
    tail = "" if own else f"; the repository has no {inside[0]} model of its own"
    return f"the script trains --model {model}, a variant of {inside[0]}, not {inside[0]}{tail}"


def trains(search: RepoSearch, e: EntryPoint) -> str:
    """The model a launch script's first run trains (`--model CycleNet`), or ""."""
    blocks = blocks_of(search.lines(e.path))
    m = MODEL_OPTION.search(blocks[0].filled()) if blocks else None
    return m.group(1) if m else ""


def own_model(search: RepoSearch, launchers: list[EntryPoint]) -> str:
    """The model the repository's launch scripts train most often, when one does: the
    authors' own method, which their scripts name by the model, not by the paper's words."""
    counts = Counter(m for e in launchers if (m := trains(search, e)))
    top = counts.most_common(2)
    clear = top and (len(top) == 1 or top[0][1] > 2 * top[1][1])
    return top[0][0] if clear else ""
