"""From a drafted task to what to look for in the code.

A task says "PDF(720) on ETTh2 with lr 1e-3, w/o Conv"; the code says `scripts/PDF/720/etth2.sh`,
`--learning_rate 0.001`, `--no_conv`. This module turns the prose into those shapes: names
(mixed case, digits, underscores: datasets, models, variants), numbers (normalised so 1e-3 and
0.001 meet), flag guesses for ablations, and the plain words for full-text search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from expcurate.records import TaskDraft
from expcurate.records.names import name_key
from extractors.acronyms import without_spelled_sentence
from extractors.citations import without_cited_sentence
from extractors.repo import stem, tokens


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _wordset(
    """a an the and or but if then else of to in into on onto for with without by as at from
    is are was were be been being do does did doing have has had will would should could can
    may might must shall this that these those it its their there here which who whom whose
    what when where why how than so such not no nor only also both each either any all most
    more less other some same very e g i eg ie al et etc vs via per about over under between
    across among within while during after before further again up down out off we our us you
    your they them he she his her one two three four five six seven eight nine ten"""
)
# Words every experiment description uses; they say nothing about where its code is.
GENERIC = _wordset(
    """experiment experiments experimental setup set setting settings result results
    performance perform performs performed compare compared comparing comparison evaluate
    evaluated evaluating evaluation expected expect expects outcome outcomes hypothesis
    table tables figure figures fig section paper reported report reports show shows shown
    demonstrate demonstrates whether across different various specific specifically using use
    used uses based approach approaches method methods study studies analysis analyze analyse
    measure measured measuring metric metrics value values higher lower better worse improve
    improved improvement improvements significant significantly consistent consistently
    observed observe similar given record recorded include including includes includes
    ensure identical conditions condition key main overall provide provided additional
    additionally detailed details detail proposed propose new existing state art sota
    task tasks test tests testing run runs running model models pytorch nvidia geforce
    rtx gpu gpus cpu cpus cuda"""
)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-/+]*[A-Za-z0-9+]|[A-Za-z0-9]")
# a number, not one a name ends in (`ImageNet-10`, `CIFAR-100`: the 10 is no setting)
_NUMBER = re.compile(r"(?<![\w.])(?<!\w-)(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.]*[A-Za-z])")
_NOT_A_SETTING = re.compile(
    r"(?:table|figure|fig\.?|section|sec\.?|eq\.?|equation|appendix)\s*$", re.I
)
# "[Wu et al. ...]" and "(Zhou et al., 2021)": cited work is not this repository's code.
_CITATION = re.compile(r"\[[^\[\]]{0,400}\]|\([^()]{0,200}\b(?:19|20)\d\d[a-z]?\)")
_LABEL = re.compile(r"\b(Table|Tab\.|Figure|Fig\.)\s*([A-Z]?\d+)\b", re.I)
_ABLATION = re.compile(
    r"\b(?:w/o|without|no|remov(?:e|ing|al of)|disabl(?:e|ing)|ablat(?:e|ing))\s+(?:the\s+)?"
    r"([A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*)?)",
    re.I,
)


@dataclass
class TaskQuery:
    """What the search policy looks for; every field is derived from the task text alone."""

    text: str  # question + method + expected outcome (+ design variables)
    words: list[str]  # content words for full-text search, in order, no stopwords
    names: list[str] = field(default_factory=list)  # distinctive tokens: ETTh2 -> "etth2"
    parts: list[str] = field(default_factory=list)  # their pieces: MogaNet-T -> "moga", "net"
    numbers: set[str] = field(default_factory=set)  # normalised numbers of settings
    flag_guesses: list[str] = field(default_factory=list)  # "--no_conv" for "w/o Conv"
    phrases: list[str] = field(default_factory=list)  # names as written, for grep
    focus: list[str] = field(default_factory=list)  # names in the question: what is studied
    labels: set[str] = field(default_factory=set)  # "table 1", "figure 2": READMEs cite them
    results: set[str] = field(default_factory=set)  # reported numbers (0.139, 91.2)
    # The values of each varied design variable (methods compared, data sets run): a
    # repository needs one of them, not all; baselines usually live elsewhere.
    alternatives: list[list[str]] = field(default_factory=list)
    # The design variables' labels as names ("model_config_file", "use_zoom_in"): the
    # drafter's words, which count when the code has them and are never missing names.
    keys: set[str] = field(default_factory=set)
    # The question's own words, stemmed, each whole ("OptoPrime" is one): what names the kind
    # of experiment asked
    asked: set[str] = field(default_factory=set)

    @property
    def terms(self) -> set[str]:
        return set(self.words) | set(self.names) | set(self.parts)


# "How can you ...?": EXP-Bench's usage and implementation tasks want the plan, in steps
_HOW = r"^\W*how\s+(?:would|could|can|do|should|might)\s+(?:you|we|one|i)\b"
# ... and "How can MogaNet be used for object detection?": a usage task about a thing
_HOW_TO = re.compile(
    _HOW + r"|^\W*how\s+(?:would|could|can|should|might|does|do)\s+[^?.]{1,60}?\s+be\s+"
    r"(?:used|applied|run|adapted|deployed|integrated|extended)\b",
    re.I,
)
# "How can you implement / create ...": the code that does it is the answer, not only what
# runs it
_BUILD = re.compile(
    _HOW + r"\s+(?:implement|create|build|write|design|develop|construct|make)\b", re.I
)


def asks_how(text: str) -> bool:
    """The task asks how to do something rather than what a run shows."""
    return bool(_HOW_TO.match(text))


def asks_to_build(text: str) -> bool:
    """The task asks how to build something (EXP-Bench's implementation tasks)."""
    return bool(_BUILD.match(text))


def norm_number(text: str) -> str | None:
    """1e-3, 0.001 and 0.0010 all become "0.001"; 720 stays "720"."""
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        return None
    if value != value or abs(value) > 1e12:  # NaN or absurd
        return None
    return f"{value:g}" if value != int(value) else str(int(value))


def _design_parts(task: TaskDraft) -> tuple[list[str], list[str]]:
    """The design variables' text, labels and values in order, and their labels alone
    (nested labels too)."""
    parts: list[str] = []
    labels: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                parts.append(str(k))
                labels.append(str(k))
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)
        elif value is not None:
            parts.append(str(value))

    dc = task.design_complexity
    walk([dc.constant_variables, dc.independent_variables, dc.dependent_variables])
    return parts, labels


