"""Claim sentences: the paper's own findings, the tables they cite, the headline labels."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from expcurate.records import Figure, ParsedPaper, Section, Table
from extractors.tasks.claims import (
    Claim,
    cited_labels,
    claims_for,
    find_claims,
    headline_labels,
    split_sentences,
)

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("EXPCURATE_CORPUS_DIR") or REPO.parent / "shared" / "corpus")


def _paper(
    *sections: Section, abstract: str = "", tables: int = 4, figures: int = 2
) -> ParsedPaper:
    return ParsedPaper(
        title="Gated Mixing for Things",
        abstract=abstract,
        sections=list(sections),
        tables=[
            Table(label=f"Table {i}", caption=f"Table {i}: Results.", page=1)
            for i in range(1, tables + 1)
        ],
        figures=[
            Figure(label=f"Figure {i}", caption=f"Figure {i}: Curves.", page=1)
            for i in range(1, figures + 1)
        ],
    )


def _texts(paper: ParsedPaper) -> list[str]:
    return [c.text for c in find_claims(paper)]


# ---------------------------------------------------------------- claims and pointers


def test_pointer_sentences_are_not_claims() -> None:
    """A sentence that only says where results are is no claim; one that states what they show
    is, with the label it cites."""
    text = (
        "Results are shown in Table 3. Table 2 lists the hyperparameters. "
        "We report the accuracy of every method in Table 4. See Figure 1 for an overview. "
        "As shown in Table 3, our method consistently outperforms all baselines across model sizes."
    )
    claims = find_claims(_paper(Section(number="4", title="Experiments", text=text)))
    assert [c.text for c in claims] == [
        "As shown in Table 3, our method consistently outperforms all baselines across model sizes."
    ]
    assert claims[0].labels == ["Table 3"]
    assert claims[0].section == "4 Experiments"
    assert set(claims[0].kinds) == {"comparative", "consistency"}


def test_a_pointer_with_a_finding_clause_is_a_claim() -> None:
    """ "Table 5 shows that ..." states a finding; "Table 5 shows the results" does not."""
    text = (
        "Table 5 shows the results on the test set. "
        "Table 5 shows that removing the gate degrades accuracy by 4.1 points."
    )
    claims = find_claims(_paper(Section(number="5", title="Ablation Study", text=text), tables=5))
    assert [c.labels for c in claims] == [["Table 5"]]
    assert "ablation" in claims[0].kinds and "removing the gate degrades" in claims[0].cue


def test_unlabelled_claims_count_only_in_the_abstract_introduction_and_conclusion() -> None:
    """A finding without a label is a headline claim in the abstract or introduction, but not in
    the middle of a method section; statements about other papers' methods are not claims."""
    paper = _paper(
        Section(
            number="1",
            title="Introduction",
            text=(
                "Previous works outperform classical pipelines on small graphs. "
                "Experiments show that our method outperforms strong baselines on six benchmarks."
            ),
        ),
        Section(
            number="3",
            title="Method",
            text=(
                "Intuitively, a gated mixer is better than a plain mixer for long inputs. "
                "We define the gate as a sigmoid of the input."
            ),
        ),
        abstract="We propose Gated Mixing. It improves accuracy over the best baseline by 2.3 points.",
    )
    claims = find_claims(paper)
    assert [(c.section, c.headline) for c in claims] == [
        ("Abstract", True),
        ("1 Introduction", True),
    ]
    assert "Experiments show" in claims[1].text


def test_related_work_and_its_subsections_are_skipped() -> None:
    """Comparisons in related work are other papers' findings, even in its subsections."""
    paper = _paper(
        Section(
            number="2", title="Related Work", level=1, text="X outperforms Y by 3 points (Table 1)."
        ),
        Section(
            number="2.1",
            title="Graph Models",
            level=2,
            text="Z outperforms Y by 5 points (Table 1).",
        ),
        Section(
            number="3", title="Results", level=1, text="Ours outperforms Z by 2 points (Table 1)."
        ),
    )
    assert _texts(paper) == ["Ours outperforms Z by 2 points (Table 1)."]


def test_a_claim_borrows_the_label_of_the_sentence_before_it() -> None:
    """ "Table 2 compares the variants. The full model beats every variant." - the second
    sentence is the claim about Table 2; the label is marked as borrowed."""
    text = (
        "Table 2 compares the variants of the model. "
        "The full model beats every variant by at least 3.0 points."
    )
    (claim,) = find_claims(_paper(Section(number="5", title="Ablations", text=text)))
    assert claim.labels == ["Table 2"] and claim.inferred_labels


