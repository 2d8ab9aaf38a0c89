"""What a task varies and how a repository selects it: a task's arms (the values of its
independent variables), what it holds fixed and measures, and the option, switch or in-code
setting of an entry point that selects each arm.

`plan.py` lays the arms out on the code; everything here works on the task's design variables
and the entry point's mined parser alone, no file read.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from expcurate.records import CliFlag, TaskDraft
from extractors.repo import stem, terms

from .query import GENERIC, STOPWORDS, TaskQuery

MAX_VALUE_WORDS = 4


_DATA_VARIABLE = {"data", "dataset", "benchmark", "corpus"}
_SIZE = re.compile(r"\d+\s*[×x]\s*\d+")  # "7 × 7", "512x512"


# the name a long design value starts with: "PDF(336)" of "PDF(336) with period patching"
_NAME_HEAD = re.compile(r"^([A-Za-z][\w./+-]*(?:\([^()\s]*\))?\*?)\s+(?:with|using|on|\(|-|:)")


# a value's explanation in parentheses, after a space: "COPRO (optimizes only the prompt)"
_EXPLAINED = re.compile(r"\s+\([^()]*\)")
_EXAMPLES = re.compile(r"\((?:e\.g\.|i\.e\.|such as|for example|like)", re.I)


def unexplained(text: str) -> str:
    """A value without its explanations in parentheses: "1e7 (original)" is 1e7."""
    return _EXPLAINED.sub("", text).strip()


_ONE_EXAMPLE = re.compile(
    r"\((?:e\.g\.|i\.e\.|such as|for example),?\s*([A-Z][\w.+-]*[A-Z\d][\w.+-]*)([^()]*)\)"
)


_ABLATION_IN_TEXT = re.compile(r"\b(?:w/o|without)\s+(?:the\s+)?([A-Za-z][\w-]*)", re.I)


_VALUE = re.compile(r"[\w.:/+-]+")  # what can follow an option on a command line as is


@dataclass
class Arm:
    variable: str
    value: str
    words: frozenset[str]
    # the value as the task writes it, explanation included ("PatchTST(336)* with enhanced
    # patching (parameters: patch_len=64, stride=14)"); not part of what the arm is
    said: str = field(default="", compare=False)


@dataclass(frozen=True)
class CodeSetting:
    """A switch the entry point hard-codes (`args.use_zoom_in = True` in its main block): an
    arm its parser does not expose is selected by editing the line."""

    path: str
    line: int
    target: str  # as written: args.use_zoom_in
    value: bool  # as the code sets it
    words: frozenset[str]  # what the name is about: {"zoom"} for use_zoom_in


# a table's summary row or column ("Average", "Avg."), never a setting to run
SUMMARY = re.compile(r"(?i)(average|avg|overall|total)\.?$")


def notation(text: str) -> bool:
    """A value written in symbols: letters standing for things, applied and combined ("T a(x)
    + T b(x)", "x + x"), never a word ("w/o") nor a bare letter."""
    marks = re.findall(r"[A-Za-z\d]+", text)
    return (
        re.fullmatch(r"[A-Za-z\d\s+()×*·-]+", text) is not None
        and re.search(r"[+×*·]|[A-Za-z\d]\(", text) is not None
        and any(m.isalpha() for m in marks)
        and all(len(m) <= 2 for m in marks)
    )


def _value_name(text: str) -> str:
    """A design value as an arm's name: a short value as it is; a long one by the name it
    starts with ("PDF(336) with period-based patching", "SegNeXt-T (c) w/ stage 1" with its
    short label), else without its explanation ("DSPy's COPRO (optimizes only the prompt)");
    "" for a long phrase naming nothing ("model type (e.g., linear or MLP)")."""
    size = len(_SIZE.sub("x", text).split())  # "7 × 7 Br": a kernel's size is one word
    if size <= MAX_VALUE_WORDS or notation(text):
        return text
    if ABLATED.match(text) and size <= 2 * MAX_VALUE_WORDS:
        return text  # "w/o 7 × 7 Br, 21 × 21 Br": what an ablation takes away, whole
    head = _NAME_HEAD.match(text)
    if head and re.search(r"[A-Z\d]", head.group(1)):
        label = re.match(r"\s*\(\w{1,3}\)", text[len(head.group(1)) :])
        return head.group(1) + (label.group(0) if label else "")
    bare = unexplained(text)
    # a kind of model given by one example ("Transformer-based models (e.g., FEDformer with a
    # 96 look-back window)"): the example is what runs; several ("e.g., linear or MLP") none
    if (one := _ONE_EXAMPLE.search(text)) and not re.search(r",| or | and ", one.group(2)):
        return one.group(1)
    if len(bare.split()) <= MAX_VALUE_WORDS and re.search(r"[A-Z\d]", bare):
        return "" if _EXAMPLES.search(text) else bare
    return ""


def task_arms(task: TaskDraft) -> list[Arm]:
    """Every short value of every independent variable, as an arm of the experiment; for a
    task without design variables, the parts its question removes ("w/o Gate")."""
    out: list[Arm] = []
    if not task.design_complexity.independent_variables:
        for m in _ABLATION_IN_TEXT.finditer(task.question):
            text = " ".join(m.group(0).split())
            words = frozenset(content_words(m.group(1)))
            if words and all(a.value != text for a in out):
                out.append(Arm("ablation", text, words))
        return out
    for variable, values in task.design_complexity.independent_variables.items():
        kept = [str(v).strip() for v in without_measures(listed(values))]
        names = [_value_name(v) for v in kept]
        for text, name in zip(kept, names, strict=True):
            said = text
            # a long value named as another value is ("SegNeXt-T (c) w/ stage 1" beside
            # "SegNeXt-T (c)"): its name tells nothing apart, so it is kept whole
            if name != text and name and names.count(name) + kept.count(name) > 1:
                name = text
            text = name
            if not text or SUMMARY.match(text):
                continue
            words = frozenset(content_words(text))
            if not words and re.fullmatch(r"[A-Z][\w-]{2,}", text):
                words = frozenset(terms(text))  # a method named by a common word: "Value"
            # a setting written as notation ("T a(x) + T b(x)", "x + x": which views of an
            # input are paired) names no code, but it is an arm the reviewer must see run
            symbolic = not words and notation(text)
            if (words or numeric(text) or symbolic) and all(
                (a.variable, a.value) != (str(variable), text) for a in out
            ):  # seeds 0, 1, 2 too: a sweep, though no word names them
                out.append(Arm(str(variable), text, words, said))
    return out


def task_settings(task: TaskDraft, q: TaskQuery) -> set[str]:
    """Words of what the task holds fixed (its data sets, its setting) and of what its question
    names: a launch script named after them runs this task, not a sibling experiment."""
    out = {stem(n) for n in q.focus}
    for values in task.design_complexity.constant_variables.values():
        for value in listed(values):
            text = str(value).strip()
            if text and len(text.split()) <= 3:
                out |= set(content_words(text))  # numbers too: a script named Input-96 for L=96
    return out


def held_backbones(task: TaskDraft) -> frozenset[str]:
    """The stems of the backbones a task holds fixed ("using ResNet18": `resnet18`), when no
    arm names the same model: what every compared method is built on."""
    armed = {stem(w) for a in task_arms(task) for w in a.value.split()}
    return (
        frozenset(
            stem(str(value).strip())
            for name, values in task.design_complexity.constant_variables.items()
            if re.search(r"\bbackbones?\b", str(name), re.I)
            for value in listed(values)
            if str(value).strip() and len(str(value).split()) == 1
        )
        - armed
    )


def task_datasets(task: TaskDraft) -> list[str]:
    """The values of design variables about data ("dataset": ["ETTh1", "ETTh2"])."""
    dc = task.design_complexity
    out: list[str] = []
    for name, values in [*dc.constant_variables.items(), *dc.independent_variables.items()]:
        if not about_data(str(name)):
            continue
        for value in listed(values):
            text = str(value).strip()
            if text and len(text.split()) <= 3 and text not in out:
                out.append(text)
    return out[:4]


def measured_on(task: TaskDraft) -> list[str]:
    """The data sets a task's measures are taken on, when its measures cross data sets with
    measures ("ETTm1 MSE", "ETTm1 MAE", "ETTm2 MSE", "ETTm2 MAE"): every data set with two
    measures or more, every measure on two data sets or more. None otherwise."""
    return _crossed_measures(task)[0]


def measures_per_set(task: TaskDraft) -> list[str]:
    """The measures taken on each of `measured_on`'s data sets ("MSE", "MAE"); None when the
    task's measures do not cross data sets."""
    return _crossed_measures(task)[1]


def _crossed_measures(task: TaskDraft) -> tuple[list[str], list[str]]:
    values = [
        " ".join(str(value).split())
        for values in task.design_complexity.dependent_variables.values()
        for value in listed(values)
    ]
    # "ETTm1 MSE": the data set, then the measure; "ADE20K mIoU (SS)" is read at its first
    # space, since a scale in brackets alone ("(SS)") is no measure
    found = _crossed(values, last=True)
    if found[1] and all(m.startswith("(") for m in found[1]):
        found = _crossed(values, last=False)
    return found


# "ETTm1 / 96", "ETTm1 / Avg": a number under a set, or the average over its numbers
_SETTING_UNDER = re.compile(r"\s*/\s*(?:\d+(?:\.\d+)?|avg\.?|average|mean)$", re.I)


def _crossed(values: list[str], last: bool) -> tuple[list[str], list[str]]:
    pairs = [
        # "ETTm1 / 96 MSE": the data set is ETTm1, at one of the horizons the runs sweep
        (_SETTING_UNDER.sub("", first).rstrip(" /:-"), rest)
        for value in values
        if len(split := (value.rsplit(" ", 1) if last else value.split(" ", 1))) == 2
        for first, rest in [split]
        if first.rstrip(" /:-")
    ]
    sets = list(dict.fromkeys(p[0] for p in pairs))
    measures = list(dict.fromkeys(p[1] for p in pairs))
    if len(sets) < 2 or len(measures) < 2:
        return [], []
    each = {s: {m for d, m in pairs if d == s} for s in sets}
    over = {m: {d for d, x in pairs if x == m} for m in measures}
    if any(len(v) < 2 for v in each.values()) or any(len(v) < 2 for v in over.values()):
        return [], []
    return sets, measures


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
        if not f.switch and _DATA_VARIABLE & set(terms(f.name)) and not _PLACE & set(terms(f.name))
    ]


