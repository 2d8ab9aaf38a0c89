"""What a reviewer must know about a run, and what makes runs comparable.

The placeholder paths a config file it passes still holds, the model its script trains when
that is a variant of the arm or the authors' own, the config list it runs when an arm is an
item of one, and the settings runs of rival programs must share. Each reads the mined index,
the files or the method's modules; none needs the planner's state for a task.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterator

from expcurate.records import CliFlag, ConfigFile, EntryPoint
from extractors.repo import RepoSearch, terms

from .arms import Arm, about_data, number_value, numeric, value_forms
from .launch import blocks_of, placeholder_name, placeholder_value, with_setting
from .methods import MethodModules
from .run import Run

# options that say where output goes or how the machine is used, not what is run
_INCIDENTAL_OPTION = re.compile(
    r"out|save|log|dir|path|device|gpu|cuda|worker|thread|port|seed|verbose|debug|name|ckpt", re.I
)
MODEL_OPTION = re.compile(r"(?<!\S)--(?:model|model_name|arch|backbone)(?:=|\s+)([A-Za-z][\w.-]*)")


# a model named with its size, as a task writes it: "Qwen3-4B-Instruct", "Llama-2-7b"
_SIZED_MODEL = re.compile(
    r"\b[A-Za-z][\w.]*(?:-[\w.]+)*?-\d+(?:\.\d+)?[BbMm](?:-[A-Za-z][\w.]*)*\b"
)


def sized_model(text: str) -> str:
    """The one model the text names with its size ("... on Qwen3-4B-Instruct"), else ""."""
    found = list(dict.fromkeys(m.group(0) for m in _SIZED_MODEL.finditer(text)))
    return found[0] if len(found) == 1 else ""


# the families of language models papers compare, as their names begin ("DeepSeek-V3.2",
# "Llama-2-13b", "GPT-3.5"): a model to run, never a method to write
_LLM_FAMILY = re.compile(
    r"^(?:gpt|llama|vicuna|alpaca|qwen|deepseek|mistral|mixtral|claude|gemini|palm|chatglm|"
    r"baichuan|internlm|falcon|gemma|codellama|code-llama|starcoder|wizardlm|olmo|"
    r"flan-t5|bloom|pythia)(?:[-\s]?\d[\w.]*|-[A-Za-z]*\d[\w.]*)?(?:[-\s][\w.]+)*$",
    re.I,
)


# a way of tuning a model ("Alpaca-LoRA", "LLaMA-Adapter"): a method, not a model to query
_TUNING = re.compile(r"lora|adapter|tun(?:e|ed|ing)\b|prompt|distill", re.I)


def names_llm(value: str) -> bool:
    """The value names a language model: a known family's name with its version or size
    ("DeepSeek-V3.2", "Qwen3-4B Instruct", "Llama-7b"), or any name with a size in
    parameters; not a setting ("phi = 0.5") nor a description ("non-code-tuned models")."""
    text = value.strip()
    if "=" in text or len(text.split()) > 3 or _TUNING.search(text):
        return False
    return bool(_LLM_FAMILY.match(text) or _SIZED_MODEL.fullmatch(text.split()[0]))


def model_keys(config: ConfigFile) -> list[str]:
    """The keys of a config file whose values are model names left to fill
    (`models.generator: openrouter:MODEL_NAME`)."""
    return [
        k
        for k, v in config.values.items()
        if placeholder_name(v) and "model" in v.lower() and placeholder_value(v)
    ]


def config_placeholders(configs: list[ConfigFile], model: str = "") -> str:
    """The placeholder paths inside the config files a command passes (`"ct_path":
    "path/to/ct"` in config/config_demo.json), as an instruction: the run would fail, or
    read nothing, until the user fills them. A model name left to fill (`MODEL_NAME`) is
    the task's `model` when it names one."""
    out: list[str] = []
    for config in configs:
        keys = [k for k, v in config.values.items() if placeholder_value(v)]
        if not keys:
            continue
        names = [config.values[k] for k in keys if placeholder_name(config.values[k])]
        if not names:
            out.append(f"set {', '.join(keys[:4])} in {config.path} to your own paths")
        else:  # names left to fill (`openrouter:MODEL_NAME`): the model, the key to use
            more = f" and {len(keys) - 4} more" if len(keys) > 4 else ""
            left = ", ".join(dict.fromkeys(names))[:120]
            if model and any("model" in n.lower() for n in names):
                left += f"; the task's model is {model}"
            out.append(
                f"set {', '.join(keys[:4])}{more} in {config.path} to your own values "
                f"(it leaves {left})"
            )
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