def test_a_subsection_borrows_its_parents_last_label() -> None:
    """Run-in subsections ("Effect of X") discuss the table their parent section points to."""
    paper = _paper(
        Section(
            number="4.3",
            title="Ablation Study",
            level=2,
            text="We compare the variants in Table 3.",
        ),
        Section(
            title="Effect of Gating", level=3, text="The gated variant outperforms the plain one."
        ),
    )
    (claim,) = find_claims(paper)
    assert claim.labels == ["Table 3"] and claim.section == "Effect of Gating"


# ---------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("sentence", "labels"),
    [
        ("as Tab. 3 shows", ["Table 3"]),
        ("see Fig. 2 for details", ["Figure 2"]),
        ("Figs. 2 and 3 plot it", ["Figure 2", "Figure 3"]),
        ("Tables 2-4 report it", ["Table 2", "Table 3", "Table 4"]),
        ("Tables 2–4 report it", ["Table 2", "Table 3", "Table 4"]),
        ("Table 2 and 3 report it", ["Table 2", "Table 3"]),
        ("Figure 4(a) shows it", ["Figure 4"]),
        ("Figure 3 (a-c) compares it", ["Figure 3"]),
        ("Figure 5b shows it", ["Figure 5"]),
        ("the appendix Table A1 and Table 10", ["Table A1", "Table 10"]),
        ("Table 1, Table 2, and Fig. 7", ["Table 1", "Table 2", "Figure 7"]),
        ("no label, but a table of 3 rows", []),
    ],
)
def test_labels_are_normalised(sentence: str, labels: list[str]) -> None:
    """Every spelling of a label ("Tab.", "Figs.", ranges, panels) becomes "Table N"/"Figure N"."""
    assert cited_labels(sentence) == labels


def test_labels_resolve_to_the_papers_own_spelling() -> None:
    """A citation "Table A1" of a table the parser labelled "Table A.1" is that table."""
    paper = ParsedPaper(
        title="T",
        sections=[
            Section(
                title="Additional Results",
                appendix=True,
                text="Our model outperforms the baseline (Table A1).",
            )
        ],
        tables=[Table(label="Table A.1", caption="Table A.1: More.", page=9)],
    )
    assert [c.labels for c in find_claims(paper)] == [["Table A.1"]]


# ---------------------------------------------------------------- sentences


def test_sentences_do_not_split_on_abbreviations_decimals_or_section_refs() -> None:
    """ "e.g.", "i.e.", "et al.", "Fig.", "Tab.", "Eq.", "vs.", "3.5" and "Sec. 4.2" end no
    sentence; a period before a capital does."""
    text = (
        "Our model, e.g. the large one, beats X by 3.5 points (see Sec. 4.2 and Eq. 3). "
        "As Smith et al. show in Fig. 2, it wins vs. all baselines, i.e. every one. "
        "Tab. 4 has all of the remaining results."
    )
    assert split_sentences(text) == [
        "Our model, e.g. the large one, beats X by 3.5 points (see Sec. 4.2 and Eq. 3).",
        "As Smith et al. show in Fig. 2, it wins vs. all baselines, i.e. every one.",
        "Tab. 4 has all of the remaining results.",
    ]


def test_hyphenation_across_lines_is_repaired() -> None:
    """A word broken at a line end is joined; a compound keeps its hyphen; a suspended hyphen
    ("instance- and cluster-level") stays as printed."""
    text = (
        "Our method outper-\nforms the BAPOS-\nGMCP baseline at instance- and cluster-level tasks."
    )
    assert split_sentences(text) == [
        "Our method outperforms the BAPOS-GMCP baseline at instance- and cluster-level tasks."
    ]


def test_running_heads_and_leaked_figure_text_are_dropped() -> None:
    """The paper's title repeated as a running head, and short figure labels that leaked into
    the text, are no part of any sentence."""
    text = (
        "Table 2 compares the variants of the gated model.\nGated Mixing for Things\n"
        "GATED PLAIN BASE\nThe full model beats every variant by 3.0 points."
    )
    assert split_sentences(text, "Gated Mixing for Things") == [
        "Table 2 compares the variants of the gated model.",
        "The full model beats every variant by 3.0 points.",
    ]


# ---------------------------------------------------------------- kinds and scores


@pytest.mark.parametrize(
    ("sentence", "kind", "absent"),
    [
        (
            "As the number of microbatches increases, the throughput of the baselines drops (Figure 2).",
            "trend",
            "comparative",
        ),
        (
            "Throughput of the baselines grows with the number of microbatches, while ours stays high (Figure 2).",
            "trend",
            "ablation",
        ),
        (
            "The larger the model, the better the accuracy of all methods (Figure 2).",
            "trend",
            "comparative",
        ),
        ("Our method outperforms all baselines by 2.1 points (Table 2).", "comparative", "trend"),
        (
            "Our method reduces the error by 12% relative to the baseline (Table 2).",
            "comparative",
            "trend",
        ),
        ("Removing the router degrades accuracy by 8 points (Table 2).", "ablation", "trend"),
        ("Each component contributes to the final accuracy (Table 2).", "ablation", "trend"),
    ],
)
def test_trend_comparative_and_ablation_kinds(sentence: str, kind: str, absent: str) -> None:
    """A trend says how a quantity moves with another; a comparative ranks methods; an
    ablation says what removing a part costs."""
    (claim,) = find_claims(_paper(Section(number="4", title="Results", text=sentence)))
    assert kind in claim.kinds and absent not in claim.kinds