def data_set_names(options: list[CliFlag]) -> list[str]:
    """The data sets the data options list or default to, folded ("stl10"), longest first;
    names of three characters or fewer say too little to find in a file name."""
    names = {
        fold(v) for f in data_options(options) for v in [*choices_of(f), f.default.strip("'\"")]
    }
    return sorted((n for n in names if len(n) >= 4 and not n.isdigit()), key=len, reverse=True)


def listed(values: object) -> list[object]:
    """A design variable's values: its list, a list written as text ("[a, b]"), or its one
    value."""
    text = _EXPLAINED.sub("", values).strip() if isinstance(values, str) else ""
    if re.fullmatch(r"\[[^\[\]]*,[^\[\]]*\]", text):  # "[True, False] (toggle the prompt)"
        return [v.strip().strip("'\"") for v in text[1:-1].split(",") if v.strip()]
    return list(values) if isinstance(values, list | tuple) else [values]


# what a results table measures, written after a method in a two-level header's cells
_MEASURE_WORD = re.compile(
    r"\s+(?:MSE|MAE|RMSE|MAPE|SMAPE|MASE|OWA|ACC|Acc|F1|AUC|AUROC|AUPR|PPL|BLEU|mIoU|AP|NMI|ARI)$"
)


def without_measures(values: list[object]) -> list[object]:
    """Methods read from a two-level header with the measure after each ("ETSformer MSE",
    "ETSformer MAE", "LightTS MSE", ...): the methods once each. Values are left as they are
    unless every one ends with a measure and some method comes with two."""
    texts = [str(v).strip() for v in values]
    bare = [_MEASURE_WORD.sub("", t) for t in texts]
    if len(texts) < 2 or any(b == t for b, t in zip(bare, texts, strict=True)):
        return values
    if len(set(bare)) == len(bare):
        return values  # one measure per method: the measure may be part of the name
    return list(dict.fromkeys(bare))