def variant_warning(run: Run, arm: Arm, methods: MethodModules) -> tuple[str, str]:
    """The model the arm's script trains when its name holds the arm's name but is not it
    (`--model CycleiTransformer` in scripts/iTransformer/ for "iTransformer"), and the
    warning a reviewer should read: a baseline run as the authors' variant of it."""
    m = MODEL_OPTION.search(run.invocation)
    if m is None:
        return "", ""
    model = m.group(1)
    names = [f for f in value_forms(arm.value) if re.fullmatch(r"[\w.-]+", f)]
    if any(model.lower() == n.lower() for n in names):
        return "", ""
    inside = [n for n in names if len(n) >= 3 and n.lower() in model.lower()]
    if not inside:
        return "", ""
    own = methods.modules_by_stem().get(inside[0].lower())
    tail = "" if own else f"; the repository has no {inside[0]} model of its own"
    return model, (
        f"the script trains --model {model}, a variant of {inside[0]}, not {inside[0]}{tail}"
    )


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


# options naming where a run writes what it trains or measures
OUTPUT_OPTION = re.compile(
    r"--(?:ex_name|exp_name|experiment_name|experiment|output_dir|out_dir|output_path|"
    r"save_dir|save_path|work[-_]dir|log_dir|logdir|checkpoint_dir|ckpt_dir|run_name)"
)
_OUTPUT_VALUE = r"(?P<sep>=|\s+)(?P<value>[^\s;&|$`'\"]+)(?=\s|$)"


def apart(
    runs: list[Run],
    unset: Callable[[str], dict[str, str]],
    takes: Callable[[str], set[str]],
) -> None:
    """Runs of one task that would write to the same place (`--output_dir ./checkpoint/` in
    each of three sweep runs: the second overwrites the first) each write to their own: the
    value with the run's arms after it (`./checkpoint/layers_10/`, `mmnist_simvp_learning_
    rate_0.01`), in the evaluation chained after it too. `unset(command)` gives the output
    options the command's program has and the command leaves at their defaults (`model_path:
    save/CIFAR-10` in a config): those are set; `takes(command)` the options its programs
    take. A value no two runs share, or a shell variable, is left as it is."""
    found: dict[tuple[str, str], list[tuple[Run, bool]]] = {}
    for run in runs:
        if run.missing or not run.command:
            continue
        for m in re.finditer(OUTPUT_OPTION.pattern + _OUTPUT_VALUE, run.command):
            option = m.group(0).split("=")[0].split()[0]
            found.setdefault((option, m.group("value")), []).append((run, True))
        for option, value in unset(run.command).items():
            if value and "$" not in value:
                found.setdefault((option, value), []).append((run, False))
    for (option, value), sharing in found.items():
        sharing = list({id(r): (r, given) for r, given in sharing}.values())
        names = [run_slug(r) for r, _ in sharing]
        if len(sharing) < 2 or len(set(names)) < len(names):
            continue  # one run, or runs this cannot tell apart
        data = [run_data(r) for r, _ in sharing]
        for (run, given), name, its in zip(sharing, names, data, strict=True):
            own = own_output(value, name, its, data)
            pattern = re.compile(
                "(" + re.escape(option) + r"(?:=|\s+))" + re.escape(value) + r"(?=\s|$)"
            )
            if given:
                run.command = pattern.sub(r"\g<1>" + own.replace("\\", "\\\\"), run.command)
            else:
                run.command = with_setting(run.command, [option, own])
            if run.then and option in takes(run.then):
                run.then = with_setting(run.then, [option, own])


def own_output(value: str, slug: str, data: str, all_data: list[str]) -> str:
    """A run's own place to write where runs share `value`: the value with the run's slug
    after it (`./checkpoint/layers_10/`), or, when the value names one run's data set as a
    word (`save/CIFAR-10`) and the runs are told apart by their data sets alone, the value
    naming the run's own (`save/CIFAR-100`)."""
    word = next((d for d in all_data if d and re.search(_word(d), value)), None)
    if word is not None and all(all_data) and len(set(all_data)) == len(all_data):
        return re.sub(_word(word), lambda _: data, value)
    return f"{value}{slug}/" if value.endswith("/") else f"{value}_{slug}"