def test_measured_findings_score_above_hedged_ones() -> None:
    """A comparison with a number scores above the same comparison hedged and unmeasured."""
    text = (
        "Our method improves accuracy over the baseline by 3.2 points (Table 2). "
        "Our method may improve accuracy over the baseline on some tasks (Table 2)."
    )
    strong, weak = find_claims(_paper(Section(number="4", title="Results", text=text)))
    assert strong.score > weak.score


def test_descriptive_and_setup_sentences_are_not_claims() -> None:
    """Consistency words alone ("across all experiments") describe a setup, not a finding."""
    text = (
        "We use a batch size of 64 across all experiments (Table 1). "
        "Figure 2 illustrates the architecture of our model."
    )
    assert find_claims(_paper(Section(number="4", title="Experiments", text=text))) == []


# ---------------------------------------------------------------- headline labels


def _ranked_paper() -> ParsedPaper:
    return ParsedPaper(
        title="Gated Mixing",
        abstract="Our method outperforms all baselines on six benchmarks.",
        sections=[
            Section(
                number="1",
                title="Introduction",
                text="Figure 1 gives an overview of our framework.",
            ),
            Section(number="4", title="Experiments", text="Table 1 lists the dataset statistics."),
            Section(
                number="4.1",
                title="Ablation Study",
                level=2,
                text=(
                    "Removing the gate degrades accuracy by 4 points (Table 3). "
                    "Our model also outperforms the baseline in Table 9."
                ),
            ),
            Section(
                number="4.2",
                title="Main Results",
                level=2,
                text=(
                    "Table 2 compares our method with the state of the art. "
                    "Our method outperforms every baseline by at least 1.5 points."
                ),
            ),
            Section(
                number="A",
                title="More Results",
                appendix=True,
                text=("Our method outperforms the baselines on every extra dataset (Table 4)."),
            ),
        ],
        tables=[
            Table(label="Table 1", caption="Table 1: Dataset statistics.", page=3),
            Table(
                label="Table 2", caption="Table 2: Comparison with the state of the art.", page=4
            ),
            Table(label="Table 3", caption="Table 3: Ablation of the gate.", page=4),
            Table(
                label="Table 4",
                caption="Table 4: Extra datasets.",
                page=9,
                section="A More Results",
            ),
        ],
        figures=[Figure(label="Figure 1", caption="Figure 1: Overview of the framework.", page=1)],
    )


def test_headline_labels_put_the_main_results_table_first() -> None:
    """The table a main-results claim cites leads, even when an ablation table is cited
    earlier; setup tables, overview figures, appendix tables and labels the paper has no table
    for (Table 9) are never headline."""
    assert headline_labels(_ranked_paper()) == ["Table 2", "Table 3"]


def test_claims_citing_headline_labels_are_headline() -> None:
    """Headline claims: those in the abstract or introduction, and those citing a headline
    label; an appendix claim about an appendix table is not one."""
    claims = find_claims(_ranked_paper())
    flags = {c.text[:30]: c.headline for c in claims}
    assert flags == {
        "Our method outperforms all bas": True,
        "Removing the gate degrades acc": True,
        "Our model also outperforms the": False,
        "Our method outperforms every b": True,
        "Our method outperforms the bas": False,
    }


def test_claims_for_a_label_put_direct_and_strong_claims_first() -> None:
    """claims_for accepts any spelling of the label; claims citing it themselves come before
    claims that borrowed it, stronger before weaker."""
    text = (
        "Table 2 compares the variants of the model. "
        "The full model beats every variant by at least 3.0 points. "
        "Our model is better than the plain one (Tab. 2). "
        "The gated model outperforms the plain one by 2.5 points (Table 2)."
    )
    claims = find_claims(_paper(Section(number="5", title="Results", text=text)))
    ranked = claims_for("Tab. 2", claims)
    assert [c.text[:20] for c in ranked] == [
        "The gated model outp",
        "Our model is better ",
        "The full model beats",
    ]
    assert claims_for("Table 7", claims) == []


def test_same_paper_same_claims() -> None:
    """Pure and deterministic: the same paper gives equal claims in the same order."""
    paper = _ranked_paper()
    first: list[Claim] = find_claims(paper)
    assert first == find_claims(paper) and headline_labels(paper) == headline_labels(paper)


# ---------------------------------------------------------------- the shared corpus

