"""Which option of an entry point selects an arm, sets a value the task holds fixed or sweeps
a variable: the values its parser declares, its code tests, its files or its docs name.

Like `arms.py`, this works on the task's design variables and the mined parser alone, no
file read; `arms.py` holds the arms themselves.
"""

from __future__ import annotations

import ast
import re

from expcurate.records import CliFlag, TaskDraft
from extractors.repo import stem, terms

from .arms import (
    ABLATED,
    BOOLEANS,
    DATA_VARIABLE,
    SETTING_FILLER,
    Arm,
    about_data,
    content_words,
    listed,
    numeric,
    value_forms,
)
from .query import STOPWORDS

_VALUE = re.compile(r"[\w.:/+-]+")  # what can follow an option on a command line as is


_PLACE = {"dir", "path", "root", "file", "folder", "url", "cache"}


def as_data_variables(task: TaskDraft, options: list[CliFlag]) -> TaskDraft:
    """The task with a design variable every value of which a data option of the repository
    names (`--dataset` listing "CIFAR-10" and "ImageNet-10" for a variable "group") read as
    the data sets it is: what each arm is run on, not arms of their own. The task as it is
    when none is, or when it names its data sets already."""
    dc = task.design_complexity
    names = [*dc.independent_variables, *dc.constant_variables]
    if any(about_data(str(n)) for n in names):
        return task
    data = data_options(options)
    if not data:
        return task

    def names_data(value: str) -> bool:
        if _choice(value, data) is not None:
            return True
        return any(len(fold(value)) >= 3 and fold(f.default) == fold(value) for f in data)

    renamed = {
        name: values
        for name, values in dc.independent_variables.items()
        if (vals := [str(v).strip() for v in listed(values)])
        and all(v and names_data(v) for v in vals)
    }
    if not renamed:  # the columns measured on ("Cora", "Citeseer", "Pubmed") are data sets
        # each a data set of its own: "MSVD B@4" and "MSVD R" are two metrics on one
        measured = [
            vals
            for values in dc.dependent_variables.values()
            if len(vals := [str(v).strip() for v in listed(values)]) >= 2
            and all(v and names_data(v) for v in vals)
            and len({(c or ("", v))[1] for v in vals for c in [_choice(v, data)]}) == len(vals)
        ]
        if len(measured) != 1 or not dc.independent_variables:
            return task
        variables = {**dc.independent_variables, "dataset": measured[0]}
        design = dc.model_copy(update={"independent_variables": variables})
        return task.model_copy(update={"design_complexity": design})
    if len(renamed) != 1 or len(dc.independent_variables) < 2:
        return task  # the data sets are what the task compares, or which is unclear
    (name,) = renamed
    variables = {("dataset" if k == name else k): v for k, v in dc.independent_variables.items()}
    design = dc.model_copy(update={"independent_variables": variables})
    return task.model_copy(update={"design_complexity": design})


def data_options(options: list[CliFlag]) -> list[CliFlag]:
    """The options that name a data set (`--dataset`, `--data`), not where it is stored."""
    return [
        f
        for f in options
        if not f.switch and DATA_VARIABLE & set(terms(f.name)) and not _PLACE & set(terms(f.name))
    ]


def data_set_names(options: list[CliFlag]) -> list[str]:
    """The data sets the data options list or default to, folded ("stl10"), longest first;
    names of three characters or fewer say too little to find in a file name."""
    names = {
        fold(v) for f in data_options(options) for v in [*choices_of(f), f.default.strip("'\"")]
    }
    return sorted((n for n in names if len(n) >= 4 and not n.isdigit()), key=len, reverse=True)


_OFF = {"wo", "no", "without", "disable", "remove", "skip", "drop"}


_GENERIC_OPTIONS = ("model", "method", "algorithm", "algo", "backbone", "arch", "optimizer")