def run_data(run: Run) -> str:
    """The data set a run runs on: its own, else the arm it runs of a data variable."""
    return run.data or next((a.value for a in run.arms if about_data(a.variable)), "")


def _word(text: str) -> str:
    """A pattern of the text as a word of its own: CIFAR-10, not the one inside CIFAR-100."""
    return rf"(?<![\w]){re.escape(text)}(?![\w])"


def run_slug(run: Run) -> str:
    """What tells a run apart in a file name: its arms and data set ("layers_10"), else
    "default"."""
    said = [  # a name without its note: "moganet_tiny (MogaNet-T)" is moganet_tiny
        f"{a.variable} {number_value(a.value)}"
        if numeric(a.value)
        else re.sub(r"\([^()]*\)", " ", a.value)
        for a in run.arms
    ]
    text = " ".join([*said, run.data]) or "default"
    return re.sub(r"[^a-z0-9.]+", "_", text.lower()).strip("_.") or "default"


_MULTI_SCALE = re.compile(r"(?i)\((?:MS|multi[- ]?scale)\)|\bmulti[- ]?scale\b")
_MULTI_SCALE_HELP = re.compile(r"(?i)multi[- _]?scale")  # never "ms", which may be time


def multi_scale(
    runs: list[Run], measured: list[str], switches_of: Callable[[str], list[CliFlag]]
) -> None:
    """A measure taken at several scales ("mIoU (MS)") beside its single-scale one: each
    run's evaluation is run again with the evaluation program's switch for it (`--aug-test`,
    "Use Flip and Multi scale aug")."""
    wanted = [m for m in measured if _MULTI_SCALE.search(m)]
    if not wanted:
        return
    for run in runs:
        command = run.then or ""
        if run.missing or not command:
            continue
        switch = next(
            (
                f
                for f in switches_of(command)
                if f.switch and (_MULTI_SCALE_HELP.search(f.help) or "multi_scale" in f.name)
            ),
            None,
        )
        if switch is None or switch.name in command:
            continue
        run.again = (", ".join(wanted), f"{command} {switch.name}")


def unopened(
    runs: list[Run],
    entries: dict[str, EntryPoint],
    programs_of: Callable[[str], list[str]],
    known: set[str],
) -> None:
    """A run whose options name a file its program opens that the repository does not have
    (`config/2fwl/Pubmed.yaml` for `--pattern 2fwl --dataset Pubmed`, where the program reads
    `f"config/{args.pattern}/{args.dataset}.yaml"`) says so: as written it stops there."""
    for run in runs:
        if run.missing or not run.command:
            continue
        words = run.command.replace("=", " ").split()
        for program in dict.fromkeys(programs_of(run.command)):
            e = entries.get(program)
            if e is None:
                continue
            for template in e.opens:
                values: dict[str, str] = {}
                for name in re.findall(r"\{(\w+)\}", template):
                    flag = next(
                        (f for f in e.flags if f.name.lstrip("-").replace("-", "_") == name), None
                    )
                    spelled = [flag.name, *flag.aliases] if flag else [f"--{name}"]
                    given = next(
                        (words[k + 1] for k, w in enumerate(words[:-1]) if w in spelled), None
                    )
                    values[name] = given or (flag.default.strip("'\"") if flag else "")
                if any(v in ("", "None") or set(v) & set("$<>{}*") for v in values.values()):
                    continue  # a value the run leaves unset, or one only the shell knows
                path = template.format(**values)
                if not any(k == path or k.endswith("/" + path) for k in known):
                    note = (
                        f"{posixpath.basename(program)} opens {path} for these options, which "
                        "the repository does not have: write it first"
                    )
                    if note not in run.warning:
                        run.say(note)


# calls reading a file named by their first argument
READS = {"open", "load", "read_csv", "loadtxt", "read_json", "read_table", "genfromtxt"}