def about_data(variable: str) -> bool:
    """A design variable that names data sets ("dataset", "benchmark"): what a comparison is
    repeated over, not one of the arms compared."""
    return bool(_DATA_VARIABLE & set(terms(variable)))


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺−", "0123456789-+-")
_TIMES_TEN = re.compile(r"(\d+(?:\.\d+)?)[x×*·]10\^?([-+]?\d+)")


def numeric(text: str) -> bool:
    """A number as a paper writes it ("0.5", "1×10⁻²", "2x", "15%"): digits at least ("x + x",
    an input paired with itself, is no number)."""
    plain = text.replace(" ", "").translate(_SUPERSCRIPTS)
    return bool(re.fullmatch(r"[\d.,%x×*·^e+-]+", plain) and re.search(r"\d", plain))


def number_value(text: str) -> str:
    """A number as a command line takes it: "1×10⁻²" and "1 x 10^-2" are 0.01; anything
    else as written."""
    plain = text.replace(" ", "").translate(_SUPERSCRIPTS)
    if (side := re.fullmatch(r"(\d+)[x×*](\d+)", plain)) and side[1] == side[2]:
        return side[1]  # "256x256": a square input's side, as `--img_size 256` takes it
    m = _TIMES_TEN.fullmatch(plain)
    if m is None:
        return text
    return f"{float(m.group(1)) * 10 ** int(m.group(2)):g}"