def arm_option(arm: Arm, options: list[CliFlag]) -> tuple[CliFlag, str] | None:
    """An option and the value that select this arm (see `arm_flag`); the value in the first
    form that can follow an option on a command line."""
    if numeric(arm.value.split()[0]):  # "10 for PDF": a description, not a setting
        return None
    flag = arm_flag(arm, options)
    if flag is None:
        return _by_head(arm, options)
    if flag.switch:
        return flag, ""
    if len(declared_choices(flag)) == 1:
        return None  # `--metric` with choices ['msp'] only: every run has it, it selects nothing
    for form in value_forms(arm.value):  # as the parser or the code spells it: "trace"
        listed_as = [c for c in choices_of(flag) if c.lower() == form.lower()]
        if form.lower() in NO_VALUE and listed_as:
            return flag, listed_as[0]  # `--enc none` for "None", which the code tests
        if form.lower() not in NO_VALUE and (chosen := _choice(form, [flag])) is not None:
            return chosen
    for form in value_forms(arm.value):
        if form.lower() in NO_VALUE:
            continue
        default = _as_written(flag.default)
        if numeric(default) and not numeric(form):
            continue  # "--seed default": the parser wants a number
        if default and fold(default) == fold(form):
            return flag, default  # as the parser spells it: gat for "GAT"
        if _VALUE.fullmatch(form):
            return flag, form
    return None


def _as_written(default: str) -> str:
    """A parser's default as a command line gives it: unquoted, and a list of one value by
    that value (`['IDC']` for a `nargs='+'` option is `IDC`)."""
    text = default.strip()
    if text.startswith(("[", "(")):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
        if isinstance(value, list | tuple) and len(value) == 1:
            return str(value[0])
        return text
    return text.strip("'\"")


def _by_head(arm: Arm, options: list[CliFlag]) -> tuple[CliFlag, str] | None:
    """ "Exp Units" of a table stratified by the kind of token masked: its first word is a
    value one option lists (`--enc exp`) and the rest no option's, so that option selects it
    and the rest is what its results are reported by."""
    words = arm.value.split()
    if len(words) < 2 or words[0].lower() in NO_VALUE:
        return None
    if not all(w.isalpha() for w in words[1:]):
        return None  # "TimesNet (ours) / 384": a number is a setting no option was found for
    listing = [
        (f, c)
        for f in options
        if not f.switch
        for c in choices_of(f)
        if c.lower() == words[0].lower()
    ]
    rest = {w.lower() for w in words[1:]}
    if any(rest & {c.lower() for c in choices_of(f)} for f in options):
        return None  # the other words are settings too: not one option's arm
    return listing[0] if len(listing) == 1 else None


def arm_flag(arm: Arm, options: list[CliFlag]) -> CliFlag | None:
    """The option that switches this arm on: `flag_for` (in any of the value's forms), a
    switch the arm names, an option named like the variable's kind (`--model` for a model),
    or for an ablation ("w/o Conv") a switch named after the removed part (`--wo_conv`,
    `--no-conv`), words matched by prefix."""
    for form in value_forms(arm.value):
        if form.lower() in NO_VALUE:  # "(default)" says which arm runs bare, not how,
            listing = [f for f in options if form.lower() in map(str.lower, choices_of(f))]
            if len(listing) == 1:  # unless an option takes it as a value (`--enc none`)
                return listing[0]
            continue
        found = flag_for(form, arm.variable, options)
        if found is not None:
            return found
    # a switch named by the arm: --cot for "chain-of-thought (CoT) model", or by the arm and
    # its variable's kind: --use_point_prompt for "point" of "prompt type"
    for f in options:
        named = set(terms(f.name.lstrip("-").replace("-", "_")))
        if f.switch and named <= arm.words and named and not numeric(arm.value.split()[0]):
            return f
        if f.switch and names_arm(f.name, arm):
            return f
    for f in options:  # --serial_conv for "Seq Conv": one word exact, the rest abbreviated
        parts = [p for p in re.split(r"[-_]", f.name.lstrip("-")) if len(p) >= 2]
        parts = [p.lower() for p in parts if p.lower() not in SETTING_FILLER]
        if (
            f.switch
            and len(parts) >= 2
            and any(p in arm.words for p in parts)
            and all(any(_abbreviates(a, p) for a in arm.words) for p in parts)
            and not ABLATED.match(arm.value)
        ):
            return f
    m = ABLATED.match(arm.value)
    if m is None:
        kinds = set(terms(arm.variable)) & set(_GENERIC_OPTIONS)
        exact = [f for f in options if f.name.lstrip("-").lower() in kinds]
        return exact[0] if len(exact) == 1 and not exact[0].switch else None
    part = [w for w in content_words(m.group(1)) if len(w) >= 3]

    def names(f: CliFlag) -> list[str]:
        return terms(f.name.replace("-", "_"))

    for f in options:
        words = names(f)
        if set(words) & _OFF and part and all(any(w.startswith(p) for w in words) for p in part):
            return f
    return None