def run_programs(
    runs: list[Run], programs_of: Callable[[str], list[str]]
) -> Iterator[tuple[Run, str, str]]:
    """Each run the reviewer gets a command for, with the folder each of its commands (its
    evaluation and what runs before that) moves into (`cd x &&`, else "") and each program
    that command runs, once per command."""
    for run in runs:
        if run.missing or not run.command:
            continue
        for command in (run.command, run.then, *run.then_after):
            at = re.match(r"\s*cd\s+(\S+)\s*&&", command or "")
            here = posixpath.normpath(at.group(1)) if at else ""
            for program in dict.fromkeys(programs_of(command) if command else []):
                yield run, here, program


def misplaced(
    runs: list[Run],
    programs_of: Callable[[str], list[str]],
    tree_of: Callable[[str], ast.Module | None],
    known: set[str],
    opened: dict[str, list[str]] | None = None,
) -> None:
    """A run's program (its evaluation's too) opening a file by a name relative to where it
    runs (`open('common600_8223.txt')`) that the repository has only in one other folder
    (valids/common600_8223.txt) says so: as written it stops there. `opened` keeps each
    program's names across calls."""
    by_name: dict[str, list[str]] = {}
    for k in known:
        by_name.setdefault(posixpath.basename(k), []).append(k)
    opened = {} if opened is None else opened
    for run, here, program in run_programs(runs, programs_of):
        if program not in opened:
            opened[program] = _opened_names(program, tree_of)
        for name in opened[program]:
            if posixpath.normpath(posixpath.join(here, name)) in known:
                continue
            elsewhere = by_name.get(posixpath.basename(name), [])
            if len(elsewhere) != 1:
                continue  # made by a run, downloaded, or one of several
            note = (
                f"{posixpath.basename(program)} opens {name} from the folder it runs "
                f"in, which the repository has at {elsewhere[0]}: copy it there first"
            )
            if note not in run.warning:
                run.say(note)


def uncompiled(
    runs: list[Run],
    programs_of: Callable[[str], list[str]],
    error_of: Callable[[str], tuple[int, str] | None],
) -> None:
    """A Python program a run runs (its evaluation, the trainings it is chained after) that
    Python cannot compile as the repository has it (stage2.py's broken indentation, a Python 2
    `print`) says so with where the compiler stops: as written the run stops before it
    starts. `error_of` gives a program's line and message, None when it compiles."""
    for run in runs:
        if run.missing or not run.command:
            continue
        commands = [c for c in (run.command, run.then, *run.then_after) if c]
        programs = [p for c in commands for p in programs_of(c)] + run.trained_by
        for program in dict.fromkeys(p for p in programs if p.endswith(".py")):
            if (error := error_of(program)) is None:
                continue
            line, message = error
            note = (
                f"{posixpath.basename(program)} does not compile as the repository has it "
                f"(Python stops at line {line}: {message.rstrip('.')}): mend it first"
            )
            if note not in run.warning:
                run.say(note)


def folder_then_file(
    runs: list[Run],
    programs_of: Callable[[str], list[str]],
    tree_of: Callable[[str], ast.Module | None],
) -> None:
    """A run's program that makes an option's value a folder and then opens the same value
    as a file (TRICE's evaluate.py: `os.mkdir(args.target_path)`, then `open(target_path,
    "w")` with `target_path = os.path.join(args.target_path)`) says so: as written it stops
    there."""
    found: dict[str, list[tuple[str, int, int]]] = {}  # per program, read once for the runs
    for run in runs:
        if run.missing or not run.command:
            continue
        commands = [c for c in (run.command, run.then, *run.then_after) if c]
        for program in dict.fromkeys(p for c in commands for p in programs_of(c)):
            if program not in found:
                tree = tree_of(program) if program.endswith(".py") else None
                found[program] = _folder_files(tree) if tree is not None else []
            for option, made, opened in found[program]:
                note = (
                    f"{posixpath.basename(program)} makes args.{option} a folder (line {made}) "
                    f"and then opens it as a file (line {opened}): mend one of the two first"
                )
                if note not in run.warning:
                    run.say(note)