def content_words(text: str) -> list[str]:
    return [t for t in terms(text) if t not in STOPWORDS and t not in GENERIC and len(t) >= 2]


def task_metrics(task: TaskDraft, q: TaskQuery) -> list[str]:
    """The measured quantities by name: the dependent variables' values, else known metrics."""
    found: list[str] = []
    for name, value in task.design_complexity.dependent_variables.items():
        for v in listed(value):
            text = str(v).strip()
            if text and len(text.split()) <= MAX_VALUE_WORDS and text not in found:
                found.append(text)
        if not isinstance(value, list | tuple) and len(str(value).split()) > MAX_VALUE_WORDS:
            found.append(str(name).replace("_", " "))
    return found[:5] if found else known_metrics(q)


def known_metrics(q: TaskQuery) -> list[str]:
    """Common metrics the task names ("MSE", "top-1"), written as papers write them."""
    known = ("mse", "mae", "accuracy", "top_1", "f1", "bleu", "auc", "rmse", "psnr", "ssim", "map")
    found = [
        n.upper() if len(n) <= 4 else n.replace("_", "-") for n in q.names + q.words if n in known
    ]
    return list(dict.fromkeys(found))[:4]


ABLATED = re.compile(r"^\s*(?:w/o|without|no|remove[sd]?|minus|-)\s*(.+)$", re.I)
OURS = re.compile(r"\bours\b", re.I)  # how a paper's table marks its authors' method


_OFF = {"wo", "no", "without", "disable", "remove", "skip", "drop"}


_GENERIC_OPTIONS = ("model", "method", "algorithm", "algo", "backbone", "arch", "optimizer")


def value_forms(value: str) -> list[str]:
    """The ways a design value can be written on a command line: as is, without its
    parenthetical, the parenthetical alone, the part after a slash ("CycleNet/MLP" -> "MLP").
    A one-letter parenthetical is a panel's label ("SegNeXt-T (c)"), never a value alone."""
    forms = [value.strip()]
    bare = re.sub(r"\s*\([^()]*\)", "", value).strip()
    forms += [bare, *(p for p in re.findall(r"\(([^()]*)\)", value) if len(p.strip()) > 1)]
    if "/" in bare:
        forms.append(bare.rsplit("/", 1)[-1])
    return [f for f in dict.fromkeys(x.strip() for x in forms) if f]


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
    declared = re.search(r"\(choices: \[([^\]]*)\]\)", flag.help)
    if declared and len([c for c in declared.group(1).split(",") if c.strip()]) == 1:
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


_BOOLEANS = {"true", "false"}


_WITH = re.compile(r"^\s*(?:w/|with)\s+(.+)$", re.I)
_BOTH = re.compile(r"\s*(?:\+|&|\band\b)\s*", re.I)
_ONLY = re.compile(r"^\s*(.+?)\s+only\s*$|^\s*only\s+(.+?)\s*$", re.I)


def whole_model(arm: Arm, siblings: list[Arm]) -> bool:
    """The arm is the model with all its parts, beside arms that take parts away: "w/ MSCA"
    beside "w/o MSCA", "ICH + CCH" beside "ICH Only" and "CCH Only"."""

    def key(text: str) -> str:
        return re.sub(r"[\W_]+", "", text.lower())

    others = [s.value for s in siblings if s is not arm]
    if (m := _WITH.match(arm.value)) is not None:
        return any(
            (a := ABLATED.match(o)) is not None and key(a.group(1)) == key(m.group(1))
            for o in others
        )
    parts = [key(p) for p in _BOTH.split(arm.value) if p.strip()]
    if len(parts) < 2:
        return False
    alone = {key(next(g for g in o.groups() if g)) for v in others if (o := _ONLY.match(v))}
    return set(parts) <= alone


