"""What a task varies and how a repository selects it: a task's arms (the values of its
independent variables), what it holds fixed and measures, and the option, switch or in-code
setting of an entry point that selects each arm.

`plan.py` lays the arms out on the code; everything here works on the task's design variables
and the entry point's mined parser alone, no file read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypeVar

from expcurate.records import TaskDraft
from extractors.repo import stem, terms

from .query import GENERIC, STOPWORDS, TaskQuery

T = TypeVar("T")

MAX_VALUE_WORDS = 4


DATA_VARIABLE = {"data", "dataset", "benchmark", "corpus"}
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


def _named_part(value: str, question: str) -> str:
    """Of a long row label joined from several label columns ("bart-large / 406M /
    GeneSis"), the one part the question names ("How does PromptSub compare with GeneSis"),
    else ""."""
    parts = [p.strip() for p in value.split(" / ") if p.strip()]
    if len(parts) < 2:
        return ""
    asked = re.sub(r"[^a-z0-9+]", "", question.lower())
    named = [
        p
        for p in parts
        if len(core := re.sub(r"[^a-z0-9+]", "", re.sub(r"\(.*?\)", "", p).lower())) >= 3
        and core in asked
    ]
    return named[0] if len(named) == 1 else ""


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
        names = [_value_name(v) or _named_part(v, task.question) for v in kept]
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
            # "Electricity dataset as described in Table 1": the name its description follows
            named = _NAMED_DATA.match(text) if len(text.split()) > 3 else None
            if named and named.group(1).split()[0].lower() not in STOPWORDS:
                text = named.group(1)
            if text and len(text.split()) <= 3 and text not in out:
                out.append(text)
    return out[:8]


# a data set's name, up to three words each written as a name (a capital or a digit in it,
# not a number alone), then the word saying it is one, and what describes it
_NAME_WORD = r"(?=[\w.+-]*[A-Z0-9])(?![\d.]+\s)[\w.+-]+"
_NAMED_DATA = re.compile(
    rf"(?:the\s+|an?\s+)?((?:{_NAME_WORD}\s+){{0,2}}{_NAME_WORD})\s+"
    r"(?:dataset|data\s+set|benchmark|corpus)\b"
)


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
    return bool(DATA_VARIABLE & set(terms(variable)))


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺−", "0123456789-+-")
_TIMES_TEN = re.compile(r"(\d+(?:\.\d+)?)[x×*·]10\^?([-+]?\d+)")


def numeric(text: str) -> bool:
    """A number as a paper writes it ("0.5", "1×10⁻²", "2x", "15%"): digits at least ("x + x",
    an input paired with itself, is no number)."""
    plain = text.replace(" ", "").translate(_SUPERSCRIPTS)
    return bool(re.fullmatch(r"[\d.,%x×*·^e+-]+", plain) and re.search(r"\d", plain))


def unnoted(value: str) -> str:
    """A value less the note in brackets after it: "224x224 (baseline)" is 224x224."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", value) or value


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


# between two quantities a measure names ("normalized return and performance profiles"), not
# inside one word group written with a comma
_AND = re.compile(r"\s+and\s+(?=[A-Za-z])")


def _quantities(text: str) -> list[str]:
    """ "normalized return and performance profiles": two quantities, each its own; a
    longer description stays whole, as it is."""
    parts = _AND.split(text)
    return parts if len(parts) >= 2 and all(len(p.split()) <= 3 for p in parts) else [text]


def task_metrics(task: TaskDraft, q: TaskQuery) -> list[str]:
    """The measured quantities by name: the dependent variables' values, else known metrics.
    What a table is "measured on" (its columns' data sets: USAir, NS, PB) is no quantity."""
    found: list[str] = []
    for name, value in task.design_complexity.dependent_variables.items():
        if str(name).strip().lower().endswith("measured on"):
            continue
        for v in listed(value):
            for text in _quantities(str(v).strip()):
                if text and len(text.split()) <= MAX_VALUE_WORDS and text not in found:
                    found.append(text)
        if not isinstance(value, list | tuple) and len(str(value).split()) > MAX_VALUE_WORDS:
            found += [t for t in _quantities(str(name).replace("_", " ")) if t not in found]
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


BOOLEANS = {"true", "false"}


_WITH = re.compile(r"^\s*(?:w/|with)\s+(.+)$", re.I)
_BOTH = re.compile(r"\s*(?:\+|&|\band\b)\s*", re.I)
_ONLY = re.compile(r"^\s*(.+?)\s+only\s*$|^\s*only\s+(.+?)\s*$", re.I)