def _folder_files(tree: ast.Module) -> list[tuple[str, int, int]]:
    """The options a program makes a folder of (`os.mkdir(args.x)`, `os.makedirs(args.x)`)
    and then opens as a file, directly or through a name bound to it alone (`p =
    os.path.join(args.x)`), with the two lines."""

    def option(node: ast.expr) -> str | None:
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("args", "opt", "cfg")
        ):
            return node.attr
        return None

    bound: dict[str, str] = {}  # a name bound to one option's value alone
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(value, ast.Call) and ast.unparse(value.func).endswith("path.join"):
                value = value.args[0] if len(value.args) == 1 else value
            if isinstance(target, ast.Name) and (got := option(value)):
                bound[target.id] = got
    made: dict[str, int] = {}
    opened: dict[str, int] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = ast.unparse(node.func)
        first = node.args[0]
        got = option(first) or (bound.get(first.id) if isinstance(first, ast.Name) else None)
        if got is None:
            continue
        if name.endswith(("mkdir", "makedirs")):
            made.setdefault(got, node.lineno)
        elif name == "open":
            opened.setdefault(got, node.lineno)
    return [(o, made[o], opened[o]) for o in made if o in opened and made[o] < opened[o]]


def _opened_names(program: str, tree_of: Callable[[str], ast.Module | None]) -> list[str]:
    """The relative file names a program reads by a literal (`open('common600_8223.txt')`,
    `pd.read_csv("data/x.csv")`)."""
    tree = tree_of(program) if program.endswith(".py") else None
    if tree is None:
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0]
        if called not in READS or not isinstance(first, ast.Constant):
            continue
        name = first.value
        if (
            isinstance(name, str)
            and re.fullmatch(r"[\w./-]+\.\w{1,5}", name)
            and not name.startswith(("/", "~"))
            and name not in names
        ):
            names.append(name)
    return names


# a config's key loading weights from a file: `checkpoint='pretrained/mscan_t.pth'`,
# `load_from = "ckpt/x.pt"`, `pretrained: weights/y.bin`
_WEIGHTS = re.compile(
    r"\b(?:checkpoint|pretrained|weights?|ckpt|load_from|resume_from|init_from)\w*['\"]?\s*[=:]\s*"
    r"['\"]?([\w./-]+\.(?:pth|pt|ckpt|bin|safetensors|pkl|h5|npz))\b",
    re.I,
)


def unfetched(
    runs: list[Run],
    files_of: Callable[[Run], list[str]],
    text_of: Callable[[str], str],
    known: set[str],
) -> None:
    """A run whose config loads weights from a path inside the repository that it does not
    have (`init_cfg=dict(type='Pretrained', checkpoint='pretrained/mscan_t.pth')`) says to
    fetch them there first: as written it stops when it loads them."""
    for run in runs:
        if run.missing:
            continue
        for path in files_of(run):
            try:
                text = text_of(path)
            except (OSError, ValueError):
                continue
            for weights in dict.fromkeys(m.group(1) for m in _WEIGHTS.finditer(text)):
                if weights.startswith("/") or "://" in weights:
                    continue  # the user's own absolute path, or a URL the library fetches
                inside = posixpath.normpath(weights).lstrip("./")
                if any(k == inside or k.endswith("/" + inside) for k in known):
                    continue
                note = (
                    f"{posixpath.basename(path)} loads {weights}, which the repository does not "
                    "have: download those pretrained weights there first"
                )
                if note not in run.warning:
                    run.say(note)


# a program copying its config over the parsed options: the config wins
_CONFIG_WINS = re.compile(
    r"setattr\(\s*(?:self\.)?(?:args|opt|opts|cfg)\s*,\s*\w+\s*,\s*\w+\[\s*\w+\s*\]\s*\)"
    r"|(?:vars\(\s*(?:args|opt)\s*\)|(?:args|opt)\.__dict__)\.update\(\s*\w+\s*\)"
)


_ONLY_UNSET = re.compile(r"is None|== None|not hasattr|getattr\([^)]*\)\s*(?:is|==)")


def overridden(
    runs: list[Run],
    programs_of: Callable[[str], list[str]],
    configs_of: Callable[[str], list[ConfigFile]],
    text_of: Callable[[str], str],
) -> None:
    """A run passing an option its config file sets too, to a program that copies its config
    over the options it parsed (`for key in config: setattr(args, key, config[key])`): the
    config's value is the one run, so the option is set in the config instead."""
    for run in runs:
        command = run.invocation or run.command
        if run.missing or not command:
            continue
        wins = ""
        for program in programs_of(command):
            try:
                text = text_of(program) if program.endswith(".py") else ""
            except (OSError, ValueError):
                continue
            for m in _CONFIG_WINS.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                before = "\n".join(text.splitlines()[max(line - 3, 0) : line])
                if _ONLY_UNSET.search(before):  # it fills only what the options left unset
                    continue
                wins = f"{program}:{line}"
                break
            if wins:
                break
        if not wins:
            continue
        words = command.replace("=", " ").split()
        given = [w for w in words if w.startswith("--") and len(w) > 2]
        for config in configs_of(command):
            keys = {k.split(".", 1)[0] for k in config.values}
            both = [g for g in given if g[2:].replace("-", "_") in keys]
            if both:
                note = (
                    f"{config.path} sets {', '.join(g[2:] for g in both)} too, and the program "
                    f"lets its config override the options ({wins}): set "
                    f"{'them' if len(both) > 1 else 'it'} in a copy of {config.path} instead"
                )
                if note not in run.warning:
                    run.say(note)