CORPUS_PAPERS = [
    "contrastive-clustering",
    "eat-longtail-ood",
    "lexsub-causal-lm",
    "trice-tool-learning",
]


@pytest.fixture(scope="module")
def corpus_papers() -> dict[str, ParsedPaper]:
    from extractors.paper import parse_pdf

    return {
        slug: parse_pdf(CORPUS / slug / "paper.pdf")
        for slug in CORPUS_PAPERS
        if (CORPUS / slug / "paper.pdf").exists()
    }


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason=f"no corpus at {CORPUS} (EXPCURATE_CORPUS_DIR)")
def test_corpus_papers_yield_claims_about_their_own_tables(
    corpus_papers: dict[str, ParsedPaper],
) -> None:
    """Real papers: each yields claims citing tables or figures the parser found, and headline
    labels that exist, led by a table some claim cites."""
    assert corpus_papers, f"none of {CORPUS_PAPERS} under {CORPUS}"
    for slug, paper in corpus_papers.items():
        existing = {x.label for x in [*paper.tables, *paper.figures]}
        claims = find_claims(paper)
        grounded = [c for c in claims if c.labels and set(c.labels) <= existing]
        assert len(grounded) >= 3, (slug, [c.text for c in claims])
        top = headline_labels(paper)
        assert top and set(top) <= existing, (slug, top)
        assert top[0].startswith("Table") and claims_for(top[0], claims), (slug, top)
        assert any(c.section == "Abstract" for c in claims), slug


def test_a_lead_in_before_an_enumerated_finding_is_dropped() -> None:
    from extractors.tasks.phrasing import clean_claim

    text = (
        "Main Results The results are placed in Table 4, from which we observe that: "
        "(1) ModelX significantly outperforms the baseline in both pass rate and win rate."
    )
    assert clean_claim(text).startswith("ModelX significantly outperforms the baseline")


def test_a_question_made_from_a_finding_must_read_as_one() -> None:
    from extractors.tasks.spine import well_formed

    assert well_formed("How does ModelX compare with ReACT and ReACT@N in all scenarios?")
    # rivals counted but not named
    assert not well_formed("How does ModelX compare with the two baselines in all scenarios?")
    assert not well_formed("How does ModelX rank on with an average accuracy?")
    assert not well_formed("How does ModelX compare with OE and outperforms PASCL in 3 out cases?")
    assert not well_formed("Do the global versions not always achieve better performance?")
    assert not well_formed("How do the Value methods also manage to compare with the baseline?")


def test_we_show_that_opens_no_finding() -> None:
    from extractors.tasks.phrasing import clean_claim

    text = "In Table 1, we show that ModelX optimizes programs beyond what the old optimizer can."
    assert clean_claim(text).startswith("ModelX optimizes programs beyond")


def test_a_finding_question_names_the_benchmark_its_caption_names() -> None:
    from extractors.tasks.spine import with_setting

    topic = "End-to-end optimization on the benchmark Big-Bench Hard in 0-shot setup"
    long_q = "Is ModelX able to optimize a program beyond what the old optimizer can offer on hard tasks?"
    asked = with_setting(long_q, "Table 1", topic)
    assert asked is not None and asked.endswith(
        "(setting of Table 1: end-to-end optimization "
        "on the benchmark Big-Bench Hard in 0-shot setup)?"
    )
    named = "Is ModelX able to beat the old optimizer on Big-Bench Hard in the 0-shot setup at all?"
    assert with_setting(named, "Table 1", topic) == named


def test_a_table_cited_as_a_yardstick_is_not_the_findings_own() -> None:
    from extractors.tasks.claims import own_labels

    said = "Compared with the results in Table 3, the gain of DFSDT is larger for ToolLLaMA."
    assert own_labels(said) == []
    assert own_labels("Unlike Table 2, Table 4 shows a drop for ModelX.") == ["Table 4"]
    assert own_labels("ModelX beats ModelY (Table 3).") == ["Table 3"]


def test_a_finding_question_names_what_is_measured_when_it_names_nothing() -> None:
    from extractors.tasks.spine import measure_names, with_setting

    q = "Does ModelX perform even better than ModelY on the QuizSet leaderboard this year?"
    assert with_setting(q, "Table 4", "", ["QuizSet MSE", "QuizSet MAE", "Params (M)"]) == (
        "Does ModelX perform even better than ModelY on the QuizSet leaderboard this year "
        "(measured by MSE and MAE)?"
    )
    assert with_setting(q.replace("better", "better in MSE"), "Table 4", "", ["MSE"]) == (
        q.replace("better", "better in MSE")
    )
    # datasets as columns: no metric named, nothing added
    assert measure_names(["CIFAR-10", "STL-10"]) == []
    assert measure_names(["NMI", "ACC", "ARI"]) == ["NMI", "ACC", "ARI"]