def _key(text: str) -> str:
    """A part's name compared as letters and digits alone: "ICH" of "ICH Only", "w/ MSCA"."""
    return re.sub(r"[\W_]+", "", text.lower())


def whole_model(arm: Arm, siblings: list[Arm]) -> bool:
    """The arm is the model with all its parts, beside arms that take parts away: "w/ MSCA"
    beside "w/o MSCA", "ICH + CCH" beside "ICH Only" and "CCH Only"."""
    others = [s.value for s in siblings if s is not arm]
    if (m := _WITH.match(arm.value)) is not None:
        return any(
            (a := ABLATED.match(o)) is not None and _key(a.group(1)) == _key(m.group(1))
            for o in others
        )
    parts = [_key(p) for p in _BOTH.split(arm.value) if p.strip()]
    if len(parts) < 2:
        return False
    alone = {_key(next(g for g in o.groups() if g)) for v in others if (o := _ONLY.match(v))}
    return set(parts) <= alone


def taken_parts(arm: Arm, siblings: list[Arm]) -> list[str]:
    """The parts of the whole model an arm takes away: "MSCA" of "w/o MSCA"; "CCH" of "ICH
    Only" beside "ICH + CCH" (the whole model's parts it does not keep); none otherwise."""
    if (m := ABLATED.match(arm.value)) is not None:
        return [m.group(1).strip()]
    if (o := _ONLY.match(arm.value)) is None:
        return []
    kept = _key(next(g for g in o.groups() if g))
    for whole in (s for s in siblings if s is not arm and whole_model(s, siblings)):
        parts = [p.strip() for p in _BOTH.split(whole.value) if p.strip()]
        return [p for p in parts if _key(p) != kept]
    return []


DEFAULT_ARM = re.compile(r"^\s*default\s*$|\(\s*(?:the\s+)?default\s*\)", re.I)


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
    return head == "true" if head in BOOLEANS else None


def arm_name(arm: Arm) -> str:
    """How a reader names the arm: its value, or for a bare boolean its variable too
    ("use text prompt = True", not "True")."""
    if arm.value.strip().lower() in BOOLEANS:
        return f"{arm.variable.replace('_', ' ')} = {arm.value.strip()}"
    if numeric(arm.value) and not about_data(arm.variable):  # "Epoch 15", not "15"
        return f"{arm.variable.replace('_', ' ')} {arm.value.strip()}"
    return arm.value


def edit_text(edits: list[tuple[CodeSetting, bool]]) -> str:
    """`args.use_zoom_in = False` (inference_demo.py:208), ... as one instruction."""
    return in_prose([f"`{c.target} = {value}` ({c.path}:{c.line})" for c, value in edits])


# what a question compares "within each of" (its backbones, its data sets): repeated over
_WITHIN = re.compile(r"\b(?:within|for|on|in) each of (.+?)(?: in (?:Table|Figure|Fig)\b|\?|\(|$)")


def repeated_within(question: str, value: str) -> bool:
    """The question names `value` as one of what it compares "within each of" ("... within
    each of ChatGLM, Alpaca and Vicuna in Table 3": "Alpaca"), a whole word of that list:
    what the comparison is repeated over, not one of the arms compared."""
    within = _WITHIN.search(" ".join(question.split()))
    return within is not None and bool(
        re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", within.group(1))
    )


def spread(items: list[T]) -> list[T]:
    """The items in an order that samples the whole list first: the first, the last, then
    the middles of the widest gaps left ("MASAC, MADDPG, MAPPO, IQL, VDN, QMIX": MASAC, QMIX,
    MAPPO, ...), so that taking a few of them covers both ends of what a task compares."""
    n = len(items)
    if n <= 2:
        return list(items)
    order = [0, n - 1]
    gaps = [(0, n - 1)]
    while len(order) < n:
        gaps.sort(key=lambda g: (-(g[1] - g[0]), g[0]))
        a, b = gaps.pop(0)
        if b - a < 2:
            continue
        mid = (a + b) // 2
        order.append(mid)
        gaps += [(a, mid), (mid, b)]
    return [items[i] for i in order]


def in_prose(values: list[str], sep: str = ", ") -> str:
    """Names as a list in prose: "A, B and C" ("A" alone, "" for none)."""
    return " and ".join([sep.join(values[:-1]), values[-1]]) if len(values) > 1 else "".join(values)