# a model's own check on the options it is built with: `assert configs.e_layers == configs.d_layers`
_EQUAL_OPTIONS = re.compile(r"\bassert\s+\w+\.(\w+)\s*==\s*\w+\.(\w+)")


def model_checks(
    runs: list[Run], module_of: Callable[[str], str | None], text_of: Callable[[str], str]
) -> None:
    """A command built for a model (no launch script of its own) that gives two options the
    model's module asserts equal (`assert configs.e_layers == configs.d_layers` in
    models/ETSformer.py) different values: the second is set to the first's value, and
    the run says so; as written it would stop at the assertion."""
    for run in runs:
        if run.missing or run.script or not run.command:
            continue
        model = MODEL_OPTION.search(run.command)
        path = module_of(model.group(1)) if model else None
        if path is None:
            continue
        try:
            text = text_of(path)
        except (OSError, ValueError):
            continue
        for first, second in _EQUAL_OPTIONS.findall(text):
            given = {
                m.group(1): m.group(2) for m in re.finditer(r"(?<!\S)--(\w+)[= ](\S+)", run.command)
            }
            if first in given and second in given and given[first] != given[second]:
                run.command = with_setting(run.command, [f"--{second}", given[first]])
                note = f"{path} asserts {first} == {second}: --{second} set to {given[first]}"
                run.say(note)


def looked_up(
    runs: list[Run],
    programs_of: Callable[[str], list[str]],
    text_of: Callable[[str], str],
    modules_of: Callable[[str], list[str]] = lambda p: [p],
    tables: dict[str, dict[str, tuple[str, list[str], int]]] | None = None,
) -> None:
    """An option's value a program looks up in a table of its own (`eval_dict[args.task]`,
    `eval_dict = {"Math": ..., "LAMA": ...}` in evaluate/evaluate.py), or a module it imports
    does (`model_dict[self.args.model]` in exp/exp_main.py), must be one of the table's keys:
    a command giving `--task math`, as TRICE's README does, stops at a KeyError. A value the
    keys hold in another case is set to the key, and the run says so; a value none of them is,
    is said. `modules_of` gives a program with the repository modules it imports; `tables`
    keeps each module's tables read, across the tasks of a repository."""
    tables = {} if tables is None else tables
    for run in runs:
        if run.missing or not run.command:
            continue
        # each command of the run, and where a corrected one goes (-1: the run's own, -2: its
        # evaluation, i: what writes the evaluation's input); a launch script's is not edited
        fixed = [(run.script == "", run.invocation or run.command, -1)]
        fixed += [(True, run.then, -2)] if run.then else []
        fixed += [(True, c, i) for i, c in enumerate(run.then_after)]
        for editable, command, where in fixed:
            given = {
                m.group(1): m for m in re.finditer(r"(?<!\S)--(\w+)[= ]('[^']*'|\S+)", command)
            }
            read = [
                m
                for p in programs_of(command)
                if p.endswith(".py")
                for m in modules_of(p)
                if m.endswith(".py")
            ]
            for program in dict.fromkeys(read):
                if program not in tables:
                    tables[program] = _lookup_tables(text_of, program)
                for option, (name, keys, line) in tables[program].items():
                    m = given.get(option)
                    if m is None:
                        continue
                    value = m.group(2).strip("'\"")
                    if not value or value in keys or re.search(r"[$<{]", value):
                        continue  # a shell variable or a placeholder is the user's to fill
                    same = [k for k in keys if k.lower() == value.lower()]
                    said = f"{program} looks --{option} up in {name} ({program}:{line}), "
                    said += f"whose keys are {', '.join(keys[:6])}"
                    if len(same) == 1 and not editable:  # a launch script's own line
                        note = f"{said}: give --{option} {same[0]}, not {value}, in {run.script}"
                    elif len(same) == 1:
                        new = command[: m.start(2)] + same[0] + command[m.end(2) :]
                        if where == -1:
                            run.command = run.command.replace(command, new)
                        elif where == -2:
                            run.then = new
                        else:
                            run.then_after[where] = new
                        note = f"{said}: --{option} {value} set to {same[0]}"
                    else:
                        note = f"{said}: --{option} {value} is none of them"
                    if note not in run.warning:
                        run.say(note)


