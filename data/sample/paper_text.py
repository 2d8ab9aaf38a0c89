"""Content of the sample paper: an invented method (GateMix) with invented results.

Kept apart from the layout code so that tests can read the expected tables without parsing
the PDF. Every number here must agree with `repo/results/`; tests check that it does.
Text is plain ASCII: the PDF uses the non-embedded Base-14 fonts to stay small.
Table cells use two markers: `**x**` for bold, `None` for a cell merged into its left
neighbour and `"^"` for a cell merged into the one above (header rows only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

TITLE = "GateMix: Gated Token Mixing for Efficient Long-Horizon Time-Series Forecasting"
AUTHORS = "Mira Okonkwo, Tomas Lindqvist, Hana Sato, Rafael Duarte"
AFFILIATION = "Department of Computer Science, Northbridge Institute of Technology"
EMAILS = "{mokonkwo, tlindqvist, hsato, rduarte}@northbridge.example.edu"
CODE_URL = "https://github.com/expcurate/gatemix"
VENUE = "99th Conference on Neural Information Processing Systems (NeurIPS 2099)."


@dataclass
class Heading:
    number: str
    title: str
    level: int = 1


@dataclass
class Para:
    text: str
    head: str = ""  # bold run-in head, e.g. "Datasets."


@dataclass
class Item:
    label: str
    text: str


@dataclass
class Equation:
    text: str
    number: str


@dataclass
class TableSpec:
    label: str
    caption: str
    header: list[list[str | None]]
    body: list[list[str]]
    widths: list[float]  # relative column widths

    @property
    def n_rows(self) -> int:
        return len(self.header) + len(self.body)


@dataclass
class LineFigure:
    label: str
    caption: str
    x_label: str
    y_label: str
    x_ticks: list[int]
    y_range: tuple[float, float]
    y_ticks: list[float]
    series: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class HeatmapFigure:
    label: str
    caption: str
    rows: int
    cols: int
    period: int


Block = Heading | Para | Item | Equation | TableSpec | LineFigure | HeatmapFigure

ABSTRACT = (
    "Long-horizon forecasting of multivariate time series rewards models that can use hundreds "
    "of past time steps, yet attention-based forecasters pay a quadratic price for this and "
    "often overfit the moderately sized benchmarks used in practice. We present GateMix, an "
    "all-MLP forecaster that cuts each channel into patches and mixes information across "
    "patches with a learned token-mixing matrix whose output is modulated by an "
    "input-dependent sigmoid gate. The gate lets every block decide, position by position, "
    "how much mixed context to admit, which keeps training stable with long look-back "
    "windows. On four standard benchmarks (ETTh1, ETTm1, Weather and Electricity) GateMix "
    "attains the lowest mean squared error at horizon 96 on all four datasets, reducing MSE "
    "by 5.9% on average relative to the strongest baseline, while using 1.4M parameters and "
    "training 1.35 times faster per epoch than an MLP-Mixer of similar depth. Ablations show "
    "that the gate accounts for most of the gain: removing it raises the MSE on ETTh1 from "
    f"0.361 to 0.378. Code is available at {CODE_URL}."
)

MAIN = TableSpec(
    label="Table 1",
    caption=(
        "Forecasting error at horizon 96 with a look-back window of 336 steps (mean over "
        "three seeds; lower is better). Best result per column in bold."
    ),
    header=[
        ["Method", "ETTh1", None, "ETTm1", None, "Weather", None, "Electricity", None],
        ["^", "MSE", "MAE", "MSE", "MAE", "MSE", "MAE", "MSE", "MAE"],
    ],
    body=[
        ["Linear", "0.386", "0.400", "0.345", "0.372", "0.196", "0.255", "0.197", "0.282"],
        ["LSTM", "0.512", "0.498", "0.439", "0.446", "0.231", "0.289", "0.215", "0.305"],
        ["Transformer", "0.445", "0.452", "0.372", "0.401", "0.182", "0.247", "0.178", "0.275"],
        ["MLP-Mixer", "0.379", "0.397", "0.331", "**0.354**", "0.159", "0.211", "0.151", "0.248"],
        [
            "GateMix (ours)",
            "**0.361**",
            "**0.388**",
            "**0.318**",
            "0.356",
            "**0.148**",
            "**0.199**",
            "**0.139**",
            "**0.236**",
        ],
    ],
    widths=[2.2] + [1.0] * 8,
)

ABLATION = TableSpec(
    label="Table 2",
    caption=(
        "Ablation study: test MSE at horizon 96 when one component is removed (w/o) or added "
        "(+) to the full model. Mean over three seeds."
    ),
    header=[["Variant", "ETTh1", "Weather", "Electricity"]],
    body=[
        ["GateMix (full)", "**0.361**", "0.148", "**0.139**"],
        ["w/o gating (plain token mixing)", "0.378", "0.158", "0.150"],
        ["w/o channel mixing", "0.369", "0.155", "0.147"],
        ["w/o patching (one token per step)", "0.383", "0.162", "0.149"],
        ["+ learnable gate temperature", "0.362", "**0.147**", "0.140"],
    ],
    widths=[3.0, 1.0, 1.0, 1.0],
)

EFFICIENCY = TableSpec(
    label="Table 3",
    caption=(
        "Cost on Electricity (321 channels, horizon 96, batch size 32): parameters, wall-clock "
        "time per training epoch, peak accelerator memory and test MSE."
    ),
    header=[["Method", "Params (M)", "Time / epoch (s)", "Memory (GB)", "MSE"]],
    body=[
        ["Linear", "**0.3**", "**22**", "**0.9**", "0.197"],
        ["LSTM", "3.9", "268", "4.7", "0.215"],
        ["Transformer", "10.8", "412", "9.6", "0.178"],
        ["MLP-Mixer", "2.1", "96", "3.2", "0.151"],
        ["GateMix (ours)", "1.4", "71", "2.5", "**0.139**"],
    ],
    widths=[2.0, 1.2, 1.5, 1.3, 1.0],
)

SWEEP = TableSpec(
    label="Table 4",
    caption=(
        "Sensitivity on ETTh1: test MSE for K mixing blocks and hidden width D (seed 2021). "
        "The default configuration is K = 3, D = 128."
    ),
    header=[["Blocks K", "D = 64", "D = 128", "D = 256"]],
    body=[
        ["1", "0.376", "0.370", "0.372"],
        ["2", "0.368", "0.364", "0.366"],
        ["3", "0.365", "**0.361**", "0.363"],
        ["4", "0.366", "0.362", "0.367"],
    ],
    widths=[1.4, 1.0, 1.0, 1.0],
)

LOOKBACK = LineFigure(
    label="Figure 1",
    caption=(
        "Test MSE on ETTh1 (horizon 96) as the look-back window L grows from 48 to 720 steps. "
        "GateMix keeps improving up to L = 720, whereas the Transformer degrades beyond L = 336."
    ),
    x_label="Look-back window L",
    y_label="Test MSE",
    x_ticks=[48, 96, 192, 336, 720],
    y_range=(0.34, 0.48),
    y_ticks=[0.35, 0.40, 0.45],
    series={
        "GateMix": [0.421, 0.392, 0.372, 0.361, 0.358],
        "MLP-Mixer": [0.430, 0.401, 0.386, 0.379, 0.381],
        "Linear": [0.437, 0.409, 0.393, 0.386, 0.384],
        "Transformer": [0.468, 0.452, 0.447, 0.445, 0.471],
    },
)

GATES = HeatmapFigure(
    label="Figure 2",
    caption=(
        "Mean gate activation on the ETTh1 test set for each of the three mixing blocks (rows, "
        "block 1 at the top) and each of the 41 input patches (columns, most recent on the "
        "right). Brighter cells admit more mixed context; the deepest block shows a period of "
        "three patches, i.e. 24 hours."
    ),
    rows=3,
    cols=41,
    period=3,
)

TABLES = [MAIN, ABLATION, EFFICIENCY, SWEEP]
FIGURES = [LOOKBACK, GATES]

REFERENCES = [
    "[1] A. Bergstrom and K. Iwata. Linear models are strong forecasters of long horizons. "
    "Journal of Forecasting Methods, 41(2):112-130, 2091.",
    "[2] L. Ferreira, D. Mensah, and P. Novak. Recurrent encoders for multivariate sensor "
    "streams. In Proceedings of the International Conference on Learning Systems, 2088.",
    "[3] Y. Haddad and S. Ruiz. Attention over time: sequence transformers for forecasting. "
    "In Advances in Neural Information Processing Systems, 2093.",
    "[4] C. Whitfield, R. Osei, and M. Tanaka. Mixing tokens with multilayer perceptrons. "
    "In International Conference on Machine Representations, 2092.",
    "[5] J. Kowalczyk and E. Brandt. Patches of time: tokenising series for efficient "
    "forecasting. Transactions on Temporal Data, 7:44-61, 2095.",
    "[6] N. Petrov and A. Lindgren. Gated linear units revisited. Neural Computation "
    "Letters, 19(4):201-219, 2090.",
    "[7] F. Abara and T. Quist. Instance normalisation against distribution shift in "
    "forecasting. In Proceedings of the Symposium on Time-Series Learning, 2094.",
    "[8] G. Mbeki, H. Lund, and V. Sato. Frequency-domain mixers for long sequences. "
    "In Advances in Neural Information Processing Systems, 2096.",
]

BODY: list[Block] = [
    Heading("1", "Introduction"),
    Para(
        "Forecasting the next days of a power grid, a weather station or a fleet of "
        "transformers from their recent history is a routine task whose quality directly affects "
        "planning decisions. Modern benchmarks ask for long horizons, commonly 96 to 720 steps, "
        "and reward models that can read a long look-back window without drowning in noise. "
        "Two families dominate. Attention-based forecasters [3] relate every pair of time steps "
        "and are expressive, but their cost grows quadratically with the window and their "
        "accuracy often drops when the window becomes long. Linear and MLP-based forecasters "
        "[1, 4] are cheap and surprisingly strong, yet they mix all positions with one fixed "
        "matrix, so the same weighting of the past is applied regardless of what the series "
        "currently looks like."
    ),
    Para(
        "We argue that what such mixers lack is not capacity but selectivity. A token-mixing "
        "matrix learns which past patches are informative on average; it cannot decide that "
        "for a particular input a recent level shift makes the older context misleading. "
        "GateMix adds exactly this decision. Each mixing block computes a mixed representation "
        "of all patches and multiplies it by a sigmoid gate computed from the block input, "
        "element by element, before adding it back through a residual connection. When the "
        "gate closes, the block passes its input through unchanged; when it opens, the block "
        "imports context from the whole window. The gate costs one small matrix product per "
        "block and no attention."
    ),
    Para("Our contributions are the following:"),
    Item(
        "(1)",
        "GateMix, an all-MLP forecaster whose token mixing is modulated by an input-dependent "
        "gate, with patching, per-instance normalisation and a linear forecast head (Section 3).",
    ),
    Item(
        "(2)",
        "A study on four benchmarks in which GateMix attains the lowest MSE on every dataset "
        "at horizon 96, together with an ablation that isolates the contribution of the gate, "
        "of channel mixing and of patching (Sections 4.2 and 4.3).",
    ),
    Item(
        "(3)",
        "An analysis of cost and sensitivity showing that GateMix needs fewer parameters and "
        "less time per epoch than the MLP-Mixer baseline and keeps improving as the look-back "
        "window grows (Sections 4.4 and 4.5).",
    ),
    Para(
        f"Our code is available at {CODE_URL}; it holds the configuration files and launch "
        "scripts of every experiment in this paper."
    ),
    Heading("2", "Related Work"),
    Para(
        "Since sequence transformers were adapted to forecasting [3], a line of work has "
        "reduced their cost with sparse or frequency-domain attention [8]. These models are "
        "accurate on short windows, but several studies report that their error grows when "
        "the look-back window is extended, which suggests overfitting to spurious long-range "
        "correlations.",
        head="Attention-based forecasters.",
    ),
    Para(
        "A single linear layer from the look-back window to the horizon is a strong baseline "
        "[1]. Token-mixing MLPs [4] stack such layers with feature MLPs in between and recover "
        "some nonlinearity at low cost. Patching [5] groups consecutive steps into tokens, "
        "which shortens the sequence and smooths local noise. GateMix builds on patching and "
        "token mixing and differs in making the amount of mixing depend on the input.",
        head="Linear and MLP forecasters.",
    ),
    Para(
        "Multiplicative gates are a classical tool in recurrent networks [2] and in gated "
        "linear units [6], where they control the flow of information along depth or time. "
        "We use a gate of the same kind to control the flow of information across patches, "
        "combined with instance normalisation [7] to cope with distribution shift.",
        head="Gating.",
    ),
    Heading("3", "Method"),
    Heading("3.1", "Problem Formulation", 2),
    Para(
        "Given a multivariate series with C channels, a model reads a look-back window "
        "X in R^(L x C) of L steps and predicts the next H steps Y in R^(H x C). Channels "
        "share all weights and are processed independently until the forecast head, which "
        "keeps the parameter count independent of C. Each window is normalised per instance "
        "and per channel by subtracting its mean and dividing by its standard deviation; the "
        "statistics are added back to the forecast [7]."
    ),
    Heading("3.2", "Patch Embedding", 2),
    Para(
        "Each normalised channel is cut into N = floor((L - P) / S) + 1 overlapping patches of "
        "length P with stride S. With L = 336, P = 16 and S = 8 this gives N = 41 patches. "
        "A shared linear map embeds every patch into a D-dimensional token, giving a token "
        "matrix h in R^(N x D) per channel."
    ),
    Heading("3.3", "Gated Token Mixing", 2),
    Para(
        "A mixing block first mixes tokens along the patch axis with a learned matrix "
        "W_tok in R^(N x N), then decides how much of the mixed signal to keep:"
    ),
    Equation("m = W_tok h", "1"),
    Equation("g = sigmoid((h W_g + b_g) / tau)", "2"),
    Equation("h' = h + g * dropout(m)", "3"),
    Para(
        "where * is the element-wise product and tau is a temperature (tau = 1 unless stated "
        "otherwise). The gate is computed from the block input rather than from the mixed "
        "signal, so a block can refuse context before it sees it. Without the gate, Eq. (3) "
        "reduces to plain residual token mixing, which is the 'w/o gating' ablation of "
        "Section 4.3."
    ),
    Heading("3.4", "Channel Mixing and Forecast Head", 2),
    Para(
        "After token mixing, a two-layer feature MLP with hidden width 2D and ReLU activation "
        "mixes the D features of each token, again through a residual connection: "
        "h'' = h' + ReLU(h' W_1) W_2. We stack K such blocks. The forecast head flattens the "
        "N x D tokens of a channel and maps them linearly to the H future values, after which "
        "the instance statistics are restored."
    ),
    Heading("3.5", "Training Objective", 2),
    Para(
        "The model is trained end to end with the mean squared error between forecast and "
        "target on the standardised scale. No auxiliary losses are used. Because the gate is "
        "a smooth function of the input, the whole model is differentiable and is trained with "
        "Adam."
    ),
    Heading("4", "Experiments"),
    Heading("4.1", "Setup", 2),
    Para(
        "We use four public benchmarks. ETTh1 and ETTm1 contain seven load and oil-temperature "
        "variables of an electricity transformer, sampled hourly and every 15 minutes. Weather "
        "contains 21 meteorological indicators recorded every 10 minutes. Electricity contains "
        "the hourly consumption of 321 clients. The ETT datasets are split chronologically "
        "into 60% training, 20% validation and 20% test data; Weather and Electricity into "
        "70%, 10% and 20%. Every channel is standardised with the mean and standard deviation "
        "of its training part.",
        head="Datasets.",
    ),
    Para(
        "We compare against a Linear model that maps the window to the horizon [1], a "
        "two-layer LSTM [2], an encoder-only Transformer with patch tokens [3] and an "
        "MLP-Mixer [4] with the same patching, depth and width as GateMix but no gate. All "
        "baselines use the same look-back window, normalisation and training budget.",
        head="Baselines.",
    ),
    Para(
        "All models use a look-back window of L = 336 steps and a horizon of H = 96 steps. "
        "GateMix uses patch length 16, stride 8, K = 3 mixing blocks, hidden width D = 128, "
        "dropout 0.1 and gate temperature 1.0. We train with Adam, a learning rate of 0.001 "
        "(0.0005 on Electricity, where 0.001 diverged for two of three seeds), weight decay "
        "0.0001 and batch size 32 for at most 30 epochs, stopping early when the validation "
        "MSE has not improved for 5 epochs. Hyperparameters were chosen on the ETTh1 "
        "validation split and reused for all datasets.",
        head="Hyperparameters.",
    ),
    Para(
        "We report MSE and MAE on the standardised test split, averaged over all test windows "
        "and channels. Every number is the mean over three runs with seeds 2021, 2022 and 2023; "
        "the checkpoint with the lowest validation MSE of each run is evaluated once on the "
        "test split.",
        head="Evaluation protocol.",
    ),
    Heading("4.2", "Main Results", 2),
    MAIN,
    Para(
        "Table 1 compares GateMix with the baselines. GateMix attains the lowest MSE on all "
        "four datasets: 0.361 on ETTh1, 0.318 on ETTm1, 0.148 on Weather and 0.139 on "
        "Electricity. Relative to the strongest baseline, the ungated MLP-Mixer, the MSE drops "
        "by 4.7% on ETTh1, 3.9% on ETTm1, 6.9% on Weather and 7.9% on Electricity, or 5.9% on "
        "average. GateMix also has the lowest MAE on three of the four datasets; on ETTm1 the "
        "MLP-Mixer is marginally better (0.354 against 0.356). The Transformer is competitive "
        "on Weather and Electricity but falls behind the simple Linear model on the two ETT "
        "datasets, which are small enough for it to overfit. The LSTM is the weakest model on "
        "every dataset."
    ),
    Heading("4.3", "Ablation Study", 2),
    Para(
        "Table 2 removes one component of GateMix at a time. Removing the gate, so that every "
        "block adds its mixed signal unconditionally, costs the most among the mixing "
        "components: the MSE rises from 0.361 to 0.378 on ETTh1, from 0.148 to 0.158 on "
        "Weather and from 0.139 to 0.150 on Electricity, which brings GateMix back to the level "
        "of the MLP-Mixer baseline. Dropping channel mixing hurts less (0.369 on ETTh1). "
        "Replacing patches by one token per step is the most harmful change on ETTh1 and "
        "Weather (0.383 and 0.162), and it also multiplies the cost of token mixing by more "
        "than sixty. Learning the gate temperature instead of fixing it to 1 changes the "
        "results by at most 0.001, so we keep the simpler fixed temperature."
    ),
    ABLATION,
    Heading("4.4", "Efficiency and Sensitivity", 2),
    Para(
        "Table 3 reports the cost of each model on Electricity, the largest dataset. GateMix "
        "has 1.4M parameters, a third fewer than the MLP-Mixer (2.1M), because its feature MLP "
        "has 2D hidden units where the MLP-Mixer needs 4D to reach its best accuracy. One "
        "training epoch takes 71 s against 96 s for the MLP-Mixer and 412 s for the "
        "Transformer, and peak memory is 2.5 GB. Only the Linear model is cheaper, at a much "
        "higher error."
    ),
    EFFICIENCY,
    Para(
        "Table 4 varies the number of mixing blocks and the hidden width on ETTh1. The error "
        "changes by at most 0.015 across the whole grid; three blocks with width 128 are "
        "best (0.361), and a fourth block does not help. Figure 1 varies the look-back window. "
        "GateMix improves monotonically from 0.421 at L = 48 to 0.358 at L = 720, whereas the "
        "Transformer reaches its best value at L = 336 and degrades to 0.471 at L = 720. The "
        "ungated MLP-Mixer and the Linear model flatten out after L = 336."
    ),
    SWEEP,
    LOOKBACK,
    Heading("4.5", "What Do the Gates Learn?", 2),
    Para(
        "Figure 2 shows the mean gate activation per block and input patch on the ETTh1 test "
        "set. The first block admits context mostly for the most recent patches, acting as a "
        "local smoother. The deepest block opens its gate in a regular pattern with a period of "
        "three patches, i.e. 24 hours at a stride of 8 hourly steps, so it has learned to "
        "import context from the same time of day in earlier days. We observed no such "
        "structure in the token-mixing matrices of the ungated MLP-Mixer."
    ),
    GATES,
    Heading("5", "Conclusion"),
    Para(
        "GateMix shows that a single input-dependent gate on top of token mixing is enough to "
        "turn an MLP forecaster into the most accurate model of our comparison, at a lower cost "
        "than its ungated counterpart. The gate is responsible for most of the gain, and its "
        "activations reveal daily structure that the model discovered without supervision. "
        "Our study is limited to a horizon of 96 steps and to four benchmarks; extending the "
        "evaluation to longer horizons and to data with irregular sampling is left for future "
        "work."
    ),
]

REFERENCES_HEADING = Heading("", "References")

APPENDIX: list[Block] = [
    Heading("A", "Implementation Details"),
    Para(
        "The learning rate was selected from {0.0001, 0.0005, 0.001, 0.005} and the batch size "
        "from {16, 32, 64} on the ETTh1 validation split. Each configuration in "
        "configs/<dataset>.yaml of the code release holds the values of Section 4.1, and a run "
        "is started with python train.py --config configs/etth1.yaml --seed 2021. The "
        "experiments of Tables 1, 2 and 4 are scripted in scripts/run_main.sh, "
        "scripts/run_ablation.sh and scripts/run_sweep.sh. Timings in Table 3 were measured on "
        "a single accelerator with 24 GB of memory, averaged over epochs 2 to 6."
    ),
]
