"""Claims first: the paper's own finding is the spine of a task, the table's cells ground it."""

from __future__ import annotations

import pytest

from expcurate.records import Axis, Figure, ParsedPaper, Section, Table
from extractors.tasks.heuristic import draft
from extractors.tasks.phrasing import claim_question, trend_variable

ABSTRACT = "We propose a forecaster called Gated Mixing (GM) for long series."
RESULTS = Table(
    label="Table 2",
    caption="Table 2: Test accuracy on two datasets (higher is better).",
    page=4,
    section="4 Results",
    rows=[
        ["Method", "Params (M)", "ETT", "Weather"],
        ["Baseline", "1.0", "71.2", "64.0"],
        ["Other", "2.0", "72.5", "65.1"],
        ["GM-S", "0.8", "73.0", "66.2"],
        ["GM-L", "9.5", "75.4", "68.9"],
    ],
)


def _paper(text: str, tables: list[Table] = (), figures: list[Figure] = ()) -> ParsedPaper:  # type: ignore[assignment]
    return ParsedPaper(
        title="Learning Things",
        abstract=ABSTRACT,
        sections=[Section(number="4", title="Results", text=text, page=4)],
        tables=list(tables),
        figures=list(figures),
    )


def test_the_papers_finding_leads_and_is_asked() -> None:
    """The sentence that states what Table 2 shows becomes the question (without its
    numbers, and with the table's setting since the sentence is short) and leads the outcome,
    followed by the cells."""
    claim = "As shown in Table 2, GM-L consistently outperforms all baselines by 2.9 points."
    (task,) = draft(_paper(claim, [RESULTS])).tasks
    assert task.question == (
        "How does GM-L compare with all baselines "
        "(setting of Table 2: test accuracy on two datasets (higher is better))?"
    )
    assert task.expected_outcome.startswith("GM-L consistently outperforms all baselines by 2.9")
    assert "75.4" in task.expected_outcome


def test_a_methods_own_sizes_and_its_cost_are_never_rivals() -> None:
    """GM-S is not a baseline of GM-L, and a parameter count is not a score."""
    (task,) = draft(_paper("We train every model for 10 epochs.", [RESULTS])).tasks
    assert "GM-S" not in task.expected_outcome
    assert "Params" not in task.expected_outcome
    assert task.design_complexity.independent_variables["method"][1:] == ["Baseline", "Other"]


def test_a_figure_no_sentence_draws_a_finding_from_gets_no_task() -> None:
    """'The loss curves are shown in Figure 3' is a pointer, not an outcome."""
    figure = Figure(
        label="Figure 3",
        caption="Figure 3: Training loss curves.",
        page=5,
        kind="vector",
        ticks=10,
        axes=[Axis(orientation="y", label="Loss"), Axis(orientation="x", label="Epoch")],
    )
    assert draft(_paper("The loss curves are shown in Figure 3.", figures=[figure])).tasks == []
    found = draft(
        _paper("As Figure 3 shows, the loss falls faster with more layers.", [], [figure])
    )
    (task,) = found.tasks
    assert task.expected_outcome.startswith("The loss falls faster with more layers")


def test_undiscussed_appendix_tables_are_left_out() -> None:
    """An appendix table no sentence discusses comes last, if at all: here, not at all."""
    extra = RESULTS.model_copy(update={"label": "Table 9", "section": "A Extra results"})
    paper = _paper("GM-L wins.", [extra])
    paper.sections.append(Section(number="A", title="Extra results", text="x", appendix=True))
    assert draft(paper).tasks == []


def test_one_sentence_citing_two_tables_is_asked_once() -> None:
    """The same finding asked twice would make two identical tasks: it is the question of one
    task only, while both outcomes state it, each grounded in its own table."""
    # a table of its own (another caption): an identical one is the same experiment twice
    caption = "Table 3: Test accuracy on two more datasets (higher is better)."
    second = RESULTS.model_copy(update={"label": "Table 3", "page": 5, "caption": caption})
    claim = "Tables 2 and 3 show that GM-L outperforms all baselines on both datasets."
    tasks = draft(_paper(claim, [RESULTS, second])).tasks
    assert len(tasks) == 2
    assert (
        sum(t.question.startswith("How does GM-L compare with all baselines") for t in tasks) == 1
    )
    assert all(t.expected_outcome.startswith("GM-L outperforms") for t in tasks)
    assert [t.expected_outcome.count(f"In {t.evidence[0].label}:") for t in tasks] == [1, 1]


