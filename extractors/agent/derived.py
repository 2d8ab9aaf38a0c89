"""Runs derived from the planned ones, once every arm has its own.

An arm whose description gives its own parameters ("PatchTST(336)* (parameters: patch_len=64,
stride=14)") runs its script's command with them set. Three designs need more than one run
per arm: programs one variable names, each run with
every value of an option another variable sets (`--algo trace`, `--algo textgrad`); a
component of the authors' model switched on and off over backbones, whose "off" runs each
backbone's own model; and a program going through a list of its own (`tasks[a:b]`), run
whole when the task asks about several of its items.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable

from expcurate.records import EntryPoint
from extractors.repo.commands import loop_of, looped

from .arms import ABLATED, Arm, about_data
from .launch import with_setting, without_options
from .methods import MethodModules
from .query import TaskQuery
from .run import MAX_RUNS, Run
from .run_notes import MODEL_OPTION
from .steps import StepTracer
from .suite import Suite, asks_for_several, suite_of, through_suite


def crossed(
    chosen: list[Run],
    program_runs: list[tuple[Run, str]],
    flag_runs: list[tuple[Run, list[str]]],
    entries: dict[str, EntryPoint],
    accepts: Callable[[str, list[str], str], bool] = lambda program, setting, arm: True,
    note: Callable[[str, list[str]], str] = lambda program, setting: "",
) -> list[Run]:
    """Two variables, one whose arms are programs (prompt or solution optimization) and
    one whose arms are an option every one of those programs defines (`--algo trace`,
    `--algo textgrad`): every program runs every option value, rather than each arm
    once on the defaults of the other variable; not a value a program does not take
    (`accepts`: `--algo optoprime` reaches OptoPrime in one program's `else`, and fails
    another's `assert args.algo in [...]`); each run says what its setting means in its
    program (`note`)."""
    if len(program_runs) < 2 or not flag_runs:
        return chosen
    if len(program_runs) * len(flag_runs) > MAX_RUNS:
        return chosen
    ours = {a.variable for r, _ in program_runs for a in r.arms}
    theirs = {a.variable for r, _ in flag_runs for a in r.arms}
    if ours & theirs or any(len(r.arms) != 1 for r, _ in [*program_runs, *flag_runs]):
        return chosen
    for _, program in program_runs:
        e = entries.get(program)
        defined = {f.name for f in e.flags} if e else set()
        if any(setting[0] not in defined for _, setting in flag_runs):
            return chosen
    crossed = [
        Run(
            with_setting(p.command, setting),
            arms=[*p.arms, *f.arms],
            settings=" ".join(setting),
            switch=f.switch,
            warning=note(program, setting),
        )
        for p, program in program_runs
        for f, setting in flag_runs
        if accepts(program, setting, f.arms[0].value)
    ]
    replaced = {id(r) for r, _ in [*program_runs, *flag_runs]}
    kept = [r for r in chosen if id(r) not in replaced]
    return crossed + kept


_EACH = "EACH_DATA_SET"  # where a loop's variable goes, until it is written as `$name`


_LOOP_OVER = re.compile(r"^for\s+(\w+)\s+in\s+([^;]*);\s*do\s+(.*?);\s*done$")


def through_loops(chosen: list[Run]) -> list[Run]:
    """A documented loop going through an option's values (`for dout in texture svhn ...; do
    python test.py --dout $dout; done`) runs the arms those values select in one go: the runs
    that each run one of them (`python test.py --dout texture`), as the loop's body with its
    value, are the loop's, which covers their arms."""
    gone: set[int] = set()
    for loop in chosen:
        m = _LOOP_OVER.match(loop.command.strip())
        if loop.missing or m is None or id(loop) in gone:
            continue
        variable, body = m.group(1), m.group(3)
        each = {
            " ".join(body.replace("${" + variable + "}", v).replace("$" + variable, v).split())
            for v in m.group(2).split()
        }
        for r in chosen:
            if r is loop or r.missing or not r.arms or id(r) in gone:
                continue
            if " ".join(r.command.split()) in each:
                loop.covers += [a for a in r.arms if a not in loop.covers]
                loop.covered_by = loop.covered_by or f"its loop over {variable}"
                gone.add(id(r))
    return [r for r in chosen if id(r) not in gone]


def on_each_data_set(chosen: list[Run], flag_runs: list[tuple[Run, list[str]]]) -> list[Run]:
    """Arms an option selects beside data sets an option selects (`--resnet ResNet18`,
    `--dataset CIFAR-10`): each arm runs on each data set, rather than each data set once
    on the default arm."""
    if not {id(r) for r, _ in flag_runs} <= {id(r) for r in chosen}:
        return chosen  # crossed with programs already
    pure = [
        (r, st) for r, st in flag_runs if r.arms and all(about_data(a.variable) for a in r.arms)
    ]
    if any(len(st) != 2 or not st[0].startswith("--") for _, st in pure):
        return chosen  # a data set set by a switch or a file: not one value to add
    # a data set's run the same command as an arm's (the README's `--dataset USAir`) was
    # merged into that arm's run: the settings of the data option are the data sets still
    options = {st[0] for _, st in pure}
    data = [(r, st) for r, st in flag_runs if st[0] in options]
    data = [(r, st) for k, (r, st) in enumerate(data) if all(st != o for _, o in data[:k])]
    arms = [(r, st) for r, st in flag_runs if st[0] not in options]
    if pure and not arms:
        return _bare_on_each(chosen, pure, flag_runs)
    if not pure:
        return chosen
    if len(data) * len(arms) <= MAX_RUNS:
        both = [
            Run(
                with_setting(r.command, st),
                arms=[*_methods(r), *_data_sets(d)],
                # the arm's run may be on one of the data sets already (`--dataset WC`)
                settings=" ".join([without_options(r.settings, {st[0]}), *st]).strip(),
                switch=r.switch,
                warning=r.warning,
            )
            for r, _ in arms
            for d, st in data
        ]
    else:  # too many runs to write one by one: each arm's run goes through the data sets
        if len(options) != 1 or any(loop_of(r.command) for r, _ in arms):
            return chosen
        (option,) = options
        name = re.sub(r"\W", "_", option.lstrip("-")) or "data"
        values = " ".join(shlex.quote(st[1]) for _, st in data)
        both = [
            Run(
                looped(
                    name,
                    values,
                    with_setting(r.command, [option, _EACH]).replace(_EACH, f"${name}"),
                ),
                arms=[*_methods(r), *(a for d, _ in data for a in _data_sets(d))],
                settings=" ".join(
                    [without_options(r.settings, {option}), option, f"${name}"]
                ).strip(),
                switch=r.switch,
                warning=r.warning,
            )
            for r, _ in arms
        ]
    replaced = {id(r) for r, _ in flag_runs}
    # the default run beside them ("Default", no option of its own) runs on each data set too
    bare = [
        r
        for r in chosen
        if id(r) not in replaced
        and not r.missing
        and not r.edits
        and not r.script
        and not _data_sets(r)
        and r.command.startswith(("python", "nice python"))
    ]
    if len(bare) == 1 and len(both) + len(data) <= MAX_RUNS:
        (default,) = bare
        both += [
            Run(
                with_setting(default.command, st),
                arms=[*default.arms, *_data_sets(d)],
                settings=" ".join([without_options(default.settings, {st[0]}), *st]).strip(),
                warning=default.warning,
            )
            for d, st in data
        ]
        replaced.add(id(default))
    return both + [r for r in chosen if id(r) not in replaced]


def _bare_on_each(
    chosen: list[Run], pure: list[tuple[Run, list[str]]], flag_runs: list[tuple[Run, list[str]]]
) -> list[Run]:
    """No option selects an arm, but one run is an arm as it stands (the authors' method,
    "CC(Ours)", run bare): the data sets' runs, each that command with its data option, are
    that arm's runs on them, and the bare run goes."""
    flagged = {id(r) for r, _ in flag_runs}
    bare = [
        r
        for r in chosen
        if id(r) not in flagged and not r.missing and _methods(r) and not _data_sets(r)
    ]
    if len(bare) != 1 or any(with_setting(bare[0].command, st) != r.command for r, st in pure):
        return chosen
    (arm,) = bare
    for r, _ in pure:
        r.arms = [*_methods(arm), *r.arms]
        r.say_first(arm.warning)
    return [r for r in chosen if r is not arm]


def _methods(run: Run) -> list[Arm]:
    return [a for a in run.arms if not about_data(a.variable)]


def _data_sets(run: Run) -> list[Arm]:
    return [a for a in run.arms if about_data(a.variable)]


def plain_backbones(
    chosen: list[Run], plain: list[Arm], own: str | None, methods: MethodModules
) -> list[Arm]:
    """A component of the authors' model switched on and off ("with_RCF", "without_RCF")
    over backbones the runs train inside it (CycleNet with a Linear or an MLP backbone):
    the runs as they stand are "with"; "without" runs each backbone's own model with the
    same settings (`--model Linear`, `--model RMLP` for "MLP"), when the repository has
    one. The arms left to the reviewer are returned."""
    pair = _on_off(plain)
    if not own or pair is None:
        return plain
    on, off = pair
    stems = {
        posixpath.basename(p)[:-3]: p
        for paths in methods.modules_by_stem().values()
        for p in paths
        if "model" in p.lower()
    }
    runs = [
        r
        for r in chosen
        if not r.missing
        and r.invocation
        and (m := MODEL_OPTION.search(r.invocation)) is not None
        and m.group(1) == own
        and r.arms
    ]
    added: list[Run] = []
    for r in runs:
        backbone = next((a for a in r.arms if not about_data(a.variable)), None)
        model = _backbone_model(backbone.value, stems, own) if backbone else None
        if backbone is None or model is None:
            return plain
        swept = sweeps_of(r.settings)
        again = f", once per value its script sweeps ({', '.join(swept)})" if swept else ""
        bare = Run(
            with_setting(r.invocation, ["--model", model]),
            arms=[backbone, off],
            data=r.data,
            warning=f"{backbone.value} without {own}'s addition: its own model, {model}, "
            f"with {r.script or 'the same run'}'s settings{again}",
        )
        added.append(bare)
    if not runs:
        return plain
    for r in runs:
        r.arms.append(on)
    chosen += added
    return [a for a in plain if a is not on and a is not off]


def through_suites(
    runs: list[Run],
    q: TaskQuery,
    programs_of: Callable[[str], list[str]],
    entries: dict[str, EntryPoint],
    tracer: StepTracer,
    known: dict[str, Suite | None],
) -> None:
    """A run of a program that goes through a list of its own by a range of options
    (`tasks[args.task_start: args.task_end]`) runs the whole list when the task asks
    about several of its items ("the 11 algorithmic tasks"), not the one item a bare
    command runs. `known` keeps each program's suite, read once."""
    for run in runs:
        if run.missing or run.script or not run.command.startswith(("python", "cd ")):
            continue
        program = next((p for p in programs_of(run.command) if p in entries), None)
        if program is None:
            continue
        if program not in known:
            tree = tracer.tree(program) if program.endswith(".py") else None
            flags = entries[program].flags
            known[program] = suite_of(tree, flags) if tree is not None else None
        suite = known[program]
        if suite is not None and asks_for_several(q.text, suite, program):
            run.command = through_suite(run.command, suite)
            run.suite, run.suite_program = suite, program


def _on_off(arms: list[Arm]) -> tuple[Arm, Arm] | None:
    """The two arms of one variable that switch one thing on and off ("with_RCF" and
    "without_RCF", "RCF" and "w/o RCF"), as (on, off)."""
    for variable in dict.fromkeys(a.variable for a in arms):
        group = [a for a in arms if a.variable == variable]
        if len(group) != 2:
            continue
        off = [a for a in group if ABLATED.match(a.value.replace("_", " "))]
        if len(off) != 1:
            continue
        on = next(a for a in group if a is not off[0])
        m = ABLATED.match(off[0].value.replace("_", " "))
        thing = m.group(1).strip().lower() if m else ""
        said = re.sub(r"^\s*with\s+", "", on.value.replace("_", " "), flags=re.I).strip().lower()
        if thing and said == thing:
            return on, off[0]
    return None


def _backbone_model(value: str, stems: dict[str, str], own: str) -> str | None:
    """The repository's model module standing for a backbone by itself: named after it
    (models/Linear.py for "Linear"), else the one model whose name ends with it
    (models/RMLP.py for "MLP"); never the authors' own model."""
    word = value.strip().lower()
    if not re.fullmatch(r"[\w-]+", word):
        return None
    exact = [s for s in stems if s.lower() == word and s != own]
    if exact:
        return exact[0]
    ending = [s for s in stems if s.lower().endswith(word) and s != own and len(s) <= len(word) + 2]
    return ending[0] if len(ending) == 1 else None


def _options_given(command: str) -> dict[str, list[str]]:
    """Each option a command passes, with the values after it (`--period 24 180` as
    ["24", "180"])."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for word in command.split():
        if word.startswith("--"):
            flag, eq, inline = word.partition("=")
            current = out.setdefault(flag, [])
            if eq:
                current.append(inline)
        elif current is not None and not word.startswith((">", "|", "&")):
            current.append(word)
        else:
            current = None
    return out


# "patch_len=64", "stride = 14": a parameter an arm's description gives
_PARAMETER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*=\s*([\w.+-]+)")


def with_parameters(run: Run, arm: Arm, entry: EntryPoint | None) -> None:
    """Set the parameters the arm's description gives (`patch_len=64, stride=14`) on its
    script's command, when its program defines each as an option: the run becomes that
    command with them set and with the flags the program does not define dropped (the
    script's own `--patch_len 1` replaced, list values included)."""
    if entry is None or not run.invocation:
        return
    defined = {f.name for f in entry.flags if f.name.startswith("--")}
    given = [
        (f"--{name}", value)
        for name, value in _PARAMETER.findall(arm.said or arm.value)
        if f"--{name}" in defined
    ]
    if not given:
        return
    said = ", ".join(f"{n[2:]}={v}" for n, v in given)
    notes = [w for w in run.warning.split("; ") if w]
    # the script passes them already, and nothing its program rejects: it runs as it is,
    # each of its blocks with its own settings (a longer horizon's own dropout)
    passed = _options_given(run.invocation)
    if all(passed.get(n) == [v] for n, v in given) and set(passed) <= defined:
        return
    if "$" in run.invocation:  # a variable the script leaves unset: its command cannot stand
        run.warning = "; ".join([*notes, f"set the arm's own {said} in the script first"])
        return
    replaced = {name for name, _ in given}
    words = run.invocation.split()
    kept: list[str] = []
    k = 0
    while k < len(words):
        flag, inline, _ = words[k].partition("=")
        k += 1
        if flag.startswith("--") and (flag not in defined or flag in replaced):
            # dropped with its values: those after it up to the next option (none after
            # `--flag=value`)
            while not inline and k < len(words) and not words[k].startswith("-"):
                k += 1
            continue
        kept.append(words[k - 1])
    command = " ".join(kept)
    for name, value in given:
        command = with_setting(command, [name, value])
    run.command = command
    swept = sweeps_of(run.settings)
    again = f", once per value its script sweeps ({', '.join(swept)})" if swept else ""
    run.settings = ""  # the command shows them
    notes = [w for w in notes if "does not define" not in w]  # those flags are dropped
    run.warning = "; ".join([*notes, f"the arm's own {said}, set on the script's command{again}"])


def sweeps_of(settings: str) -> list[str]:
    """The swept options of a script's settings ("--pred_len {96,192,336,720}")."""
    words = settings.split()
    return [
        f"{words[k - 1]} {w}" if k and words[k - 1].startswith("-") else w
        for k, w in enumerate(words)
        if "{" in w
    ]