def _design_text(task: TaskDraft) -> str:
    return " ".join(_design_parts(task)[0])


def build_query(task: TaskDraft) -> TaskQuery:
    method = without_spelled_sentence(without_cited_sentence(task.method))
    text = "\n".join(
        p for p in (task.question, method, task.expected_outcome, _design_text(task)) if p
    )
    text = _CITATION.sub(" ", text)
    # Settings come from the question, method and design; the outcome's numbers are results.
    settings = _CITATION.sub(" ", "\n".join((task.question, method, _design_text(task))))
    words = [t for t in tokens(text) if _content(t)]
    names: list[str] = []
    parts: list[str] = []
    phrases: list[str] = []
    for m in _NAME.finditer(text):
        raw = m.group(0).strip("./-")
        if not _is_name(raw):
            continue
        if raw not in phrases and len(raw) >= 3:
            phrases.append(raw)
        whole = name_key(raw)
        pieces = tokens(raw)
        for t in [whole, *pieces[:1]]:
            if _content(t) and t not in names and not t.replace(".", "").isdigit():
                names.append(t)
        for t in pieces[1:]:
            # "th" of ETTh1 is noise; longer pieces are weaker evidence than the whole name
            if len(t) >= 3 and _content(t) and t not in parts and not t.replace(".", "").isdigit():
                parts.append(t)
    numbers: set[str] = set()
    for m in _NUMBER.finditer(settings):
        before = settings[max(0, m.start() - 12) : m.start()]
        after = settings[m.end() : m.end() + 1]
        if _NOT_A_SETTING.search(before) or after == "%":
            continue
        n = norm_number(m.group(1))
        if n is None or (len(m.group(1)) < 2 and "." not in m.group(1)):
            continue
        if n.isdigit() and 1900 <= int(n) <= 2099:  # a year, from a citation or a date
            continue
        numbers.add(n)
    focus = [
        n
        for n in names
        if n
        in set(tokens(task.question))
        | {name_key(m.group(0)) for m in _NAME.finditer(task.question)}
    ]
    labels = {f"{m.group(1).lower()[:3]} {m.group(2)}" for m in _LABEL.finditer(text)}
    labels |= {
        f"{e.label.split()[0].lower()[:3]} {e.label.split()[-1]}"
        for e in task.evidence
        if len(e.label.split()) >= 2
    }
    results = {
        n
        for m in _NUMBER.finditer("\n".join((task.method, task.expected_outcome)))
        if "." in m.group(1) and (n := norm_number(m.group(1))) is not None
    }
    alternatives = _alternatives(task)
    guesses = _flag_guesses(text)
    if guesses:  # removing a component is what repositories call an ablation
        words += [w for w in ("ablation", "ablate") if w not in words]
    return TaskQuery(
        focus=focus,
        text=text,
        words=words,
        names=names,
        parts=[p for p in parts if p not in names],
        numbers=numbers,
        flag_guesses=guesses,
        labels=labels,
        results=results,
        phrases=phrases,
        alternatives=alternatives,
        keys={name_key(k) for k in _design_parts(task)[1]},
        asked={stem(w) for w in re.findall(r"[a-z0-9]+", task.question.lower())},
    )