@pytest.mark.parametrize(
    ("claim", "question"),
    [
        (
            "Moreover, as shown in Table 3, our method achieves the best MSE of 0.361 on ETTh1.",
            "How does GM rank on MSE on ETTh1?",
        ),
        (
            "The full model is better than every ablated variant (75.9 vs. 75.3).",
            "How does the full model compare with every ablated variant?",
        ),
        (
            "Removing the gate degrades the MSE by 4.7% on ETTh1.",
            "How does removing the gate affect the MSE on ETTh1?",
        ),
        (
            "As Figure 2 shows, accuracy rises from 61.2 to 70.4 with more layers.",
            "How does accuracy change with more layers?",
        ),
        (
            "Table 3 shows that data augmentations could enhance the performance of CC.",
            "Can data augmentations enhance the performance of CC?",
        ),
        (
            "As shown in Tab. 5, Ham achieves the best trade-off between cost and accuracy.",
            "How does Ham rank on trade-off between cost and accuracy?",
        ),
        (
            "ResNet50 is worse than ResNet34 on CIFAR-10, which suggests depth does not help.",
            "How does ResNet50 compare with ResNet34 on CIFAR-10?",
        ),
        ("Table 2 and Table 4 show several cases where the baseline is better.", None),
        ("To validate this, we include an ablation that removes the trace.", None),
    ],
)
def test_claim_question(claim: str, question: str | None) -> None:
    """Opener, citation and answer numbers dropped; a comparison or a trend is asked openly
    ("how does X compare with Y"), so the question does not hand over the direction; other
    findings are turned around into yes/no; sentences whose subject is a pointer or a clause
    are left to the table's own question."""
    assert claim_question(claim, "GM") == question


def test_trend_variable() -> None:
    assert trend_variable("Accuracy rises from 61.2 to 70.4 with more layers.") == (
        "the number of layers"
    )
    assert trend_variable("The return improved with the number of simulations.") == (
        "the number of simulations"
    )
    assert trend_variable("GM beats the baseline.") is None


def test_a_teaser_figure_gets_no_task() -> None:
    """A figure set in the introduction sums the paper up; its experiments have their own."""
    teaser = Figure(
        label="Figure 1",
        caption="Figure 1: Accuracy of GM and baselines.",
        page=2,
        section="1 Introduction",
        kind="vector",
        ticks=10,
    )
    claim = "As Figure 1 shows, GM-L outperforms every baseline on both datasets."
    assert draft(_paper(claim, figures=[teaser])).tasks == []
    placed = teaser.model_copy(update={"section": "4 Results", "page": 5})
    assert [t.key for t in draft(_paper(claim, figures=[placed])).tasks] == ["figure-1:trend"]


def test_a_row_called_ours_is_the_method_and_named_in_the_question() -> None:
    """Tables often call the paper's method "Ours"; it is the subject, by the paper's name."""
    table = RESULTS.model_copy(
        update={
            "rows": [
                RESULTS.rows[0],
                RESULTS.rows[1],
                RESULTS.rows[2],
                ["Ours", "3.0", "74.0", "67.0"],
            ]
        }
    )
    (task,) = draft(_paper("We train every model for 10 epochs.", [table])).tasks
    assert task.question.startswith(
        "How does GM (Ours) compare with Baseline and Other on ETT and Weather"
    )


ABBREVIATED = Table(
    label="Table 5",
    caption="Table 5: Anomaly detection (F1, higher is better).",
    page=5,
    section="4 Results",
    rows=[
        ["Method", "SMD", "MSL", "Avg F1"],
        ["Lin.", "80.1", "75.0", "77.6"],
        ["Trans.", "84.0", "78.5", "81.3"],
        ["Autoformer", "85.1", "79.0", "82.1"],
        ["GM (Conv)", "85.8", "85.1", "85.5"],
        ["GM (MLP)", "85.1", "84.2", "84.7"],
    ],
)


def test_a_finding_naming_rivals_that_the_table_abbreviates_is_grounded_by_them() -> None:
    """ "Trans." stands for Transformer; the two GM rows are one method's variants, and alone
    they would ground no comparison at all."""
    text = "As Table 5 shows, GM still outperforms the Transformer in anomaly detection."
    (task,) = [t for t in draft(_paper(text, [ABBREVIATED])).tasks if t.key.startswith("table-5")]
    methods = task.design_complexity.independent_variables["method"]
    assert "Trans." in methods and "Lin." not in methods
    assert "Trans.: SMD 84.0" in task.expected_outcome