DEFAULT_ARM = re.compile(r"^\s*default\s*$|\(\s*(?:the\s+)?default\s*\)", re.I)


# words that describe an arm's standing, never a value a parser takes
NO_VALUE = {"default", "baseline", "none", "others", "other", "standard", "original", "vanilla"}


SETTING_FILLER = frozenset(
    terms("use enable enabled disable do apply with flag args arg cfg config opt opts is")
)


def code_edits(
    arms: list[Arm], settings: list[CodeSetting]
) -> dict[int, list[tuple[CodeSetting, bool]]]:
    """The in-code settings that select each arm of one design variable, by the arm's index.

    A setting is the arm's when the words of its name, less the variable's own ("prompt" of
    "prompt type"), all name the arm: `use_text_prompt` is the "text" arm's. An arm turns its
    own settings on and its siblings' off ("box+text" sets both); an ablation ("w/o Zoom")
    turns its own off. Arms that no setting names are left out."""
    if not arms or not settings:
        return {}
    variable = set(content_words(arms[0].variable.replace("_", " ")))

    def named(arm: Arm, setting: CodeSetting) -> bool:
        if truth(arm) is not None:  # "use zoom in": True, False -> the setting so named
            return bool(setting.words) and setting.words <= variable
        own = setting.words - variable
        m = ABLATED.match(arm.value)
        want = set(content_words(m.group(1))) if m else set(arm.words)
        return bool(own) and all(
            any(
                a == w
                or (min(len(a), len(w)) >= 4 and (a.startswith(w) or w.startswith(a)))
                or (len(w) >= 3 and len(a) == len(w) + 1 and a.endswith(w))  # bbox: box
                for a in want
            )
            for w in own
        )

    mine = {i: [c for c in settings if named(a, c)] for i, a in enumerate(arms)}
    group = [c for c in settings if any(c in m for m in mine.values())]
    out: dict[int, list[tuple[CodeSetting, bool]]] = {}
    for i, arm in enumerate(arms):
        if not mine[i]:
            continue
        if (value := truth(arm)) is not None:
            out[i] = [(c, value) for c in mine[i]]
        elif ABLATED.match(arm.value):
            out[i] = [(c, False) for c in mine[i]]
        else:
            out[i] = [(c, c in mine[i]) for c in group]
    return out


_ARM_FILLER = frozenset(terms("configuration config variant version mode setting setup in"))


def form_words(arm: Arm) -> list[frozenset[str]]:
    """The words of each way the arm's value is written ("LD (in LDLinear configuration)":
    its whole, "LD", "LDLinear"), less words that describe rather than name it."""
    out = [arm.words]
    for form in value_forms(arm.value)[1:]:
        words = frozenset(content_words(form)) - _ARM_FILLER
        if words and words not in out and not numeric(form):
            out.append(words)
    return out


def truth(arm: Arm) -> bool | None:
    """The boolean an arm's value states ("False (only zoom-out inference)"), if it is one."""
    head = arm.value.split()[0].lower() if arm.value.split() else ""
    return head == "true" if head in _BOOLEANS else None


def arm_name(arm: Arm) -> str:
    """How a reader names the arm: its value, or for a bare boolean its variable too
    ("use text prompt = True", not "True")."""
    if arm.value.strip().lower() in _BOOLEANS:
        return f"{arm.variable.replace('_', ' ')} = {arm.value.strip()}"
    if numeric(arm.value) and not about_data(arm.variable):  # "Epoch 15", not "15"
        return f"{arm.variable.replace('_', ' ')} {arm.value.strip()}"
    return arm.value


def edit_text(edits: list[tuple[CodeSetting, bool]]) -> str:
    """`args.use_zoom_in = False` (inference_demo.py:208), ... as one instruction."""
    parts = [f"`{c.target} = {value}` ({c.path}:{c.line})" for c, value in edits]
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)


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
                out.append(found)
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


def flag_for(value: str, variable: str, options: list[CliFlag]) -> CliFlag | None:
    """The option that sets `value` of `variable`: its default is the value, its help names
    the value, or its name shares a word with the variable's name."""
    low = value.lower()
    wanted = {stem(w) for w in content_words(variable)} - {
        "model",
        "method",
        "type",
        "variant",
        "name",
        "setting",
    }
    named = [f for f in options if wanted & set(terms(f.name))]
    if low not in _BOOLEANS:  # any switch's default or help says True: only its name tells
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
