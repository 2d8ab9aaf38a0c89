"""Trend tasks from figures: only plots of measurements that the text draws a finding from.

Drawings, examples and teasers get no task; the question asks how the plotted quantity
changes as the x variable varies when the axes were read cleanly, else what the finding says;
the outcome is the finding in the paper's words.
"""

from __future__ import annotations

import re

from expcurate.records import (
    Axis,
    DesignComplexity,
    Evidence,
    Figure,
    TaskDraft,
)
from extractors.numbers import find_numbers, to_float
from extractors.tasks.claims import (
    Claim,
)
from extractors.tasks.context import (
    SENTENCE_END,
    Context,
    clean_title,
    lower_first,
    method_text,
    topic_of,
)
from extractors.tasks.phrasing import and_list, claim_question, trend_variable
from extractors.tasks.spine import (
    claim_text,
    findings,
    well_formed,
    with_setting,
)

# A figure that plots measurements: the caption names a quantity's behaviour.
PLOT_CAPTION = re.compile(
    r"\b(curves?|plots?|trends?|vs\.?|versus|as a function of|w\.r\.t\.|with respect to|"
    r"effect|impact|influence|sensitivity|varying|number of|scal(?:e|es|ing)|convergence|"
    r"across the training|during training|over (?:the )?(?:training|epochs|iterations|time)|"
    r"grows?|increas\w*|decreas\w*|performance|accuracy|loss|error|comparison|distribution|"
    r"histogram|statistics|correlation|speed|memory|efficiency)\b",
    re.I,
)


# A figure that shows how the method works or what it outputs: no measurement to reproduce.
NOT_AN_EXPERIMENT = re.compile(
    r"\b(illustrat\w*|overview|framework|architecture|pipeline|diagram|schematic|workflow|"
    r"qualitative|visuali[sz]\w*|examples?|showcases?|case study|a case of|interface|"
    r"screenshot|counter-?examples?|observation|motivation|intuition|proof|details of|schemas?|"
    r"characteristics of|structure of|design of)\b",
    re.I,
)


MIN_TICKS = 4  # numbers printed inside a figure that make it a plot
# A caption that describes several panels: "(left)", "(b)", "Top:".
PANELS = re.compile(
    r"\((?:left|right|top|bottom|middle|[a-f])\)|\b(?:left|right|top|bottom):", re.I
)


MAX_SERIES = 8


def is_plot(figure: Figure) -> bool:
    """Does the figure plot measurements (rather than draw the method or show outputs)?

    The caption's first sentence decides when it says which; otherwise the numbers printed
    inside a vector figure (tick labels) do.
    """
    if _topic_says_not(figure):
        return False
    return bool(PLOT_CAPTION.search(topic_of(figure.caption))) or figure.ticks >= MIN_TICKS


TEASER_SECTION = re.compile(r"^\W*(?:\d+\.?\s*)?(?:introduction|abstract|overview)\b", re.I)


def figure_tasks(ctx: Context, figure: Figure) -> list[TaskDraft]:
    """A trend task for a plot the text draws a finding from; the finding is the outcome.

    A figure no sentence draws a finding from has no checkable outcome ("the results are
    shown in Figure 6" is not one), so it gets no task; neither do drawings and examples.
    """
    if TEASER_SECTION.match(clean_title(figure.section)) or (figure.page <= 1):
        return []  # a teaser sums up the paper; its experiments have tasks of their own
    said = findings([c for c in ctx.claims_about(figure.label) if c.text not in ctx.used])
    if not said:
        return []
    # A raster carries no text to judge it by: the finding about it decides.
    unreadable = figure.kind in ("raster", "unknown") and not _topic_says_not(figure)
    if not is_plot(figure) and not unreadable:
        return []
    topic = topic_of(figure.caption)
    y = next((a for a in figure.axes if a.orientation == "y"), None)
    x = next((a for a in figure.axes if a.orientation == "x" and len(a.ticks) >= 2), None)
    legend = list(figure.legend)
    panels = (
        PANELS.search(figure.caption)
        or len({a.label for a in figure.axes if a.orientation == "y"}) > 1
        or any(re.match(r"\(\w\)", a.label) for a in figure.axes)
    )
    if panels:
        # Several panels: what was read inside the figure may be another panel's than the one
        # the finding is about; keep only what the finding itself names.
        said_text = " ".join(c.text for c in said).lower()
        y = y if y is not None and _named_in(y.label, said_text) else None
        x = x if x is not None and _named_in(x.label, said_text) else None
        legend = [s for s in legend if _named_in(s, said_text)]
    if y is not None and x is not None and _clean_axis(x, figure):
        question: str | None = (
            f"In {figure.label} ({lower_first(topic)}), how does {y.label} change as "
            f"{x.label} varies?"
        )
    else:  # axes misread or absent: ask what the finding says
        asked = claim_question(said[0].text, ctx.method)
        asked = with_setting(asked, figure.label, topic) if asked and well_formed(asked) else None
        question = asked or _figure_question(ctx, figure, said, y.label if y else "")
    if not question:
        return []
    ctx.used.update(c.text for c in said)
    # What varies: the x axis read cleanly, else what the finding varies, and the series.
    var = next((v for c in said if (v := trend_variable(c.text))), None)
    independent: dict[str, object] = {}
    if x is not None and _clean_axis(x, figure):
        independent[x.label] = x.ticks
    elif var:
        independent[var] = f"the values plotted in {figure.label}"
    elif m := X_IN_CAPTION.search(figure.caption):  # "In each iteration (x-axis), …"
        independent[m.group(1)] = f"the values plotted in {figure.label}"
    series = [s for s in legend if len(s) <= 30 and not find_numbers(s)]
    if 2 <= len(series) <= MAX_SERIES:
        independent["series"] = series
    # The y axis the finding names; else the one every panel shares; else what the caption's
    # subject, the rest of the caption ("mean success rate over 10 seeds"), then the finding
    # says is measured.
    shared = {a.label for a in figure.axes if a.orientation == "y" and a.label}
    measured = (
        y.label
        if y
        else shared.pop()
        if len(shared) == 1
        else next(
            (_measured(t) for t in (topic, figure.caption) if MEASURED.search(SPREAD.sub(" ", t))),
            _measured(" ".join(c.text for c in said)),
        )
    )
    if "series" not in independent and len(defined := caption_series(figure.caption)) >= 2:
        independent["series"] = defined
    return [
        TaskDraft(
            key=f"{figure.label.lower().replace(' ', '-')}:trend",
            question=question,
            method=method_text(ctx, figure, f"Reproduce the measurements behind {figure.label}."),
            expected_outcome=claim_text(said),
            subsection_source=ctx.section_citing(figure.label, figure.section),
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables=independent,
                dependent_variables={measured: f"as plotted in {figure.label}"},
            ),
            evidence=[Evidence(kind="figure", label=figure.label, page=figure.page)],
        )
    ]