def test_one_methods_variants_alone_leave_the_drafts_own_comparison() -> None:
    text = "As Table 5 shows, GM (Conv) and GM (MLP) both do well in anomaly detection."
    (task,) = [t for t in draft(_paper(text, [ABBREVIATED])).tasks if t.key.startswith("table-5")]
    assert "Autoformer" in task.expected_outcome  # the strongest rival, from the draft itself


def test_a_concession_does_not_lead_the_outcome() -> None:
    text = (
        "As Table 2 shows, the baseline is better than GM-S on Weather in several cases, "
        "where GM-S is worse. "
        "In Table 2, GM-L outperforms Baseline and Other on ETT by a wide margin."
    )
    (task,) = [t for t in draft(_paper(text, [RESULTS])).tasks if t.key.startswith("table-2")]
    assert task.expected_outcome.startswith("GM-L outperforms Baseline and Other on ETT")
    assert "The baseline is better than GM-S on Weather" in task.expected_outcome


def test_a_table_of_datasets_is_measured_by_what_its_caption_names() -> None:
    """Columns that are datasets name no metric; the caption's F1-score is what the question
    asks about, and the draft records it as the metric."""
    table = Table(
        label="Table 5",
        caption="Table 5: Anomaly detection. We report the F1-score for each dataset.",
        page=4,
        section="4 Results",
        rows=[
            ["Method", "SMD", "MSL", "SWaT"],
            ["Baseline", "81.2", "77.0", "90.1"],
            ["GM", "85.1", "80.3", "92.4"],
        ],
    )
    claim = "As Table 5 shows, GM outperforms the baseline on anomaly detection."
    (task,) = draft(_paper(claim, [table])).tasks
    assert task.design_complexity.dependent_variables["metric"] == ["F1"]
    assert "measured by F1" in task.question
    # the claim-less draft names it beside the columns
    (plain,) = draft(_paper("We train every model for 10 epochs.", [table])).tasks
    assert "SMD, MSL and SWaT (F1) in Table 5" in plain.question


def test_precision_and_recall_beside_f1_are_measures_a_question_names() -> None:
    from extractors.tasks.spine import measure_names, with_setting

    heads = ["SMD P", "SMD R", "SMD F1", "MSL P", "MSL R", "MSL F1"]
    assert measure_names(heads) == ["P", "R", "F1"]
    assert measure_names(["SMD P", "SMD Q"]) == []  # a lone "P" is not a metric
    # one letter inside a word ("perform") does not count as naming the measure
    q = with_setting("Does GM perform the best overall on all the data?", "Table 9", "", heads)
    assert q == "Does GM perform the best overall on all the data (measured by P, R and F1)?"


def test_a_plot_without_readable_axes_takes_its_variables_from_the_caption() -> None:
    """A raster plot: the caption defines the compared stages and says what the x axis and
    the measure are; the spread it shows ("standard error") is not the measure."""
    figure = Figure(
        label="Figure 3",
        caption=(
            "Figure 3: Performance of GM at different training stages. In each iteration "
            "(x-axis), the policy is updated; mean and standard error of success rate are shown. "
            "GM-I: only stage one. GM-II: only stage two. GM-ALL: both stages."
        ),
        page=5,
        kind="raster",
        section="4 Results",
    )
    text = "As Figure 3 shows, training with both stages is much more stable than stage two alone."
    (task,) = draft(_paper(text, figures=[figure])).tasks
    design = task.design_complexity
    assert design.independent_variables == {
        "iteration": "the values plotted in Figure 3",
        "series": ["GM-I", "GM-II", "GM-ALL"],
    }
    assert list(design.dependent_variables) == ["success rate"]


def test_caption_series_leaves_panels_out() -> None:
    from extractors.tasks.figures import caption_series

    assert caption_series("Figure 2: Loss curves. Left: training. Right: validation.") == []
    assert caption_series("Figure 2: Loss curves. A-1 denotes one seed. A-3 means three.") == [
        "A-1",
        "A-3",
    ]


def test_rows_the_question_still_names_stay_arms_after_the_findings_rows() -> None:
    """The finding speaks of Other and Baseline only, but cannot be asked ("manage to"): the
    question the draft keeps names GM-L's rivals, and every row it names is one to run."""
    text = "Other and Baseline also manage to outperform the default on ETT (Table 2)."
    (task,) = draft(_paper(text, [RESULTS])).tasks
    assert task.question.startswith("How does GM-L compare with Baseline and Other"), task.question
    methods = task.design_complexity.independent_variables["method"]
    assert methods[:2] == ["Baseline", "Other"]  # the finding's rows ground the outcome
    assert "GM-L" not in task.expected_outcome
    assert "GM-L" in methods, methods