def sweep_option(variable: str, options: list[CliFlag]) -> CliFlag | None:
    """The option a numeric design variable is swept by: the one named as the variable is
    (`--epochs` for "Epoch", `--num_layers` for "number of layers"), else the one option
    whose name holds all the variable's words (`--adapter_layer` for "Layers")."""
    wanted = {stem(w) for w in content_words(variable.replace("_", " "))} - {"number", "num"}
    if not wanted:
        return None
    takes = [f for f in options if not f.switch and f.name.startswith("--")]

    def words(f: CliFlag) -> set[str]:
        parts = re.split(r"[-_]", f.name.lstrip("-").lower())
        return {stem(p) for p in parts if p} - {"num", "n", "number"}

    exact = [f for f in takes if words(f) == wanted]
    if len(exact) == 1:
        return exact[0]
    holding = [f for f in takes if wanted <= words(f)]
    if len(holding) == 1:
        return holding[0]
    # an option named by the variable's initials: --lr for "learning rate", --wd for
    # "weight decay"
    said = [w for w in re.findall(r"[a-z]+", variable.lower()) if w not in STOPWORDS]
    initials = "".join(w[0] for w in said)
    short = [f for f in takes if len(said) >= 2 and f.name.lstrip("-").lower() == initials]
    if len(short) == 1:
        return short[0]
    # what papers and programs name differently: an image's "resolution" is `--img_size`
    for says, named in _SAID_OTHERWISE:
        for name in named if says & wanted else []:  # the commonest name first
            found = [f for f in takes if name <= words(f)]
            if len(found) == 1:
                return found[0]
    return None


_SAID_OTHERWISE = [
    (
        {stem(w) for w in ("resolution", "resolutions")},
        [{"img", "size"}, {"image", "size"}, {"input", "size"}, {"img", "res"}],
    ),
]


def names_arm(name: str, arm: Arm) -> bool:
    """A switch's name (`--use_point_prompt`, `args.use_point_prompt`) names the arm: its
    words, less setting filler, are some of the arm's and the rest its variable's kind
    ("point" of "prompt type"), one at least (`GRAPH.TRACE` is no switch for "Trace", nor
    `--do_predict` for "prediction length")."""
    if ABLATED.match(arm.value) or numeric(arm.value.split()[0]):
        return False
    words = set(terms(name.lstrip("-").replace("-", "_")))
    parts = {w for w in words if "_" not in w} - SETTING_FILLER
    rest = parts - arm.words
    return bool(parts & arm.words) and bool(rest) and rest <= set(terms(arm.variable))


# words that describe an arm's standing, never a value a parser takes
NO_VALUE = {"default", "baseline", "none", "others", "other", "standard", "original", "vanilla"}


def _abbreviates(short: str, word: str) -> bool:
    """`short` is `word` or a short form of it: a shared prefix of four letters, or a word of
    at most four letters that starts like it ("seq" for "serial", "par" for "parallel")."""
    if short == word:
        return True
    if min(len(short), len(word)) >= 4 and (word.startswith(short) or short.startswith(word)):
        return True
    return len(short) <= 4 < len(word) and short[:2] == word[:2]


_CHOICES = re.compile(
    r"\((?:choices|values the code tests|values its comment lists|values its files name"
    r"|values its docs list): "
    r"\[([^\]]*)\]\)"
)