MEASURED = re.compile(
    r"\b(accuracy|f1(?:-score)?|bleu|rouge|cider|miou|map|auroc|aupr|auc|mse|mae|rmse|error|"
    r"loss|perplexity|throughput|latency|speed|memory|flops|runtime|success rate|win rate|"
    r"pass rate|returns?|reward|retention|similarit(?:y|ies)|score)\b",
    re.I,
)


X_IN_CAPTION = re.compile(
    r"\b(?:each |every |the |number of )?([a-z][\w-]*(?: [a-z][\w-]*)?) \((?:on the )?x-axis\)",
    re.I,
)
# How a plot shows spread, not what it measures: "mean and standard error of success rate".
SPREAD = re.compile(r"\bstandard (?:error|deviation)s?\b|\bstd\b", re.I)


def _measured(text: str) -> str:
    """The quantity a finding or caption speaks of ("return", "accuracy")."""
    m = MEASURED.search(SPREAD.sub(" ", text))
    return m.group(1).lower() if m else "the plotted quantity"


def _named_in(label: str, text: str) -> bool:
    """Does the text name the axis title or series (one of its words of four letters or more)?"""
    words = [w for w in re.findall(r"[a-z][a-z0-9-]{3,}", label.lower())]
    return bool(words) and any(w in text for w in words)


def _clean_axis(axis: Axis, figure: Figure) -> bool:
    """An x axis read cleanly: a short title that is not a legend or panel label, over at
    least three numeric ticks in order."""
    ticks = [to_float(t) for t in axis.ticks]
    values = [t for t in ticks if t is not None]
    return (
        len(axis.label.split()) <= 6
        and not re.match(r"\(\w\)", axis.label)
        and axis.label not in figure.legend
        and len(values) >= 3
        and values == sorted(values)
    )


def _figure_question(ctx: Context, figure: Figure, said: list[Claim], y: str) -> str | None:
    """A question from what the finding varies or compares, in the caption's setting."""
    topic = lower_first(topic_of(figure.caption))
    var = next((v for c in said if (v := trend_variable(c.text))), None)
    if var:
        return f"In {figure.label} ({topic}), how does {y or 'the result'} change with {var}?"
    defined = caption_series(figure.caption)
    if len(defined) >= 2:
        measured = lower_first(y) if y else _measured(figure.caption)
        return f"In {figure.label} ({topic}), how do {and_list(defined)} compare on {measured}?"
    if ctx.method and any(ctx.method.lower() in c.text.lower() for c in said):
        return f"In {figure.label} ({topic}), how does {ctx.method} compare with the alternatives?"
    return None


# A name the caption defines after its first sentence: "TRICE-I: only train by …", "Ours-S
# denotes …".
DEFINED = re.compile(
    r"(?:^|[.;]\s+)([A-Z][\w+-]*(?: [\w+-]+)?)(?::\s| denotes | means | refers to )"
)


def caption_series(caption: str) -> list[str]:
    """The compared settings a caption defines one by one after its subject ("TRICE-I: only
    stage I. TRICE-II: only stage II. TRICE-ALL: both."), in order, once each."""
    rest = SENTENCE_END.split(re.sub(r"^(?:Figure|Fig\.)\s*\S+\s*[:.]?\s*", "", caption), 1)
    if len(rest) < 2:
        return []
    names = [m.group(1) for m in DEFINED.finditer(rest[1])]
    return list(dict.fromkeys(n for n in names if len(n) <= 30 and not PANEL_NAME.match(n)))


PANEL_NAME = re.compile(r"(?:left|right|top|bottom|middle|upper|lower|inset)\b", re.I)


def _topic_says_not(figure: Figure) -> bool:
    return bool(NOT_AN_EXPERIMENT.search(topic_of(figure.caption)))