# what holds the parsed options a table is indexed with: `args.task`, `self.args.model`, `opt.x`
_OPTIONS_HOLDER = re.compile(r"(?:^|\.)(?:args|opts?|options|cfg|config|hparams)$")


def _lookup_tables(
    text_of: Callable[[str], str], program: str
) -> dict[str, tuple[str, list[str], int]]:
    """The program's tables of string keys it indexes with an option (`eval_dict[args.task]`),
    by the option: the table's name, its keys and the line it is indexed at."""
    try:
        tree = ast.parse(text_of(program))
    except (OSError, ValueError, SyntaxError):
        return {}
    tables: dict[str, list[str]] = {}
    # tables the program adds to (`d[k] = v`, `d.update(...)`), or looks in before it
    # indexes them (`if args.task in d:`): a value they lack need not fail
    grown: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name):
                grown.add(node.value.id)
        elif isinstance(node, ast.Compare) and any(
            isinstance(op, ast.In | ast.NotIn) for op in node.ops
        ):
            grown |= {c.id for c in node.comparators if isinstance(c, ast.Name)}
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("update", "setdefault")
            and isinstance(node.func.value, ast.Name)
        ):
            grown.add(node.func.value.id)
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Dict)
        ):
            keys = [
                k.value
                for k in node.value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            ]
            if len(keys) >= 2 and len(keys) == len(node.value.keys):
                tables[node.targets[0].id] = keys
    out: dict[str, tuple[str, list[str], int]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and node.value.id in tables
            and node.value.id not in grown
            and isinstance(node.slice, ast.Attribute)
            and _OPTIONS_HOLDER.search(ast.unparse(node.slice.value))
        ):
            out.setdefault(node.slice.attr, (node.value.id, tables[node.value.id], node.lineno))
    return out


_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10}
_REPEATED = re.compile(
    # "mean over six random runs", "mean and standard deviation over six random runs"
    r"(?i)(?:averag\w*|mean)(?:\s+and\s+(?:the\s+)?(?:standard\s+deviations?|std|variances?))?"
    r"\s+(?:over|of|from|across)\s+(\d+|two|three|four|five|six|ten)\s+"
    r"(?:independent\s+|different\s+|random\s+)?(?:runs|seeds|iterations|trials|repetitions)"
    r"|(?:with|over|using|across)\s+(\d+|two|three|four|five|six|ten)\s+(?:different\s+|random\s+)?"
    r"(?:random\s+)?seeds"
)
_SEED_OPTION = re.compile(r"^--(?:random_?|manual_?)?seed$", re.I)


def repeated(runs: list[Run], text: str, flags_of: Callable[[str], list[CliFlag]]) -> None:
    """Results the paper averages over several runs ("averaged over three runs", "with five
    seeds"): each run says to repeat it so, by the program's seed option when it has one
    (`--seed 0`, `1`, `2`), and to average."""
    m = _REPEATED.search(text)
    if m is None:
        return
    said = (m.group(1) or m.group(2)).lower()
    times = int(said) if said.isdigit() else _NUMBER_WORDS.get(said, 0)
    if not 2 <= times <= 10:
        return
    for run in runs:
        if run.missing or not run.command:
            continue
        seed = next((f for f in flags_of(run.command) if _SEED_OPTION.match(f.name)), None)
        if any("seed" in a.variable.lower() for a in run.arms):
            continue  # the task sweeps the seed itself
        values = ", ".join(str(i) for i in range(times))
        note = (
            f"repeat each run with {seed.name} {values} and average, as the paper does"
            if seed is not None
            else f"repeat each run {times} times and average, as the paper does"
        )
        run.say(note)