def setting_flags(task: TaskDraft, options: list[CliFlag]) -> list[tuple[CliFlag, str]]:
    """Options that set what the task holds fixed, with the value their parser accepts: a
    listed choice the value names ("CIFAR100-LT" -> `--dataset cifar100`), or a default or
    help the value matches."""
    out: list[tuple[CliFlag, str]] = []
    for name, values in task.design_complexity.constant_variables.items():
        for value in listed(values):
            text = str(value).strip()
            if not text or len(text.split()) > 3:
                continue
            found = _choice(text, options)
            if found is None and _VALUE.fullmatch(text):
                flag = flag_for(text, str(name), options)
                if flag is not None and numeric(flag.default) and not numeric(text):
                    flag = None  # "--seed default": the parser wants a number
                if flag is not None and flag.default.strip("'\"").lower() == text.lower():
                    text = flag.default.strip("'\"")  # the parser's spelling: ls21 for LS21
                found = (flag, text) if flag is not None and not flag.switch else None
            if found is not None:
                out.append((found[0], reciprocal(found[0], found[1]) or found[1]))
    return out


def reciprocal(flag: CliFlag, value: str) -> str:
    """The value as an option taking its reciprocal wants it: ρ = 50 is `--imbalance_ratio
    0.02` where the option's default is 0.01 (the usual ρ = 100 written 1/ρ); "" when the
    option takes the value as it is. Only a default of 0.1 or less that is one over a whole
    number, against a value of 10 or more, reads so."""
    try:
        default, given = float(flag.default.strip("'\"")), float(value)
    except ValueError:
        return ""
    whole = 1 / default if 0 < default <= 0.1 else 0.0
    if given < 10 or not whole or abs(whole - round(whole)) > 1e-6:
        return ""
    return f"{1 / given:g}"


def reciprocal_notes(task: TaskDraft, options: list[CliFlag]) -> list[str]:
    """What a reviewer must know of each setting the commands give as its reciprocal."""
    out = []
    for name, values in task.design_complexity.constant_variables.items():
        for value in listed(values):
            text = str(value).strip()
            flag = flag_for(text, str(name), options) if numeric(text) else None
            taken = reciprocal(flag, text) if flag is not None else ""
            default = flag.default.strip("'\"") if flag is not None else ""
            if flag is not None and taken and float(taken) != float(default):
                out.append(
                    f"{name} = {text} is `{flag.name} {taken}` in the commands: the option takes "
                    f"1/{name} (its default, {default}, is {name} = {round(1 / float(default))})"
                )
    return out


def listed_fit(task: TaskDraft, options: list[CliFlag]) -> int | None:
    """How many of the values the task holds fixed ("CIFAR10-LT", "ResNet18") the parser
    lists among an option's choices; None when it lists no choices at all (it cannot say)."""
    if not any(_CHOICES.search(f.help) for f in options):
        return None
    return sum(
        _choice(str(value).strip(), options) is not None
        for values in task.design_complexity.constant_variables.values()
        for value in listed(values)
        if str(value).strip()
    )


def _choice(value: str, options: list[CliFlag]) -> tuple[CliFlag, str] | None:
    """The option listing `value` among its choices, and the choice as the parser spells it:
    the value, also when written without its punctuation ("2-WLL" -> 2wl_l, "ResNet-18" ->
    resnet18), else its first word ("CIFAR100-LT" -> cifar100), else a short form it starts
    with ("LValue" -> lval)."""
    low = value.lower()
    head = re.split(r"[-_\s/]", low)[0]
    listed = [(f, c) for f in options for c in choices_of(f)]
    folded = fold(value)
    for f, c in listed:
        if c.lower() == low or (len(folded) >= 3 and fold(c) == folded):
            return f, c
    for f in options:  # a help's list is prose: its words are no data set's first word
        for c in choices_of(f, declared=True):
            if c.lower() == head:
                return f, c
    # a listed choice the name's first word starts with, the code's short form of it ("Value"
    # -> val, "LValue" -> lval, "Tiny ImageNet" -> tin): the longest, when only one option has
    # one; never the whole first word of a phrase ("Fixed at 336" is no `fixed`)
    first = fold(value.split()[0]) if value.split() else ""
    short = [
        (f, c)
        for f, c in listed
        if len(fold(c)) >= 3
        and first.startswith(fold(c))
        and (len(fold(c)) < len(first) or first == folded)
    ]
    longest = max((len(fold(c)) for _, c in short), default=0)
    best = {(f.name, c) for f, c in short if len(fold(c)) == longest}
    if len(best) == 1:
        return next((f, c) for f, c in short if len(fold(c)) == longest)
    # or the one listed choice the name is a short form of ("Cele" -> Celegans)
    longer = [(f, c) for f, c in listed if len(folded) >= 4 and fold(c).startswith(folded)]
    if len({(f.name, c) for f, c in longer}) == 1:
        return longer[0]
    return None


