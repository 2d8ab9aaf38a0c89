"""Reading a launch script as it runs, and writing a command back.

A repository runs its experiments through shell scripts that set variables, loop over a
sweep's values and call the entry point (`for pred_len in 96 192; do python run.py
--pred_len $pred_len ...`). These functions read such a script the way the shell would: each
program run with the script's variables filled in, the run on the task's data with the flags
that define the experiment, and the paths the authors left for the user to fill. They also
write a command back with an arm's setting in it. Pure functions of the script's lines.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection
from dataclasses import dataclass
from itertools import takewhile

from expcurate.records import CliFlag
from extractors.repo import terms
from extractors.repo.commands import loop_of

from .arms import Arm
from .query import TaskQuery

_RUN_LINE = re.compile(
    r"^\s*(?:[A-Za-z_]\w*=\S*\s+)*(?:nohup\s+)?(?:\S*/)?(?:python[\d.]*|torchrun|deepspeed|"
    r"accelerate\s+launch)\b"
)
_ASSIGN = re.compile(
    r"""^\s*(?:export\s+)?([A-Za-z_]\w*)=(?:'([^']*)'|"([^"$]*)"|([^\s;$`]*))\s*$"""
)
_FOR = re.compile(r"^\s*for\s+([A-Za-z_]\w*)\s+in\s+(.+?)\s*(?:;\s*do)?\s*$")
_VAR = re.compile(r"\$\{(\w+)\}|\$([A-Za-z_]\w*)")
_REDIRECTS = re.compile(r"\s+(?:\d?>>?|&>)\s*\S+|\s+2>&1|\s*&\s*$|\s*\|\s*tee\b.*$")
_PLACEHOLDER_VALUE = re.compile(r"(?:^|/)path/to/|^/?your[_-]|^<[^>]+>$|^/path/", re.I)
# a name left in capitals for the user to replace: "openrouter:MODEL_NAME", "YOUR_API_KEY"
_PLACEHOLDER_NAME = re.compile(
    r"(?<![\w.${])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:NAME|PATH|DIR|KEY|TOKEN|FILE)(?![\w.}])"
)
_PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]*>")