MAX_VALUE_WORDS = 4  # longer values are descriptions, not names of alternatives
_LISTED = re.compile(r"\(([^()]{3,300})\)")  # "(K-means, SC, AC, NMF)"


def _alternatives(task: TaskDraft) -> list[list[str]]:
    """Each independent variable with several short values, as lists of index-ready names.

    "method: [PDF, PatchTST, DLinear]" -> ["pdf", "patchtst", "dlinear"]; a value's name is its
    whole text as the query writes names (lower case, hyphens as underscores).
    """
    out: list[list[str]] = []
    for values in task.design_complexity.independent_variables.values():
        if not isinstance(values, list | tuple):
            continue
        names: list[str] = []
        for v in values:
            text = _CITATION.sub(" ", str(v)).strip()
            if not text or len(text.split()) > MAX_VALUE_WORDS:
                continue
            for m in _NAME.finditer(text):
                whole = name_key(m.group(0).strip("./-"))
                if len(whole) >= 2 and _content(whole) and not whole.replace(".", "").isdigit():
                    names.append(whole)
        names = list(dict.fromkeys(names))
        if len(names) >= 2:
            out.append(names)
    # "the compared methods (K-means, SC, ..., PICA)" beside a design variable of PICA and CC:
    # a list the method writes out that shares a value with a variable is more of its values
    for m in _LISTED.finditer(
        _CITATION.sub(" ", without_spelled_sentence(without_cited_sentence(task.method)))
    ):
        items = [i.strip() for i in re.split(r",|\band\b", m.group(1)) if i.strip()]
        if len(items) < 3 or any(len(i.split()) > MAX_VALUE_WORDS for i in items):
            continue
        listed = [name_key(i.strip("./-")) for i in items]
        for group in out:
            if set(listed) & set(group):
                group.extend(n for n in listed if n not in group and _content(n))
    return out


def _content(token: str) -> bool:
    return len(token) >= 2 and token not in STOPWORDS and token not in GENERIC


def _is_name(raw: str) -> bool:
    """Mixed case, digits or underscores: how datasets, models and variants are written."""
    if len(raw) < 2 or raw.replace(".", "").isdigit():
        return False
    inner_upper = any(c.isupper() for c in raw[1:])
    has_digit = any(c.isdigit() for c in raw)
    return inner_upper or (has_digit and any(c.isalpha() for c in raw)) or "_" in raw


def _flag_guesses(text: str) -> list[str]:
    """`w/o Conv` -> --no_conv, --no-conv, --wo_conv, --use_conv, --conv (how ablations are switched)."""
    out: list[str] = []
    for m in _ABLATION.finditer(text):
        words = [w for w in re.split(r"[\s\-]+", m.group(1).lower()) if w and w not in STOPWORDS]
        if not words:
            continue
        for part in ("_".join(words), words[0]):
            for flag in (
                f"--no_{part}",
                f"--no-{part.replace('_', '-')}",
                f"--wo_{part}",
                f"--use_{part}",
                f"--{part}",
            ):
                if flag not in out:
                    out.append(flag)
    return out