_HELP_LIST = re.compile(r"[\[{(]\s*([^\[\]{}()]*?[/,|][^\[\]{}()]*?)\s*[\]})]")


_DECLARED = re.compile(r"\(choices: \[([^\]]*)\]\)")


def declared_choices(flag: CliFlag) -> list[str]:
    """The values the option's parser declares (`choices=[...]`), unquoted; [] for none."""
    m = _DECLARED.search(flag.help)
    found = (c.strip().strip("'\"") for c in m.group(1).split(",")) if m else ()
    return [c for c in found if c]


def choices_of(flag: CliFlag, *, declared: bool = False) -> list[str]:
    """The values an option's parser lists, or its module's code tests it for; and unless
    only those are `declared`, those its help lists in brackets (`help='[val/exp/def*]'`,
    "options: [Autoformer, TimesNet]"; a star marks the default)."""
    out: list[str] = []
    for m in _CHOICES.finditer(flag.help):  # the code's values, then the docs' others
        found = (x.strip().strip("'\"") for x in m.group(1).split(","))
        out += [c for c in found if c and c not in out]
    if declared:
        return out
    for m in _HELP_LIST.finditer(flag.help):
        items = [x.strip().strip("'\"").rstrip("*") for x in re.split(r"[/,|]", m.group(1))]
        if len(items) >= 2 and all(re.fullmatch(r"[\w.+-]{1,40}", x) for x in items):
            return list(dict.fromkeys([*out, *items]))
    return out


def fold(text: str) -> str:
    """A name less its case and punctuation: "2-WLL" and "2wl_l" are both 2wll."""
    return re.sub(r"[^0-9a-z]", "", text.lower())


_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
    "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi",
    "χ": "chi", "ψ": "psi", "ω": "omega",
}  # fmt: skip


def spelled(name: str) -> str:
    """A symbol's Greek letters spelled out as code names them: "ρ" -> rho, "λ_1" -> lambda_1."""
    return "".join(_GREEK.get(c.lower(), c) for c in name)


def flag_for(value: str, variable: str, options: list[CliFlag]) -> CliFlag | None:
    """The option that sets `value` of `variable`: its default is the value, its help names
    the value, or its name shares a word with the variable's name."""
    low = value.lower()
    wanted = {stem(w) for w in content_words(spelled(variable))} - {
        "model",
        "method",
        "type",
        "variant",
        "name",
        "setting",
    }
    named = [f for f in options if wanted & {t for n in (f.name, *f.aliases) for t in terms(n)}]
    if low not in BOOLEANS:  # any switch's default or help says True: only its name tells
        # a number is a default by coincidence as often as not (epochs 8, workers 8): it
        # counts only for an option named like the variable (batch_size 16: --train_batch_size)
        for f in named if numeric(low) else options:
            if f.default.strip("'\"").lower() == low:
                return f
        pattern = re.compile(rf"(?<![\w-]){re.escape(low)}(?![\w-])")
        for f in [] if numeric(low) else options:
            if pattern.search(f.help.lower()):
                return f
        if not numeric(low) and (chosen := _choice(value, options)) is not None:
            return chosen[0]  # listed as the parser spells it: 2wl_l for "2-WLL"
    return named[0] if len(named) == 1 else None