@dataclass
class Block:
    """One program run of a launch script, with the script's variables as they stand there."""

    first: int
    last: int
    command: str  # as written, continuation lines joined
    variables: dict[str, str]
    loops: dict[str, list[str]]  # the enclosing loops' values: {"pred_len": ["96", "192"]}

    def filled(self, loops: dict[str, list[str]] | None = None) -> str:
        """The command with its variables filled in, a loop's values as `{a,b}`."""
        values = {**self.loops, **(loops or {})}

        def fill(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            if name in values:
                return "{" + ",".join(values[name][:8]) + "}"
            return self.variables.get(name) or m.group(0)

        command = _VAR.sub(fill, self.command).replace("'_'", "_")
        return _REDIRECTS.sub("", command).strip()


def blocks_of(lines: list[str]) -> list[Block]:
    """Each program run of a launch script (at most 20)."""
    variables: dict[str, str] = {}
    loops: dict[str, list[str]] = {}
    out: list[Block] = []
    k = 0
    while k < len(lines) and len(out) < 20:
        line = lines[k]
        k += 1
        if m := _ASSIGN.match(line):
            variables[m.group(1)] = next(g for g in m.groups()[1:] if g is not None)
        elif m := _FOR.match(line):
            loops[m.group(1)] = m.group(2).split()
        elif _RUN_LINE.match(line):
            first = k
            while k < len(lines) and lines[k - 1].rstrip().endswith("\\"):
                k += 1
            command = " ".join(ln.rstrip("\\ ").strip() for ln in lines[first - 1 : k])
            out.append(Block(first, k, command, dict(variables), dict(loops)))
    return out


def blocks_on(blocks: list[Block], data: frozenset[str]) -> list[Block]:
    """The script's runs on the data set of these words (none when no words are given)."""
    return [b for b in blocks if data and data <= set(terms(b.filled()))]


def invocation_of(
    lines: list[str], q: TaskQuery, arms: list[Arm], data: frozenset[str] = frozenset()
) -> tuple[int, int, str, str]:
    """The lines of the entry point's invocation in a launch script (with its continuation
    lines), its experiment-defining flags as set (with the script's variables filled in),
    and the command itself with one value of each sweep.

    A script that runs its program once per data set (`data_path_name=ETTh1.csv`, a run,
    `data_path_name=ETTh2.csv`, a run, ...) is read at the run on the task's data, with the
    variables as they stand there; else at its first run. A sweep the script splits over
    several runs (`for pred_len in 96`, then `for pred_len in 192 336`) shows all its values.
    """
    blocks = blocks_of(lines)
    on_data = blocks_on(blocks, data)
    if not blocks:
        return 0, 0, "", ""
    block = (on_data or blocks)[0]
    loops: dict[str, list[str]] = {}
    for b in on_data or blocks:
        for name, values in b.loops.items():
            loops[name] = list(dict.fromkeys([*loops.get(name, []), *values]))
    command = block.filled({n: v for n, v in loops.items() if n in block.loops})
    single = re.sub(r"\{([^,{}]+)(?:,[^{}]*)?\}", r"\1", command)  # one value of each sweep
    words = _words(command)
    # a sweep written out run by run (`--mask_rate 0.125`, a run, `--mask_rate 0.25`, ...)
    unrolled, labels = _unrolled(block, on_data or blocks)
    wanted = q.terms | {w for a in arms for w in a.words}
    shown: list[str] = []
    for k, word in enumerate(words):
        if not word.startswith("--"):
            continue
        if k + 1 >= len(words) or words[k + 1].startswith("--"):  # a switch: --no_gate
            if set(terms(word.lstrip("-"))) & wanted:
                shown.append(word)
            continue
        # every value a list option takes (`--period 8 12 24 168 336`), not its first alone
        given = list(takewhile(lambda w: not re.match(r"-[-A-Za-z]", w), words[k + 1 :]))
        value = " ".join(given) if len(given) > 1 and all(map(_number, given)) else words[k + 1]
        # `--model_id ETTh1_96_96`, `ETTh1_96_{96,192}`: a label following the sweep
        if word in labels or ("{" in value and not re.fullmatch(r"\{[^{}]*\}", value)):
            continue
        if word in unrolled:
            value = "{" + ",".join(unrolled[word][:8]) + "}"
        named = set(terms(word.lstrip("-"))) & wanted or set(terms(value)) & wanted
        if named or "{" in value:  # what the task names, and a sweep the script loops over
            shown.append(f"{word} {value}")
    # at most six settings, every sweep among them: each is a run the script makes
    sweeps = sum("{" in x for x in shown)
    room = max(6 - sweeps, 0)
    kept = [x for x in shown if "{" in x or (room := room - 1) >= 0]
    return block.first, block.last, " ".join(kept), single


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split()


def _options(command: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """A command's program (the words before its first option) and its options' values."""
    words = _words(command)
    at = next((k for k, w in enumerate(words) if w.startswith("--")), len(words))
    values: dict[str, str] = {}
    for k in range(at, len(words)):
        if words[k].startswith("--"):
            nxt = words[k + 1] if k + 1 < len(words) else ""
            values[words[k]] = "" if nxt.startswith("--") else nxt
    return tuple(words[:at]), values


def options_of(command: str) -> dict[str, str]:
    """The values a command gives its options (`--data ETTh1` as {"--data": "ETTh1"})."""
    return _options(command)[1]


def _number(value: str) -> bool:
    return bool(re.fullmatch(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", value))


# options a script may tune per value of a sweep it writes out (`--d_model`, `--d_ff`,
# `--train_epochs` beside `--pred_len 336`) while the runs stay one sweep
MAX_TUNED = 3


def _unrolled(block: Block, blocks: list[Block]) -> tuple[dict[str, list[str]], set[str]]:
    """The numbers a script sweeps by writing its program's run out once per value (TimesNet's
    `--mask_rate 0.125`, then `0.25`, `0.375`, `0.5`): option -> values, `block`'s first;
    and the options labelling each run by those numbers (`--model_id ETTh1_mask_0.25`).
    The other runs count when they run the same program with the same options, differing
    only in one or two numbers and in such labels, or in the one number the labels spell
    and up to `MAX_TUNED` options tuned with it (then taken as labels); runs on other data,
    or differing in more, are other experiments."""
    program, own = _options(block.filled())
    swept: dict[str, list[str]] = {}
    labels: set[str] = set()
    for other in blocks:
        if other is block:
            continue
        prog, values = _options(other.filled())
        extra = values.keys() ^ own.keys()
        if prog != program or len(extra) > MAX_TUNED:
            continue
        shared = [f for f in values if f in own and values[f] != own[f]]
        differ = {
            f: values[f]
            for f in shared
            if _number(values[f]) and _number(own[f]) and "{" not in values[f]
        }
        words = {f: values[f] for f in shared if f not in differ}
        labels_agree = all(
            any(d in v for d in differ.values()) and any(own[g] in own[f] for g in differ)
            for f, v in words.items()
        )
        if not differ or not labels_agree:
            continue
        if any(block.loops.get(n, values) != values for n, values in other.loops.items()):
            # the same loop's other values (`for pred_len in 336 720` after `96 192`): what
            # differs is tuned for them (`--persevere 0`), the loop is the sweep
            labels |= set(differ) | extra
            continue
        if len(differ) > 2 or extra:
            # the number its labels spell is swept (`--model_id ETTm1_96_336`: --pred_len);
            # what else changes with it is tuned per value (`--d_model 16`, `--train_epochs
            # 3` at the longer horizons), hidden like a label: the script sets it
            spelled = [
                g
                for g in differ
                if words
                and all(
                    differ[g] in _label_parts(v) and own[g] in _label_parts(own[f])
                    for f, v in words.items()
                )
            ]
            tuned = (set(differ) | extra) - set(spelled)
            # another seed is a repeat of the run, not a setting tuned for the value
            if len(spelled) != 1 or len(tuned) > MAX_TUNED or any("seed" in f for f in tuned):
                continue
            labels |= tuned
            differ = {spelled[0]: differ[spelled[0]]}
        for f, v in differ.items():
            seen = swept.setdefault(f, [own[f]])
            if v not in seen:
                seen.append(v)
        labels |= {f for f in shared if f not in differ}
    return (swept, labels) if len(swept) <= 2 else ({}, set())


def _label_parts(label: str) -> list[str]:
    """The parts of a run's label (`ETTm1_96_336`: ETTm1, 96, 336)."""
    return [p for p in re.split(r"[_\-/:]+", label) if p]


def placeholder_value(value: str) -> bool:
    """A value its authors left for the user to fill: `path/to/x.pth`, `<DATA>`, `your_key`,
    `openrouter:MODEL_NAME`."""
    return bool(_PLACEHOLDER_VALUE.search(value.strip()) or _PLACEHOLDER_NAME.search(value))


def placeholder_name(value: str) -> bool:
    """A name left in capitals to replace (`openrouter:MODEL_NAME`), not a path to fill."""
    path = re.search(r"(?:^|/)path/to/|^/path/", value.strip(), re.I)
    return not path and bool(_PLACEHOLDER_NAME.search(value))


_POSITIONAL = re.compile(r"\$(?:\{)?([1-9])(?:\})?(?![\w:-])")


def takes_arguments(lines: list[str]) -> bool:
    """The script reads positional arguments with no default (`CONFIG=$1`, `python x.py $1`,
    not `${1:-8}`): run bare, it runs on nothing."""
    return any(_POSITIONAL.search(x.split("#", 1)[0]) for x in lines)


def placeholders(lines: list[str]) -> str:
    """The script's settings its authors left for the user (`segvol_ckpt="path/to/x.pth"`), as
    an instruction: a run that skips a missing checkpoint would otherwise go on silently."""
    found: list[str] = []
    for line in lines:
        m = _ASSIGN.match(line)
        if m is None:
            continue
        value = next((g for g in m.groups()[1:] if g is not None), "")
        if placeholder_value(value) and m.group(1) not in found:
            found.append(m.group(1))
    if not found:
        return ""
    return f"set the script's {', '.join(found[:4])} to your own paths"


def with_setting(command: str, setting: list[str], off: Collection[str] = ()) -> str:
    """The command with an arm's setting: a config override (`algorithm=iql`) replaces the
    one the command already gives for that key (a sweep over several included), and so does
    an option with a value (`--model x`); any other option is added at the end, unless the
    command gives it already. The switches in `off` (those of the arm's siblings) are dropped
    first."""
    if off:
        command = " ".join(w for w in command.split() if w not in off)
    if len(setting) == 1 and setting[0].startswith("-") and setting[0] in command.split():
        return command  # a switch the command gives already (`--lora` in a LoRA script)
    key = setting[0].split("=", 1)[0] + "=" if "=" in setting[0] else ""
    if len(setting) == 2 and setting[0].startswith("-"):  # `--model x` where it already has one
        words = command.split()
        for k, word in enumerate(words[:-1]):
            if word == setting[0]:  # a loop's body ends in `;`, which stays
                end = ";" if words[k + 1].endswith(";") else ""
                words[k + 1] = shlex.quote(setting[1]) + end
                return unlooped(" ".join(words))
    if key and not key.startswith("-"):
        words = command.split()
        if any(w.startswith(key) for w in words):
            group = key[:-1] + "."  # algorithm.lr=... belongs to the algorithm replaced
            kept = [w for w in words if not w.startswith(group)]
            return " ".join(setting[0] if w.startswith(key) else w for w in kept)
    return appended(command, shlex.join(setting))


def without_options(command: str, names: Collection[str]) -> str:
    """The command without the options `names` and their values (`--enc exp`, `--enc=exp`,
    a switch alone): what the program does when they are left at their defaults. An option
    set to a shell variable (`--dout $dout` inside a loop over the values) stays."""
    words = command.split()
    out: list[str] = []
    skip = False
    for k, word in enumerate(words):
        if skip:
            skip = False
            if not word.endswith(";"):
                continue
            word = ";"  # the value ended a loop's body: its `;` stays
        name = word.split("=", 1)[0]
        nxt = words[k + 1] if k + 1 < len(words) else ""
        looping = (word.split("=", 1)[1] if "=" in word else nxt).startswith("$")
        if name in names and not looping:  # `--dout $dout` goes through a loop's values
            skip = "=" not in word and bool(nxt) and not nxt.startswith("-")
            continue
        out.append(word)
    return " ".join(out).replace(" ;", ";")


def appended(command: str, words: str) -> str:
    """The command with `words` at its end, inside a documented loop's body when it is one
    (`for d in a b; do python x.py --d $d; done`)."""
    if loop_of(command):
        return re.sub(r";\s*done$", f" {words}; done", command)
    return f"{command} {words}"


def unlooped(command: str) -> str:
    """A documented loop's body alone once its variable is used no more (its option set to
    one value): `for d in a b; do python x.py --d a; done` is `python x.py --d a`."""
    loop = loop_of(command)
    if loop and not re.search(rf"\$\{{?{loop[0]}\b", loop[1]):
        return loop[1]
    return command


def shell(words: list[str]) -> str:
    """Words as a shell command, `<PLACEHOLDER>`s left bare for the reader to replace."""
    return " ".join(w if _PLACEHOLDER.fullmatch(w) else shlex.quote(w) for w in words)


# what a launch script's flags set, by the words of their names; the first group a flag's
# words hit is its own (`fc_dropout` regularizes, `learning_rate` is no data rate)
_BOOKKEEPING = frozenset(
    (
        *("id", "des", "is_training", "seed", "random_seed", "gpu", "use_gpu", "use_multi_gpu"),
        *("devices", "model_id", "log", "name", "output", "output_dir", "save", "save_dir"),
        *("checkpoints", "num_workers", "model", "model_name", "config"),
    )
)
# the lengths and widths of what goes in and out (`--patch_len` is the model's own)
_SHAPES = frozenset(
    ("seq_len", "label_len", "pred_len", "enc_in", "dec_in", "c_out", "input_len", "output_len")
)


def _group_names(text: str) -> frozenset[str]:
    """A group's names: a word by its stem (`epochs`: epoch), a compound name whole
    (`d_model`, not its parts: `reference_model` sets no architecture)."""
    return frozenset(w if "_" in w else terms(w)[0] for w in text.split())


_FLAG_GROUPS = (
    ("the regularization", _group_names("dropout drop decay wd reg l2 clip")),
    ("the training schedule", _group_names(
        "epochs epoch patience lr learning batch optimizer lradj warmup itr steps "
        "pct_start scheduler iters iterations momentum accumulate")),
    ("the data and horizons", _group_names(
        "data dataset root path features target freq horizon split")),
    ("the model's architecture", _group_names(
        "layers layer heads head d_model d_ff dim hidden embed kernel period patch stride depth "
        "width channels blocks factor moving_avg top_k individual size activation")),
)  # fmt: skip
# a flag of no group above that the run sets (CycleNet's `--cycle 24`, `--model_type mlp`):
# what sets an arm apart as often as anything else
_OWN = "the other settings"
# ... nor the kind of task run, nor how it is launched on which devices and precision
_NOT_OWN = frozenset(
    (
        *("task_name", "task", "mode", "do_predict", "do_train", "do_eval", "launcher"),
        *("nproc_per_node", "nnodes", "node_rank", "master_addr", "master_port", "local_rank"),
        *("world_size", "dist_url", "dist_backend", "rdzv_backend", "rdzv_endpoint"),
        *("bf16", "fp16", "tf32", "amp", "use_amp", "deepspeed", "fsdp", "cpu", "cuda"),
    )
)
# the groups in the order a reader meets them
_READING = (
    "the data and horizons",
    "the model's architecture",
    _OWN,
    "the regularization",
    "the training schedule",
)
MIN_GROUP = 2  # flags a group needs to be a step of its own
MIN_SPREAD = 6  # lines an invocation must span (a flag a line) to be cut into groups


def flag_groups(lines: list[str], start: int, end: int) -> list[tuple[str, list[str], int, int]]:
    """The flags a multi-line invocation (`python run.py \\` then a flag a line, lines
    `start`..`end` of the script) sets, grouped by what they set: the data and horizons, the
    model's architecture, the other settings, the regularization, the training schedule (run
    names, seeds, devices, launchers and the model's name left out), each group with its
    flags and the first and last line holding them. Nothing for an invocation written on a
    few lines."""
    if end - start + 1 < MIN_SPREAD:
        return []
    found: dict[str, tuple[list[str], list[int]]] = {}
    for no in range(start, min(end, len(lines)) + 1):
        for flag in re.findall(r"(?<![\w-])--?([A-Za-z][\w-]*)", lines[no - 1]):
            if flag.replace("-", "_") in _BOOKKEEPING:
                continue  # run names, seeds, devices, and the arm itself (`--model`)
            whole = flag.replace("-", "_").lower()
            words = {whole, *terms(whole.replace("_", " "))}
            if whole in _SHAPES:
                group: str | None = "the data and horizons"
            else:
                group = next((g for g, ws in _FLAG_GROUPS if words & ws), None)
            if group is None and len(flag) > 1 and whole not in _NOT_OWN:
                group = _OWN  # never Python's own `-u`
            if group is None:
                continue
            flags, at = found.setdefault(group, ([], []))
            if flag not in flags:
                flags.append(flag)
                at.append(no)
    groups = [
        (group, flags, min(at), max(at))
        for group, (flags, at) in sorted(found.items(), key=lambda kv: _READING.index(kv[0]))
        if len(flags) >= MIN_GROUP
    ]
    return _nested_merged(groups)


def _nested_merged(
    groups: list[tuple[str, list[str], int, int]],
) -> list[tuple[str, list[str], int, int]]:
    """The groups, one whose lines lie inside another's (the regularization's dropouts amid
    the architecture's options) merged into it: two steps would cite the same lines."""
    out: list[tuple[str, list[str], int, int]] = []
    for group in groups:
        name, flags, first, last = group
        outer = next(
            (
                k
                for k, (_, _, a, b) in enumerate(out)
                if (a <= first and last <= b) or (first <= a and b <= last)
            ),
            None,
        )
        if outer is None:
            out.append(group)
            continue
        o_name, o_flags, a, b = out[outer]
        # both groups' first flags lead, for a step naming six of them
        merged = [*o_flags[:4], *flags[:2], *o_flags[4:], *flags[2:]]
        out[outer] = (f"{o_name} and {name}", merged, min(a, first), max(b, last))
    return out


def with_held(command: str, held: list[tuple[CliFlag, str]]) -> tuple[str, str]:
    """The command with the options that set what the task holds fixed, and those settings
    as given: a value the command already gives such an option (the README's `--ds cifar10`
    where the task is on CIFAR100-LT) gives way to the task's; a `--ds=cifar10` is left as
    the authors wrote it; the others are added at the end."""
    present = set(re.findall(r"(?<!\S)--?[\w-]+", command))
    added: list[str] = []
    settings: list[str] = []
    names: set[str] = set()
    for flag, value in held:
        if flag.name in names:
            continue
        names.add(flag.name)
        given = sorted({flag.name, *flag.aliases} & present)
        if not given:
            added += [flag.name, value]
            settings += [flag.name, value]
            continue
        replaced = with_setting(command, [given[0], value])
        if replaced != command and len(replaced.split()) == len(command.split()):
            settings += [given[0], value]
            command = replaced
    if added:
        command = appended(command, shlex.join(added))
    return command, shlex.join(settings)
