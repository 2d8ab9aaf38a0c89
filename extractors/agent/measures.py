"""The steps that measure and report: the definition of each measured quantity, and the
statement that prints or writes it where the arms are compared.

A metric named by the task is found by its definition (`def MSE`), else by following the
value the report statement prints back to the function that computed it (`zoom_out_dice =
dice_score(...)`). The report is the first statement, from the evaluation on, that prints a
value and names one of the task's metrics (or, failing that, a common one).
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from extractors.repo import RepoSearch, stem, terms
from extractors.repo.pysource import OutlineItem

from .arm_options import (
    NO_VALUE,
    fold,
)
from .arms import (
    Arm,
    about_data,
    content_words,
    in_prose,
    numeric,
)
from .methods import NARROW
from .steps import Step, StepTracer

_METRIC_WORDS = "acc accuracy dice iou miou loss metric result mse mae rmse f1 auc bleu rouge psnr "
_METRIC_WORDS += "ssim reward return error precision recall score top1 pearson"
# whole words: "f1" and "top1", never "f" (of an f-string) or "1"
_COMMON_METRICS = frozenset(stem(w) for w in _METRIC_WORDS.split())
# words any value may be called by (`str(result)` of a parameter's record): tried last
_VAGUE_METRICS = frozenset(
    stem(w) for w in ["result", "metric", "score", "return", "error", "loss"]
)
_RAW = frozenset([stem("result")])
_DUMP = re.compile(r"\bdump\(")
_PLOTTING = re.compile(r"""\(\s*f?["']\s*(?:plot|plotting|draw|drawing)\b""", re.I)
_FAILURE = re.compile(r"\b(?:warning|warn|failed|exception|traceback)\b", re.I)
# a value interpolated, formatted, passed after another argument, or passed by keyword
# (`writer.write(metrics=json_metrics, ...)`)
_FORMATTED = re.compile(
    r"\{[^{}]*\}|%[-\d.]*[dfsgre]\b|[,+]\s*[A-Za-z_][\w.\[\]]*\s*[,)+]"
    r"|[(,]\s*\w+\s*=\s*[A-Za-z_][\w.\[\]]*\s*[,)]"
)
# ... or a value alone (`print(acc)`), a report when a measure names it (`_named_measure`)
_ALONE = re.compile(r"\b(?:print|log|info|write|dump)\(\s*([A-Za-z_][\w.]*)\s*\)")
_PRINTS_VALUE = re.compile(f"{_FORMATTED.pattern}|{_ALONE.pattern}")
# what is looked at rather than measured: it has no definition to cite
_SHOWN_WORDS = "visual visualization visualizations plot plots figure figures curve curves image"
_SHOWN = frozenset(stem(w) for w in (_SHOWN_WORDS + " images map maps output").split(" "))
_OPTION_LINE = re.compile(r"add_argument|^\s*help\s*=|\bhelp\s*=\s*['\"]")
_REPORT = re.compile(r"\b(print|log|logger|logging|write|writer|info|add_scalar|wandb|dump)\b")


_SETTING_WORDS = re.compile(
    r"\b(?:config|cfg|conf|args|opt|settings|path|dir|folder|f?name|filename|file)\b", re.I
)


def _named_measure(name: str) -> bool:
    """A value's name holds a measure's word, not only a vague one: `acc`, `miou_val`; not
    `metric` or `self.metrics_dict`, which may hold any measure and name none."""
    return bool({stem(w) for w in terms(name)} & (_COMMON_METRICS - _VAGUE_METRICS))


def _settings_only(said: str) -> bool:
    """Every value the statement interpolates is a setting (`{self.config.loggers}`,
    `{args.output_dir}`): it says where or how, not what was measured."""
    values = re.findall(r"\{([^{}]+)\}", said)
    if not values and (given := re.search(r"\.format\(([^()]*)\)", said)):
        values = [v for v in given.group(1).split(",") if v.strip()]  # '... {}'.format(x)
    return bool(values) and all(
        _SETTING_WORDS.search(v.replace(".", " ").replace("_", " ")) for v in values
    )


@dataclass(frozen=True)
class Computed:
    """Where the code computes a measure: the step citing it, the name the value is bound
    to or the definition computing it, and the function it is bound in ("" for a
    definition)."""

    step: Step
    name: str
    owner: str


def _other_level(node: ast.AST | None, measures: list[str]) -> str:
    """A level the function computes a measure at by default (`recall_level=0.95`) other
    than the one a measure names ("FPR@TPRn 0.98", "FPR98"), said: "; at recall_level 0.95
    by default, the task's is 0.98"; "" when they agree or either is unsaid."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return ""
    params = node.args.args[len(node.args.args) - len(node.args.defaults) :]
    levels = [
        (a.arg, d.value)
        for a, d in zip(params, node.args.defaults, strict=True)
        if re.search(r"level|recall|tpr|threshold", a.arg, re.I)
        and isinstance(d, ast.Constant)
        and isinstance(d.value, float)
        and 0 < d.value < 1
    ]
    if len(levels) != 1:
        return ""
    name, default = levels[0]
    for m in measures:
        level = _level(m)
        if level and abs(level - default) > 1e-9:
            return f"; at {name} {default:g} by default, the task's is {level:g}"
    return ""


class MeasureSteps:
    def __init__(self, search: RepoSearch, tracer: StepTracer) -> None:
        self.search = search
        self.tracer = tracer

    def _loop_around(self, path: str, line: int) -> tuple[int, int] | None:
        """The innermost loop of the module holding the line (its first and last lines)."""
        if not path.endswith(".py"):
            return None
        holding = [x for x in _loops_in(self.tracer.tree(path)) if x[0] < line <= x[1]]
        return min(holding, key=lambda x: x[1] - x[0], default=None)

    def metric_step(self, metrics: list[str], modules: list[str]) -> Step | None:
        """The definitions of the measured quantities: `def MSE(...)`, `def MAE(...)`."""
        wanted = {stem(w) for m in metrics for w in content_words(m)} - _SHOWN
        helpers = {"metric", "metrics", "compute", "calc", "get", "score"}
        for module in modules:
            found = [
                item
                for item in self.tracer.outline(module)
                if item.kind != "method"
                # a name's parts (`dice_score`: dice, score), not the compound itself
                and (own := {t for t in terms(item.name) if "_" not in t})
                # named after the measure, not only after the stage it is taken in (`train`
                # for "training time")
                and own & wanted - _STAGE_WORDS
                and own <= wanted | helpers
            ]
            if not found:
                continue
            first = found[0]
            near = [first, *(i for i in found[1:] if i.end - first.start <= 30)]
            names = ", ".join(i.name for i in near[:4])
            return Step(f"Compute {names} as measured", module, first.start, near[-1].end)
        return None

    def computed_metric(self, metrics: list[str], files: list[str]) -> Step | None:
        """A function that computes the measured quantities under their own names, when no
        definition is named after them: `def get_measures(...)` assigning `auroc = ...` and
        `aupr = ...` for AUROC and AUPR. It assigns two of them, or one a measure is named by
        (an acronym: AUROC, NMI), never only a word any code assigns (`loss`); of several,
        the one assigning the most."""
        wanted = {stem(w) for m in metrics for w in content_words(m)} - _SHOWN
        # a measure's own name (AUROC, NMI, mIoU), not a word any code assigns (loss, score)
        named = {
            stem(w)
            for m in metrics
            for w in re.findall(r"[\w@]+", m)
            if sum(c.isupper() for c in w) >= 2
        }
        if not wanted:
            return None
        best: tuple[int, str, OutlineItem, set[str]] | None = None
        for path in dict.fromkeys(files):
            tree = self.tracer.tree(path)
            for item in self.tracer.outline(path) if tree is not None else []:
                if item.kind not in ("function", "method") or item.end - item.start > NARROW:
                    continue
                node = self.tracer.def_node(path, item.name)
                calls = [
                    n
                    for n in (ast.walk(node) if node is not None else [])
                    if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                ]
                assigned = {stem(t.id) for n in calls for t in n.targets if isinstance(t, ast.Name)}
                hits = len(assigned & wanted)
                if (hits >= 2 or assigned & named) and (best is None or hits > best[0]):
                    best = (hits, path, item, assigned)
        if best is None:
            return None
        _, path, item, assigned = best

        def computed(metric: str) -> bool:  # FPR95 by its `fpr`, never ACC by no `acc`
            words = {stem(w.lower()) for w in re.findall(r"[A-Za-z0-9]+", metric)}
            return any(w == a or (len(a) >= 3 and w.startswith(a)) for w in words for a in assigned)

        # the measures it computes, not every measure of the task
        shown = [m for m in metrics if computed(m)][:3] or metrics[:3]
        node = self.tracer.def_node(path, item.name)
        # a measure at another level than the function's default, printed in a loop over
        # the levels ("FPR@TPRn 0.98" beside `recall_level=0.95`), is that loop's, not its
        away = [m for m in shown if _other_level(node, [m])]
        if away and (looped := self._levelled(list(files), away)):
            shown = [m for m in shown if m not in looped] or shown
        said = ", ".join(re.sub(r"\s*\([↑↓]\)", "", m) for m in shown)
        level = _other_level(node, shown)
        return Step(f"Compute {said} ({item.name}{level})", path, item.start, item.end)

    def computed_as(self, metric: str, modules: Sequence[str]) -> list[Computed]:
        """Where the code computes a measure no line prints under a short name of its own:
        a definition named by its initials anywhere in the repository (`class SHD` for
        "structural_hamming_distance"), else, in the modules the runs import, the first value
        per function assigned under its abbreviation (`sim = torch.matmul(z, z.T) / t` in
        InstanceLoss.forward and ClusterLoss.forward for "similarities"). What `__init__`
        makes is a tool, not the value; at most three places."""
        words = [
            w.lower()
            for w in re.findall(r"[A-Za-z]+", metric.replace("_", " "))
            if w.lower() not in _VAGUE and len(w) >= 2
        ]
        if not words:
            return []
        if len(words) >= 2:
            initials = "".join(w[0] for w in words)
            for path in self.search.readable:
                if not path.endswith(".py") or self.tracer.tree(path) is None:
                    continue
                for item in self.tracer.outline(path):
                    if item.kind in ("class", "function") and fold(item.name) in (
                        initials,
                        f"get{initials}",
                        f"compute{initials}",
                    ):
                        end = min(item.end, item.start + NARROW)
                        step = Step(f"Compute the {metric} ({item.name})", path, item.start, end)
                        return [Computed(step, item.name, "")]
        found: list[Computed] = []
        for path in modules:
            tree = self.tracer.tree(path)
            for item in self.tracer.outline(path) if tree is not None else []:
                if item.kind not in ("function", "method") or item.name.endswith("__init__"):
                    continue
                node = self.tracer.def_node(path, item.name)
                for n in ast.walk(node) if node is not None else []:
                    name = _assigned_name(n)
                    if name and _abbreviates(name, words):
                        line = getattr(n, "lineno", item.start)
                        end = statement_end(self.search.lines(path), line)
                        action = f"Compute the {metric} ({name}, in {item.name})"
                        found.append(Computed(Step(action, path, line, end), name, item.name))
                        break
                if len(found) >= 3:
                    return found
        return found

    def keyed_metric(self, metrics: list[str], files: list[str]) -> Step | None:
        """A table of the measures keyed by their names (`VALIDATION_MAP_FUNC = {"Invalid
        Format": lambda x: ..., "Invalid Action": ...}`), when no definition is named after
        them: a dict literal two of whose string keys are measures of the task, word for word
        or by two words or more of one ("Invalid Action" of "Invalid Action (IA) errors"); of
        several, the one naming the most."""
        wanted = [
            frozenset(stem(w) for w in content_words(re.sub(r"\([^)]*\)", " ", m))) - _SHOWN
            for m in metrics
        ]
        wanted = [w for w in wanted if w]
        best: tuple[int, str, ast.Dict, list[str]] | None = None
        for path in dict.fromkeys(files):
            tree = self.tracer.tree(path) if path.endswith(".py") else None
            for node in ast.walk(tree) if tree is not None else []:
                if not isinstance(node, ast.Dict):
                    continue
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                named = [
                    k
                    for k in keys
                    if isinstance(k, str)
                    and (words := frozenset(stem(w) for w in content_words(k)))
                    and any(words == w or (len(words) >= 2 and words < w) for w in wanted)
                ]
                if len(named) >= 2 and (best is None or len(named) > best[0]):
                    best = (len(named), path, node, named)
        if best is None:
            return None
        _, path, node, named = best
        return Step(
            f"Count {', '.join(named[:4])} by name",
            path,
            node.lineno,
            node.end_lineno or node.lineno,
        )

    def printed_metric(self, report: Step, modules: list[str]) -> Step | None:
        """The function that computes the value the report statement prints, when no
        definition is named after the metric: `zoom_out_dice = dice_score(...)` before
        `print(f"... {zoom_out_dice:.4f}")` gives `def dice_score`."""
        tree = self.tracer.tree(report.path)
        if tree is None:
            return None
        text = "\n".join(self.search.lines(report.path)[report.start - 1 : report.end])
        printed = set(re.findall(r"[A-Za-z_]\w*", text))
        calls: list[tuple[int, str]] = []  # (line, function) of each assignment of a printed name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and node.lineno < report.start
                and isinstance(node.value, ast.Call)
                and any(isinstance(t, ast.Name) and t.id in printed for t in node.targets)
            ):
                func = node.value.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                calls.append((node.lineno, name))
        for _, name in sorted(calls, reverse=True):  # the nearest assignment first
            for path in dict.fromkeys([report.path, *modules]):
                item = next(
                    (
                        i
                        for i in self.tracer.outline(path)
                        if i.kind == "function" and i.name == name and i.end - i.start <= NARROW
                    ),
                    None,
                )
                if item is not None:
                    return Step(f"Compute {name} as measured", path, item.start, item.end)
        return None

    def _again_past_exit(
        self, path: str, begin: int, last: int, printed: list[str], said: frozenset[str]
    ) -> str:
        """Where the runs that go on past an exit a switch guards print the reported measure
        again, in the same loop (SegVol prints the zoom-out Dice, `if not args.use_zoom_in:
        continue`, then the zoom-in Dice): "; past `if not args.use_zoom_in` (:106), the
        runs print it again at :154"; "" when nothing is. The measure is the task's ones
        the report prints, else the common measures it names (`dice`)."""
        common = said & (_COMMON_METRICS - _VAGUE_METRICS)
        tree = self.tracer.tree(path) if path.endswith(".py") and (printed or common) else None
        if tree is None:
            return ""
        loops = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.For | ast.While) and n.lineno < begin <= (n.end_lineno or 0)
        ]
        if not loops:
            return ""
        loop = max(loops, key=lambda n: n.lineno)  # the innermost
        after = [b for b in loop.body if b.lineno > last]
        guard = next(
            (
                b
                for b in after
                if isinstance(b, ast.If)
                and len(b.body) == 1
                and isinstance(b.body[0], ast.Continue | ast.Break | ast.Return)
                and "args." in ast.unparse(b.test)
            ),
            None,
        )
        if guard is None:
            return ""
        start, end = (guard.end_lineno or guard.lineno) + 1, loop.end_lineno or guard.lineno
        for _, line, _, again in _report_lines(self.search, [(path, start, end)]):
            if all(_prints(m, again) for m in printed) if printed else common <= again:
                test = ast.unparse(guard.test)
                return f"; past `if {test}` (:{guard.lineno}), the runs print it again at :{line}"
        return ""

    def _levelled(
        self, paths: Sequence[str], measures: Sequence[str], at: int = 0
    ) -> dict[str, tuple[str, int, str, int]]:
        """Of `measures`, those at a level ("ACC95", "FPR@TPRn 0.98") that a report prints
        inside a loop over literal levels holding theirs (`for tpr_level in [0.98, 0.95]:`
        ... `'ACC@TPR%s: %.4f' % (tpr_level, ...)`), its label naming the measure's words:
        measure -> (path, the label's line, the loop's name, the loop's line). A label of
        another level's loop (`ACC@FPR%s` over 0.0001 ... 0.1) is not ACC95's. The loops of
        the function holding line `at` of the first path (the report's) are read first."""
        found: dict[str, tuple[str, int, str, int]] = {}
        wanted = [(m, lv, w) for m in measures if (lv := _level(m)) and (w := _label_words(m))]
        for path in dict.fromkeys(paths) if wanted else ():
            tree = self.tracer.tree(path) if path.endswith(".py") else None
            nodes = list(ast.walk(tree)) if tree is not None else []
            home = [
                (n.lineno, n.end_lineno or n.lineno)
                for n in nodes
                if path == paths[0]
                and isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                and n.lineno <= at <= (n.end_lineno or n.lineno)
            ]
            loops = [n for n in nodes if isinstance(n, ast.For) and isinstance(n.target, ast.Name)]
            loops.sort(key=lambda n: (not any(a <= n.lineno <= b for a, b in home), n.lineno))
            for loop in loops:
                values = [
                    float(e.value)
                    for e in (loop.iter.elts if isinstance(loop.iter, ast.List | ast.Tuple) else [])
                    if isinstance(e, ast.Constant)
                    and isinstance(e.value, int | float)
                    and not isinstance(e.value, bool)
                ]
                todo = [
                    (m, w)
                    for m, lv, w in wanted
                    if m not in found
                    and any(abs(v - lv) < 1e-9 or abs(v / 100 - lv) < 1e-9 for v in values)
                ]
                for line, labels in _level_labels(loop) if todo else []:
                    for m, words in todo:
                        if m not in found and words <= labels:
                            var = loop.target.id if isinstance(loop.target, ast.Name) else ""
                            found[m] = (path, line, var, loop.lineno)
        return found

    def step_prints(self, step: Step, metric: str) -> bool:
        """The lines a step cites name the measure, as a report line printing it would."""
        text = " ".join(self.search.lines(step.path)[step.start - 1 : step.end])
        return _prints(metric, frozenset(terms(text)))

    def report_step(
        self,
        metrics: list[str],
        arms: list[Arm],
        evaluate: Step | None,
        entry: str | None,
        also: Sequence[str] = (),
        first: Sequence[str] = (),
        avoid: Sequence[tuple[str, int, int]] = (),
    ) -> tuple[Step, str] | None:
        """The line that prints or writes the metric, where the arms are compared: in the
        evaluation, the entry point, or the other programs the experiment runs (the
        evaluation chained after a training, which prints the NMI the training does not).
        The programs `first` (the evaluation every training run is followed by) are read
        before the entry point: their test numbers are the paper's, not the training's
        validation logs. No line within `avoid` (a path, its first and last line: code no
        run reaches) is the report. With the step, the common measure the line prints when
        the task names none ("AUC"), else ""."""
        # the evaluation (and what it logs just past a cited range), its file, the entry point
        places = [(evaluate.path, evaluate.start, evaluate.end + 20)] if evaluate else []
        places += [(evaluate.path, evaluate.start, 10**9)] if evaluate else []  # after it
        places += [(evaluate.path, 1, 10**9)] if evaluate else []
        places += [(p, 1, 10**9) for p in first if p != entry]
        if entry:
            places.append((entry, 1, 10**9))
        places += [(p, 1, 10**9) for p in also if p != entry]
        runs_of = [
            a
            for a in arms
            if not numeric(a.value.split()[0])
            and not about_data(a.variable)
            and a.value.lower() not in NO_VALUE
        ]
        # the methods compared, not the tasks repeated over, unless the tasks are compared
        methods = [a for a in runs_of if "task" not in terms(a.variable)]
        values = list(dict.fromkeys(a.value for a in methods or runs_of))
        named_arms = values[:MAX_NAMED]  # past that, the rest counted: no arm seems left out
        if len(values) > MAX_NAMED:
            named_arms = [*values[: MAX_NAMED - 1], f"the {len(values) - MAX_NAMED + 1} others"]
        # "; " apart when a name holds a comma ("w/o 7 × 7 Br, 21 × 21 Br")
        compared = in_prose(named_arms, "; " if any("," in v for v in named_arms) else ", ")
        compared = compared or "the runs"
        named = ", ".join(metrics[:3]) or "the metric"
        # the task's own metrics first (all of a metric's words, or a metric word of it: "dice"
        # of "Dice score", never "inference" alone for "inference time"), then any common one
        own = [frozenset(stem(w) for w in content_words(m)) for m in metrics]
        signs = [w & _COMMON_METRICS or w for w in own if w]
        # each measure in the task's order (AUROC's line before one of FPR's thresholds), then
        # any common one
        tries = [[w] for w in list(dict.fromkeys(signs))[:MAX_REPORTED]]
        # then a named measure (`AUC {auc}`) before a value called by a vague word
        # (`f.write(f'{key}: ' + str(result))`, a parameter's record)
        tries.append([frozenset([w]) for w in sorted(_COMMON_METRICS - _VAGUE_METRICS)])
        # ... "result" last: what a program names its raw outputs (`mmcv.dump(results,
        # args.out)` before `mmcv.dump(metric_dict, json_file)`)
        tries.append([frozenset([w]) for w in sorted(_VAGUE_METRICS - _RAW)])
        tries.append([_RAW])
        found: list[tuple[str, int, int, frozenset[str]]] = []
        scan = _report_lines(self.search, places)

        def nth(k: int) -> tuple[str, int, int, frozenset[str]] | None:
            """The places' `k`th report statement, each read once for all the tries."""
            while k >= len(found):
                nxt = next(scan, None)
                if nxt is None:
                    return None
                found.append(nxt)
            return found[k]

        def reports() -> Iterator[tuple[int, tuple[str, int, int, frozenset[str]]]]:
            """The places' report statements in order, with their place in `found`."""
            k = 0
            while (report := nth(k)) is not None:
                yield k, report
                k += 1

        def block(k: int, missing: list[str]) -> tuple[int, list[str]]:
            """The last line of the report block the `k`th statement begins, and the task's
            measures its next statements print: `print('aupr: ...')` two lines after
            `print('auroc: ...')` is the same report, of at most _REPORT_BLOCK lines."""
            path, begin, last, _ = found[k]
            end, more = last, list[str]()
            while (nxt := nth(k := k + 1)) is not None and missing:
                if nxt[0] != path or nxt[1] - last > _REPORT_GAP or nxt[2] - begin >= _REPORT_BLOCK:
                    break
                last = nxt[2]
                if said := [m for m in missing if _prints(m, nxt[3])]:
                    end, more = last, more + said
                    missing = [m for m in missing if m not in said]
            return end, more

        # the stage the task's measures are taken in ("training accuracy"): a line of
        # another stage's ("Test Loss: ... | Acc") is its report only when no line of its
        # own stage is
        stage = {
            _STAGE_OF[stem(w.lower())]
            for m in metrics
            for w in re.findall(r"[A-Za-z]+", m)
            if stem(w.lower()) in _STAGE_OF
        }
        passes = [(t, strict) for t in tries for strict in ([True, False] if stage else [False])]
        ours = len(dict.fromkeys(signs)) if metrics else 0  # the tries of the task's measures

        def first_hit(wanted: list[frozenset[str]], strict: bool) -> int | None:
            """The first report statement printing one of `wanted`, of the task's stage when
            `strict`, outside `avoid`."""
            for k, (path, begin, _, said_terms) in reports() if wanted else ():
                if any(p == path and a <= begin <= b for p, a, b in avoid):
                    continue
                said_stage = {_STAGE_OF[w] for w in said_terms if w in _STAGE_OF}
                if strict and said_stage and not said_stage & stage:
                    continue
                if any(w <= said_terms for w in wanted):
                    return k
            return None

        @cache  # asked of one statement for the choice, the summary and the notes alike
        def printed_by(k: int) -> tuple[int, int]:
            """How many of the task's measures the `k`th statement and its block print, and
            the block's last line."""
            said_terms = found[k][3]
            known = [m for m in metrics[:MAX_REPORTED] if _measure(m)]
            printed = [m for m in known if _prints(m, said_terms)]
            missing = [m for m in known if m not in printed]
            end, more = block(k, missing) if printed and missing else (found[k][2], [])
            return len(printed) + len(more), end

        # of the first lines printing each of the task's measures, the one printing most of
        # them (EAT's `auroc`, `aupr` and `fpr95` lines over the `acc` line the task's first
        # measure, "ACC", finds first), a line of the task's stage first; else the first
        # line printing a common measure
        hits: list[tuple[int, bool, list[frozenset[str]]]] = []
        for wanted, strict in passes:
            k = first_hit(wanted, strict)
            if k is None:
                continue
            if tries.index(wanted) < ours:
                hits.append((k, strict, wanted))
                continue
            if not hits:
                hits.append((k, strict, wanted))
            break
        if not hits:
            return None
        staged = [h for h in hits if h[1]] or hits
        k, _, wanted = max(staged, key=lambda h: (printed_by(h[0])[0], -staged.index(h)))
        # a block reaching the first measure's own line is that report, begun earlier (a
        # loop printing accuracy at a few levels just before `print('auroc: ...')`)
        lead = staged[0][0]
        if found[k][0] == found[lead][0] and found[k][1] <= found[lead][1] <= printed_by(k)[1]:
            k, _, wanted = staged[0]
        # a line inside a loop over trials, summed up just past the loop by a line printing
        # what it printed, and as many of the measures (2-WL's "Trial: {i}: AUC ..." and
        # then "Final Test: AUC {np.mean(auc_list)}"): the summary is the report
        count = printed_by(k)[0]
        if (loop := self._loop_around(found[k][0], found[k][1])) is not None:
            for j, (there, after, _, _) in reports():
                if there != found[k][0] or after <= loop[1]:
                    continue
                if after - loop[1] > _SUMMARY_GAP:
                    break
                # the summary is outside every loop the first line is not (not a listing of
                # categories in a loop of its own)
                around = self._loop_around(there, after)
                if around is not None and not around[0] <= loop[0] <= loop[1] <= around[1]:
                    continue
                if (
                    not any(p == there and a <= after <= b for p, a, b in avoid)
                    and any(w <= found[j][3] for w in wanted)  # what the first line printed
                    and printed_by(j)[0] >= count
                ):
                    k = j
                    break
        path, begin, last, said_terms = found[k]
        shown = ""
        if not metrics and (hit := next((w for w in wanted if w <= said_terms), None)):
            # the task names no measure: the common one the line prints ("AUC")
            word = min(hit & _COMMON_METRICS - _VAGUE_METRICS, default="")
            shown = word.upper() if len(word) <= 4 else word
        # of the task's measures, those the line prints, and says it of the
        # rest; a measure named by no measure word ("Math Reasoning ASDiv", a
        # data set's score) is neither
        known = [m for m in metrics[:MAX_REPORTED] if _measure(m)]
        printed = [m for m in known if _prints(m, said_terms)]
        missing = [m for m in known if m not in printed]
        if printed and missing:  # the next lines print the others
            last, more = block(k, missing)
            printed += more
            missing = [m for m in missing if m not in more]
        # a measure at a level ("ACC95") printed in a loop over the levels
        levelled = self._levelled([path, *(p for p, _, _ in places if p != path)], missing, begin)
        # a measure another report statement prints, found first for it ("ACC" at :212),
        # not one whose block runs into this report
        apart = {
            m: found[h][:2]
            for m in missing
            if m not in levelled
            for h, _, _ in hits
            if h != k
            and _prints(m, found[h][3])
            and not (found[h][0] == path and found[h][1] <= begin <= printed_by(h)[1])
        }
        # past the first three, a measure is named only where it is printed
        missing = [m for m in missing if m not in levelled and m not in apart and m in metrics[:3]]
        # a line printing none of the measures it can be checked for prints none of those it
        # cannot either ("GFLOPs" beside "Params. (M)" and "mIoU (SS)"): all are said absent
        if missing and not printed and not levelled and not apart:
            missing = list(metrics[:3])
        kept = [m for m in metrics[:3] if m not in missing]
        kept += [m for m in metrics[3:MAX_REPORTED] if m in printed or m in levelled]
        said = shown or ", ".join(kept) or named
        # the line reports each run's numbers; the comparison is across runs
        action = f"Report {said} of each run, then compare {compared} across them"
        if compared == "the runs":
            action = f"Report {said} of each run, then compare the runs"
        # what it prints, as the line writes it ("Dice", "Acc"), where it prints
        # none of the task's measures it can be checked for
        text = " ".join(self.search.lines(path)[begin - 1 : last])
        instead = "" if printed or not metrics else _measure_names(text)
        absent = in_prose(missing).replace(" and ", " or ")
        # a line writing a file (`mmcv.dump(metric_dict, json_file)`) may hold a measure
        # under a key it does not spell: it names none
        dumps = bool(_DUMP.search(text))
        verb, by_name = ("writes", " by name") if dumps else ("prints", "")
        if missing and instead and not kept:
            action += f"; the line {verb} {instead}, not {absent}"
        elif missing:
            action += f"; the line {verb} no {absent}{by_name}"
        elif instead:
            action += f"; the line {verb} {instead}"
        if again := self._again_past_exit(path, begin, last, printed, said_terms):
            action += again
        places_of: dict[tuple[str, int, str, int], list[str]] = {}
        for m, where in levelled.items():
            places_of.setdefault(where, []).append(m)
        for (there, line, var, top), ms in places_of.items():
            at = f":{line}" if there == path else f"{there}:{line}"
            action += f"; {in_prose(ms)} at {at}, in the loop over {var} (:{top})"
        others: dict[tuple[str, int], list[str]] = {}
        for m, found_at in apart.items():
            others.setdefault(found_at, []).append(m)
        for (there, line), ms in others.items():
            action += f"; {in_prose(ms)} at {f':{line}' if there == path else f'{there}:{line}'}"
        return Step(action, path, begin, last), shown


_SUMMARY_GAP = 12  # lines past a loop over trials its summary is printed within, at most

# a measure's level: ACC95's 95, "FPR@TPRn 0.98"'s 0.98 (never a name's digit: F1, Top-1)
_LEVEL_OF = re.compile(r"(?<![\d.])(0?\.\d+|\d{2})(?![\w.])")


def _level(measure: str) -> float:
    """The level a measure is taken at, as a fraction (ACC95: 0.95); 0.0 when none."""
    said = _LEVEL_OF.findall(measure)
    if len(said) != 1:
        return 0.0
    return float(said[0]) / (100 if "." not in said[0] else 1)


def _label_words(measure: str) -> frozenset[str]:
    """The words a report's label names the measure by: ACC95's acc, "FPR@TPRn (↓) 0.98"'s
    fpr and tpr (the `n` a table writes for the level dropped)."""
    words = re.findall(r"[A-Za-z]+", measure)
    return frozenset(re.sub(r"(?<=[A-Z])n$", "", w).lower() for w in words)


def _level_labels(loop: ast.For) -> list[tuple[int, frozenset[str]]]:
    """The labels a loop over levels reports with its level in them, with their lines: a
    report call's string with the loop's name beside it (`print('ACC@TPR%s' % level)`),
    or a name assigned such a string and then reported (`acc_str = 'ACC@TPR%s: ...' %
    (level, ...)` ... `print(acc_str)`); the labels' words, lowercased."""
    if not isinstance(loop.target, ast.Name):
        return []
    var = loop.target.id

    def label(node: ast.AST) -> frozenset[str]:
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        texts = [
            n.value
            for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
        if var not in names:
            return frozenset()
        return frozenset(w.lower() for t in texts for w in re.findall(r"[A-Za-z]+", t))

    calls = [
        n
        for n in ast.walk(loop)
        if isinstance(n, ast.Call) and _REPORT.search(ast.unparse(n.func).split(".")[-1])
    ]
    reported = {a.id for c in calls for a in c.args if isinstance(a, ast.Name)}
    out = [(c.lineno, w) for c in calls if (w := label(c))]
    out += [
        (n.lineno, w)
        for n in ast.walk(loop)
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and n.targets[0].id in reported
        and (w := label(n.value))
    ]
    return sorted(out, key=lambda x: x[0])


# a measure's letter as a table heads it: P, R and F1 for precision, recall and F-score
_SHORT = {"p": stem("precision"), "r": stem("recall"), "acc": stem("accuracy")}
# a report line's spellings of a measure: `Acc` for accuracy, `F-score` for F1
_WRITTEN = [
    (frozenset({stem("acc")}), stem("accuracy")),
    (frozenset({"f", stem("score")}), "f1"),
    (frozenset({"fscore"}), "f1"),
]


# what names a measure, beyond the common ones the report lines are looked for by
_MEASURE_WORDS = _COMMON_METRICS | {
    stem(w)
    for w in [
        "auroc", "aupr", "fpr", "tpr", "smape", "mase", "owa", "ppl", "perplexity", "nmi", "ari",
        "cider", "meteor", "wer", "cer", "hit", "mrr", "ndcg", "spearman", "kendall", "fid",
        "bpd", "bits", "time", "latency", "throughput", "memory", "params", "parameters",
        "flops", "success", "rate",
    ]
}  # fmt: skip


def _joined(metric: str) -> str:
    """A measure's rank written apart joined as code writes it: "Top-1" is top1."""
    return re.sub(r"(?i)\btop[-\s]?(\d)", r"top\1", metric)


def _measure(metric: str) -> bool:
    """The measure is named by a measure word a report line can be checked for (AUROC,
    FPR95, Hit@1, inference time), not only by its data set ("Math Reasoning ASDiv")."""
    tokens = re.findall(r"[a-z][a-z0-9]*", _joined(metric).lower())  # FPR95 by its fpr, F1 whole
    words = {stem(t) for t in tokens} | {stem(t.rstrip("0123456789")) for t in tokens}
    # a table's P or R heads precision or recall; "MSVD R" is another work's R (ROUGE)
    return bool(words & (_MEASURE_WORDS - _VAGUE_METRICS)) or metric.strip() in ("P", "R")


# what qualifies a time without making it another measure: "wall(-clock) time", "elapsed"
_TIME_QUALIFIERS = frozenset(stem(w) for w in ("wall", "clock", "elapsed", "total", "running"))


def _prints(metric: str, said: frozenset[str]) -> bool:
    """A report line's words name the measure: one of its measure words ("top1" of "top1
    accuracy"; `Acc` for accuracy), else all its words ("classification performance")."""
    words = frozenset(
        _SHORT.get(w.lower(), stem(w.lower())) for w in re.findall(r"[A-Za-z0-9]+", _joined(metric))
    )
    said = said | {t[:-1] for t in said if len(t) > 3 and t.endswith("s")}  # `hits`: Hit@1
    said = said | {full for short, full in _WRITTEN if short <= said}
    common = words & (_COMMON_METRICS - _VAGUE_METRICS)  # "Dice score" by its "dice"
    named = {w for w in words if not w.isdigit()}  # Hit@1 is in a line printing its `hits`
    if stem("time") in named:  # "wall time", "wall-clock time" is the line's `Time`
        named -= _TIME_QUALIFIERS
    return bool(common & said) if common else bool(named) and named <= said


def _measure_names(text: str) -> str:
    """The common measures a report line names, as it writes them ("Dice", "Acc@1")."""
    wanted = _COMMON_METRICS - _VAGUE_METRICS
    words = re.findall(r"[A-Za-z][A-Za-z0-9@]*", re.sub(r"\{[^{}]*\}", " ", text))
    found: dict[str, str] = {}  # each once, whatever its case ("ACC" and "acc")
    for w in words:
        if stem(w.split("@")[0].lower()) in wanted:
            found.setdefault(w.lower(), w)
    return in_prose(list(found.values())[:3])


MAX_REPORTED = 4  # the measures whose report line is looked for one by one
_REPORT_GAP = 4  # lines between two statements of one report block, at most
_REPORT_BLOCK = 20  # a report block's lines, fewer than
MAX_NAMED = 6  # the compared arms the report step names


def _loops_in(tree: ast.AST | None) -> list[tuple[int, int]]:
    """The first and last lines of every `for` and `while` loop of a module."""
    return [
        (n.lineno, n.end_lineno or n.lineno)
        for n in (ast.walk(tree) if tree is not None else [])
        if isinstance(n, ast.For | ast.While | ast.AsyncFor)
    ]


def _report_lines(
    search: RepoSearch, places: list[tuple[str, int, int]]
) -> Iterator[tuple[str, int, int, frozenset[str]]]:
    """The statements of `places` (path, first and last line) that print, log or write a
    value, each once, in order: their first and last lines and their words."""
    seen: set[tuple[str, int]] = set()
    for path, start, end in places:
        lines = search.lines(path)
        for i in range(max(start, 1), min(end, len(lines)) + 1):
            if (path, i) in seen:
                continue
            seen.add((path, i))
            line = lines[i - 1]
            if line.lstrip().startswith("#") or _OPTION_LINE.search(line):
                continue  # a comment, or `help='log ... metrics'`, reports nothing
            if not _REPORT.search(line):
                continue
            last = statement_end(lines, i)
            said = " ".join(lines[i - 1 : last])
            # `print(line)` of a string made just before (`line = 'auroc: %.4f' % x`)
            first = _made_before(lines, i, said)
            if first < i:
                said = " ".join(lines[first - 1 : last])
            # it prints a value, not only a message ("wandb not found, metrics not logged"),
            # nor only where it wrote ("results logged to {self.config.loggers}")
            if _settings_only(said) or not _PRINTS_VALUE.search(said):
                continue
            # a value alone is a report only when a measure names it: `wandb.log(self.
            # metrics_dict)` may hold any measure, and none of the task's by name
            alone = _ALONE.search(said)
            if alone and not _FORMATTED.search(said) and not _named_measure(alone.group(1)):
                continue
            # a warning of a failure ("failed with error {result.error}") measures nothing,
            # nor a message announcing a plot ("plot curve of {log}, metric is {metric}")
            if _FAILURE.search(said) or _PLOTTING.search(said):
                continue
            yield path, first, last, frozenset(terms(said))


def _made_before(lines: list[str], at: int, said: str) -> int:
    """The line, at most three before `at`, that assigns a string to the one name the
    statement at `at` prints or writes (`line = 'auroc: %.4f' % auroc` before
    `print(line)`), else `at`."""
    printed = re.search(r"\((\s*[A-Za-z_]\w*)\s*(?:\+\s*['\"][^'\"]*['\"]\s*)?\)\s*$", said)
    if printed is None:
        return at
    name = printed.group(1).strip()
    for k in range(at - 1, max(at - 4, 0), -1):
        if re.match(rf"\s*{re.escape(name)}\s*=\s*[rfbu]?['\"]", lines[k - 1], re.I):
            return k
    return at


# a measure's other spellings in code: `acc`, `top1` for accuracy; `f_score` for F1
_SPELLINGS = re.compile(r"\bf[-_ ]?(?:score|measure)\b|\bperplexity\b|\b(?:acc|top)[-_@]?1\b")
_SPELT = {"perplexity": "ppl"}
_SAME_MEASURE = {w: stem("accuracy") for w in ("acc", "acc1", "top1", "prec1")}
# words that say nothing of which measure ("average accuracy", "overall score")
_VAGUE = frozenset(
    terms(
        "score scores metric metrics result results value rate average avg mean overall "
        "performance improvement improvements quality behavior behaviour output outputs "
        "outcome efficiency evaluation effectiveness correctness ability capability"
    )
)
MAX_READ = 80  # modules read for what the runs report; past it, nothing is said
# a call that prints, logs or writes (`print(`, `logger.info(`, `writer.add_scalar(`,
# `wandb.log(`), never a logarithm (`math.log(`, `np.log(`, `torch.log(`)
_SAYS = re.compile(
    r"\b(?:print|write|writelines|info|warning|add_scalars?|log_\w+|dump)\s*\("
    r"|(?<!math\.)(?<!np\.)(?<!numpy\.)(?<!torch\.)\blog\s*\("
)


def _spelt(text: str) -> str:
    """A text with a measure's other spellings as the measure (`F-score` as f1)."""

    def one(m: re.Match[str]) -> str:
        said = m.group(0).lower()
        if said.startswith("f"):
            return " f1 "
        return f" {_SPELT.get(said, 'accuracy')} "

    return _SPELLINGS.sub(one, text.lower())


def measure_words(metric: str) -> tuple[frozenset[str], bool]:
    """The words that name a measure in code, and whether any one of them does (a common
    metric's word: "acc" of "Val Acc") or all must ("inference time")."""
    words = {
        _SAME_MEASURE.get(w, w)
        for w in terms(_spelt(metric))
        if not w.isdigit() and len(w) >= 2 and w not in _VAGUE
    }
    common = {w for w in words if w in _COMMON_METRICS}
    if common:
        return frozenset(common), True
    long = {w for w in words if len(w) >= 3} or words
    # "FPR95" is named where `fpr` is: the shorter word it begins with
    return frozenset(w for w in long if not any(w != o and w.startswith(o) for o in long)), False


# the stage a measure is taken in ("training time", "test accuracy"): no measure by itself
_STAGE_WORDS = frozenset(
    stem(w) for w in ("train", "training", "test", "testing", "val", "validation", "eval")
)


# the stage a measure or a report line names, as one word: "training" and "Train" are one
_STAGE_OF = {
    stem(w): stage
    for stage, words in (
        ("train", ("train", "training")),
        ("test", ("test", "testing")),
        ("val", ("val", "validation", "valid")),
    )
    for w in words
}


class ReportedWords:
    """What the programs of a repository print, log or write, read once per module: the
    words of each string they hold (a format, a dict key, a column name) and of each
    statement that reports."""

    def __init__(self, search: RepoSearch, tracer: StepTracer) -> None:
        self.search = search
        self.tracer = tracer
        self._said: dict[str, list[frozenset[str]]] = {}
        self._code: dict[str, frozenset[str]] = {}
        self._stems: dict[str, set[str]] | None = None  # module name -> the files of it

    def said(self, path: str) -> list[frozenset[str]]:
        if path not in self._said:
            found: list[frozenset[str]] = []
            tree = self.tracer.tree(path)
            docs = {
                id(n.body[0].value)
                for n in (ast.walk(tree) if tree is not None else [])
                if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                and n.body
                and isinstance(n.body[0], ast.Expr)
                and isinstance(n.body[0].value, ast.Constant)
            }
            for n in ast.walk(tree) if tree is not None else []:
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
                    found.append(self._words(n.value))
            for line in self.search.lines(path):
                if _SAYS.search(line) and not line.lstrip().startswith("#"):
                    found.append(self._words(line))
            self._said[path] = [w for w in found if w]
        return self._said[path]

    def _hidden(self, modules: Sequence[str]) -> bool:
        """A module imports one of the repository's by a name its import paths do not reach
        (`from cocoeval import COCOScorer`, with caption-eval/ put on `sys.path` at run time):
        what that module computes was not read."""
        index = self.search.index
        if self._stems is None:
            self._stems = {}
            for f in index.files:
                if f.path.endswith(".py"):
                    name = posixpath.basename(f.path)[:-3]
                    if name == "__init__":
                        name = posixpath.basename(posixpath.dirname(f.path))
                    self._stems.setdefault(name, set()).add(f.path)
        for module in modules:
            tree = self.tracer.tree(module)
            reached = set(index.imports.get(module, []))
            for n in ast.walk(tree) if tree is not None else []:
                if isinstance(n, ast.Import):
                    tops = [a.name.split(".")[0] for a in n.names]
                elif isinstance(n, ast.ImportFrom) and not n.level and n.module:
                    tops = [n.module.split(".")[0]]
                else:
                    continue
                for top in tops:
                    files = self._stems.get(top, set())
                    folder = {p for p in files if p.endswith("__init__.py")}
                    if files and not any(
                        r in files or any(r.startswith(posixpath.dirname(p) + "/") for p in folder)
                        for r in reached
                    ):
                        return True
        return False

    def code_words(self, path: str) -> frozenset[str]:
        """The words of every name and string of a module's code (not its comments)."""
        if path not in self._code:
            tree = self.tracer.tree(path)
            found: set[str] = set()
            for n in ast.walk(tree) if tree is not None else []:
                if isinstance(n, ast.Name):
                    text = n.id
                elif isinstance(n, ast.Attribute):
                    text = n.attr
                elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    text = n.name
                elif isinstance(n, ast.arg):
                    text = n.arg
                elif isinstance(n, ast.keyword):
                    text = n.arg or ""
                elif isinstance(n, ast.Constant) and isinstance(n.value, str):
                    text = n.value[:400]
                else:
                    continue
                found |= self._words(text)
            self._code[path] = frozenset(found)
        return self._code[path]

    @staticmethod
    def _words(text: str) -> frozenset[str]:
        return frozenset(_SAME_MEASURE.get(w, w) for w in terms(_spelt(text)))

    def unreported(
        self, metrics: Sequence[str], modules: Sequence[str], paths: frozenset[str]
    ) -> list[str]:
        """The measures no string or report statement of the modules names (the similarity
        of positive pairs, where the programs print NMI and ACC): their code is to write.
        A measure named by its own words in the text's own case ("similarities", "inference
        time", "oot"); not a description ("convergence behavior", "aggregated score"), an
        output ("detected keypoints"), a plot, a header in capitals ("GPQA Diamond", "NAT":
        as often a data set or a category of one), or a benchmark a folder or file of the
        repository is named after (`tasks/theorem_qa/`). A common measure ("Val Acc",
        "BLEU"), which code may compute under another name, only when no name or string of
        the modules holds any of its names and no module imports one the paths do not reach.
        None when the modules are not all Python or too many to have read them all."""
        if not modules or len(modules) >= MAX_READ or not all(m.endswith(".py") for m in modules):
            return []
        said = [w for m in modules for w in self.said(m)]
        named: set[str] | None = None  # every name and string of the modules, read once
        hidden = False  # a module imports one of the repository's the paths do not reach
        out: list[str] = []
        for metric in metrics:
            words, any_one = measure_words(metric)
            if any_one and not words & _SHOWN and len(metric.split()) <= 3:
                # a common measure ("Val Acc") the code names nowhere at all, under any of
                # its names: no identifier, no string (`correct`, `acc1`, `accuracy_score`),
                # when every module the programs import from the repository was read
                if named is None:
                    hidden = self._hidden(modules)
                    named = set() if hidden else set().union(*map(self.code_words, modules))
                if not hidden and not any(_names_measure(w, named) for w in words):
                    out.append(metric)
                continue
            if not words or words & _SHOWN or len(metric.split()) > 3:
                continue
            if set(terms(metric.lower())) & _VAGUE:
                continue
            written = re.findall(r"[A-Za-z][\w-]*", metric)
            if written and all(w[0].isupper() for w in written):
                continue
            if len(written) > 1 and written[0].lower().endswith("ed"):
                continue  # "detected keypoints", "learned components": an output, no quantity
            if any(fold(w) in paths for w in re.findall(r"[\w-]+", metric) if len(w) >= 4):
                continue  # a benchmark's folder or a data file: a column of data, no measure
            if not any(words <= s for s in said):
                out.append(metric)
        return out


def statement_end(lines: list[str], first: int, most: int = 8) -> int:
    """The last line of the statement starting at `first` (its brackets closed)."""
    depth = 0
    for k in range(first, min(first + most, len(lines) + 1)):
        text = re.sub(r"(['\"]).*?\1", "", lines[k - 1])  # brackets inside strings do not count
        depth += text.count("(") + text.count("[") - text.count(")") - text.count("]")
        if depth <= 0:
            return k
    return first


def _assigned_name(node: ast.AST) -> str:
    """The name a plain assignment binds (`sim = ...`, `self.sim = ...`), else ""."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, ast.AnnAssign):
        target = node.target
    else:
        return ""
    if isinstance(target, ast.Name):
        return target.id
    return target.attr if isinstance(target, ast.Attribute) else ""


def _abbreviates(name: str, words: list[str]) -> bool:
    """A name's leading parts are the measure's words, each whole or cut to three letters
    or more (`sim_i_j` for "similarities", `infer_time` for "inference time"); a one-word
    measure's name may go on with letters or digits (`_i_j`), not with another word."""
    parts = [p.lower() for p in re.split(r"_+", name) if p]
    if len(parts) < len(words):
        return False
    for part, word in zip(parts, words, strict=False):
        root = stem(word)
        if len(part) < 3 or not (root.startswith(part) or part.startswith(root)):
            return False
    return all(len(p) <= 1 or p.isdigit() for p in parts[len(words) :])


# what else names accuracy in code: the count it is made of
_ACCURACY_NAMES = frozenset({stem("accuracy"), stem("correct")})


def _names_measure(word: str, named: set[str]) -> bool:
    """A common measure's word is in the code: itself, accuracy by its count (`correct`),
    a long word as the start of a name (`pearsonr` for Pearson)."""
    if word in named or (word == stem("accuracy") and _ACCURACY_NAMES & named):
        return True
    return len(word) >= 4 and any(n.startswith(word) for n in named)
