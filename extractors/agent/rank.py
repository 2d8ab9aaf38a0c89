"""Rank a repository's files as the likely implementation of one task.

No single signal finds experiment code: full text (BM25) finds modules that talk about the
method, but papers' experiments live in launch scripts named after datasets and variants
(`scripts/PDF/720/etth2.sh`), in entry points those scripts call, and in README commands
whose surrounding prose names the experiment. Each signal is scaled to [0, 1] over the
candidates, mixed, multiplied by a prior on the file's kind (runnable things are what a task
asks to rebuild) and finally propagated from launch scripts to the entry points they run.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from expcurate.records import DocCommand, RepoIndex
from extractors.repo import RepoSearch, path_tokens, stem, terms, tokens

from .query import GENERIC, STOPWORDS, TaskQuery, asks_to_build, norm_number

CODE_LANGS = {"python", "shell", "notebook"}
CONFIG_LANGS = {"yaml", "json", "toml"}
# Prior on what a task's source is: things that run an experiment, then its settings.
PRIOR = {
    "script": 1.0,
    "entry": 1.0,
    "notebook": 0.9,
    "test": 0.8,
    "config": 0.6,
    "module": 0.45,
    "helper": 0.3,
}
BUILD_MODULE = 0.8  # a module's prior when the task asks how to build what it implements
WEIGHTS = {
    "text": 0.40,
    "path": 0.35,
    "doc": 0.10,
    "flags": 0.10,
    "config": 0.05,
    "dir": 0.10,
    "label": 0.25,
}
# A program that prepares the experiment's inputs (downloads, converts or preprocesses data,
# converts weights) shares the task's words, its data sets' names above all, but does not run
# the experiment: it ranks below what does, unless the task asks about preparing.
PREPARES = 0.6
_PREPARING = re.compile(
    r"(?:^|[/_-])(?:prepare|prep|preprocess(?:ing)?|download|convert(?:er)?|conversion|make_dataset|"
    r"build_dataset|build_data|gen(?:erate)?_data|split_data)(?:[/_.-]|s?/|$)",
    re.IGNORECASE,
)


def preparing(path: str) -> bool:
    """The program prepares the experiment's inputs (its path says prepare, download, ...)."""
    return bool(_PREPARING.search(path))


_ASKS_PREPARING = frozenset(
    terms("prepare preparation preprocess preprocessing download convert conversion construct")
)
# A repository with sub-projects per kind of experiment (detection/, pose_estimation/,
# video_prediction/ beside the classification code at the root): when the question names
# one, what runs outside the named ones is another experiment.
OUTSIDE_NAMED = 0.5
# folder names any repository may have, which name no kind of experiment
_COMMON_FOLDERS = frozenset(
    terms(
        "data dataset datasets docs doc examples example tools tool utils util tests test "
        "models model configs config notebooks notebook experiments experiment benchmarks "
        "benchmark assets demo demos apps app common core external misc results outputs logs "
        "checkpoints pretrained train training eval evaluation"
    )
)
NAMED_FIT = 0.8
# A program that measures a model's cost (FLOPs, parameters, speed) shares the task's model
# and data names but runs no experiment: it ranks below what does, unless the task measures
# cost.
_COUNTS_COST = re.compile(
    r"(?:^|[/_-])(?:get_flops|flops|count_params|params_count|param_count|benchmark_speed|"
    r"speed_test|test_speed|fps|latency)(?:[/_.-]|$)",
    re.IGNORECASE,
)
_ASKS_COST = frozenset(
    terms(
        "flops flop gflops macs params parameters parameter latency throughput speed fps "
        "efficiency efficient complexity cost"
    )
)


def counts_cost(path: str) -> bool:
    """The program measures a model's cost (`get_flops.py`), not its results."""
    return bool(_COUNTS_COST.search(path))


def counting_docs(commands: Iterable[DocCommand]) -> list[tuple[DocCommand, list[str]]]:
    """The documented commands that run a cost counter, the top-level README's first, then
    in document order, each with the counters it runs."""
    ordered = sorted(commands, key=lambda c: (c.doc != "README.md", c.line))
    return [(c, found) for c in ordered if (found := [r for r in c.runs if counts_cost(r)])]


def asks_cost(q: TaskQuery) -> bool:
    """The question asks about cost: parameters, FLOPs, speed."""
    return bool(_ASKS_COST & q.asked)


def names_cost(text: str) -> bool:
    """The text names a cost ("Params. (M)", "GFLOPs")."""
    return bool(_ASKS_COST & set(terms(text)))


# A program its README offers as a check of the user's set-up ("run `python -m agent_test` to
# check if your agent is configured correctly") tries the installation; it runs no
# experiment and ranks as a preparation does, unless the task asks about checking or asks to
# build something (what one builds is tried with it).
_CHECKS_SETUP = re.compile(
    r"\bto\s+(?:check|verify|test|make sure|ensure|confirm)\b[^.:;]{0,60}?"
    r"\b(?:configured|installed|installation|set up|setup|environment|works|working)\b",
    re.IGNORECASE,
)
_ASKS_CHECKING = frozenset(terms("check checking verify verification sanity installation"))


def checks_setup(prose: str) -> bool:
    """The prose offers a command as a check of the user's set-up, not as an experiment."""
    return bool(_CHECKS_SETUP.search(prose))


SCRIPT_TO_CALLEE = 0.6
AGGREGATE = 1.05
CONFIG_OF = 0.7
RUNS = frozenset({"entry", "script", "notebook"})  # what a user runs
_HELPER_NAMES = {"__init__.py", "setup.py", "conftest.py", "conf.py", "version.py"}
_PATH_NOISE = {"scripts", "script", "src", "lib", "py", "sh", "ipynb", "yaml", "yml", "json"}
_TEST_NAME = re.compile(r"(^|/)(test_[^/]*|[^/]*_test|Test[^/]*)\.py$")


@dataclass
class Candidate:
    path: str
    kind: str
    score: float = 0.0
    signals: dict[str, float] = field(default_factory=dict)

    def why(self) -> str:
        parts = [f"{k}={v:.2f}" for k, v in sorted(self.signals.items()) if v > 0.005]
        return f"{self.kind}: " + ", ".join(parts)


def file_kinds(index: RepoIndex) -> dict[str, str]:
    """Kind of every file that can be a task's source; other files are not candidates."""
    entries = {e.path: e for e in index.entry_points}
    doc_targets = {r for c in index.commands for r in c.runs}
    configs = {c.path for c in index.configs}
    kinds: dict[str, str] = {}
    for f in index.files:
        if f.skipped or (f.language not in CODE_LANGS and f.language not in CONFIG_LANGS):
            continue
        name = f.path.rsplit("/", 1)[-1]
        entry = entries.get(f.path)
        if f.language == "shell":
            kinds[f.path] = "script" if entry and entry.calls else "helper"
        elif f.language == "notebook":
            kinds[f.path] = "notebook"
        elif f.language in CONFIG_LANGS:
            if f.path in configs:
                kinds[f.path] = "config"
        elif name in _HELPER_NAMES or f.path.startswith("docs/"):
            kinds[f.path] = "helper"
        elif (entry and entry.runnable and entry.kind not in ("shell", "script")) or (
            f.path in doc_targets
        ):
            kinds[f.path] = "entry"
        elif f.path in configs:
            kinds[f.path] = "config"
        elif _TEST_NAME.search(f.path) or "/tests/" in f"/{f.path}":
            kinds[f.path] = "test"
        elif entry and entry.runnable:
            kinds[f.path] = "entry"
        else:
            kinds[f.path] = "module"
    return kinds


class Ranker:
    """Holds what does not depend on the task (kinds, path statistics) across many tasks."""

    def __init__(self, index: RepoIndex, search: RepoSearch) -> None:
        self.index = index
        self.search = search
        self.kinds = file_kinds(index)
        self.ptokens = {p: _path_terms(p) for p in self.kinds}
        df: Counter[str] = Counter()
        for toks in self.ptokens.values():
            df.update(toks)
        n = max(len(self.ptokens), 1)
        self.path_idf = {t: math.log(1 + n / c) for t, c in df.items()}
        self.entries = {e.path: e for e in index.entry_points}
        self.projects = _projects(self.kinds)
        self._configs: list[tuple[str, list[_ConfigEntry]]] | None = None
        self.setup_checks = self._setup_checks()
        # another work's code the authors copied in (`Formers/FEDformer/` with its own
        # LICENSE) runs that work, a baseline at most: below the repository's own
        vendored = _vendored(index)
        self.vendored = frozenset(
            p for p in self.kinds if any(p.startswith(v + "/") for v in vendored)
        )

    def rank(self, q: TaskQuery, text_scores: dict[str, float]) -> list[Candidate]:
        cands = {p: Candidate(p, k) for p, k in self.kinds.items()}
        self._put(cands, "text", text_scores)
        self._put(cands, "path", self._path_scores(q))
        self._put(cands, "doc", self._doc_scores(q))
        self._put(cands, "flags", self._flag_scores(q))
        self._put(cands, "config", self._config_scores(q))
        self._put(cands, "dir", self._dir_scores(text_scores))
        self._put(cands, "label", self._label_scores(q))
        self._put(cands, "result", self._result_scores(q))
        build = asks_to_build(q.text)
        preparing = bool(_ASKS_PREPARING & {stem(t) for t in q.terms})
        costing = asks_cost(q)
        for c in cands.values():
            base = sum(WEIGHTS[s] * c.signals.get(s, 0.0) for s in WEIGHTS)
            c.score = base * (BUILD_MODULE if build and c.kind == "module" else PRIOR[c.kind])
            if not preparing and c.kind in ("entry", "script") and _PREPARING.search(c.path):
                c.score *= PREPARES
            if not costing and c.kind in ("entry", "script") and _COUNTS_COST.search(c.path):
                c.score *= PREPARES
            if c.path in self.setup_checks and not (build or _ASKS_CHECKING & q.asked):
                c.score *= PREPARES  # what one builds is tried with it: kept for a build task
        named = self._named_projects(q, cands)
        for c in cands.values():
            if named and c.kind in RUNS and c.path.split("/", 1)[0] not in named:
                c.score *= OUTSIDE_NAMED
        for c in cands.values():
            if c.path in self.vendored:
                c.score *= OUTSIDE_NAMED
        self._propagate(cands)
        return sorted(cands.values(), key=lambda c: (-c.score, c.path))

    def _propagate(self, cands: dict[str, Candidate]) -> None:
        """Lift what an experiment's runner runs, and what runs an experiment's variants.

        A launch script that matches the task lifts the entry point it calls; a script that
        only calls other scripts (a sweep over variants) is as good as its best variants; a
        config named by a matching entry point, script or command is that experiment's config.
        """

        def lift(path: str, value: float, why: str) -> None:
            target = cands.get(path)
            if target is not None and value > target.score:
                target.signals[why] = value
                target.score = value

        for c in sorted(cands.values(), key=lambda c: -c.score):
            entry = self.entries.get(c.path)
            if c.kind == "script" and entry is not None:
                for callee in entry.calls:
                    if cands.get(callee) is not None and cands[callee].kind != "script":
                        lift(callee, SCRIPT_TO_CALLEE * c.score, "via_script")
        for c in list(cands.values()):
            entry = self.entries.get(c.path)
            if c.kind == "script" and entry is not None:
                subs = sorted(
                    (
                        cands[x].score
                        for x in entry.calls
                        if x in cands and cands[x].kind == "script"
                    ),
                    reverse=True,
                )
                if len(subs) >= 2:
                    lift(c.path, AGGREGATE * sum(subs[:3]) / len(subs[:3]), "runs_variants")
        for c in sorted(cands.values(), key=lambda c: -c.score):
            refs = [r for r in self.index.file_refs.get(c.path, []) if r in cands]
            configs = [r for r in refs if cands[r].kind == "config"]
            for ref in configs:
                # one config is the experiment's; among several, the one named like the task
                named = max(1 / math.sqrt(len(configs)), cands[ref].signals.get("path", 0.0))
                lift(ref, CONFIG_OF * named * c.score, "config_of")

    @staticmethod
    def _put(cands: dict[str, Candidate], name: str, scores: dict[str, float]) -> None:
        top = max((s for p, s in scores.items() if p in cands), default=0.0)
        if top <= 0:
            return
        for p, s in scores.items():
            if p in cands and s > 0:
                cands[p].signals[name] = s / top

    # ------------------------------------------------------------ signals

    def _path_scores(self, q: TaskQuery) -> dict[str, float]:
        """Query names, words and numbers found in a file's path, rarer path words counting more."""
        weights: dict[str, float] = {}
        for w in [*q.words, *q.parts]:
            weights[stem(w)] = max(weights.get(stem(w), 0.0), 0.6)
        for n in q.names:
            weights[stem(n)] = 1.0
        for num in q.numbers:
            weights[num] = max(weights.get(num, 0.0), 0.8)
        out: dict[str, float] = {}
        for path, toks in self.ptokens.items():
            hit = math.fsum(weights[t] * self.path_idf[t] for t in toks if t in weights)
            if hit:
                total = math.fsum(self.path_idf[t] for t in toks)
                out[path] = hit / math.sqrt(total)
        return out

    def _setup_checks(self) -> frozenset[str]:
        """Programs a README offers as a check of the set-up, in a sentence naming them.

        The sentence is read near a command running the program ("You can try using `python -m
        src.client.agent_test` to check if your agent is configured correctly").
        """
        checked: set[str] = set()
        for cmd in self.index.commands:
            lines = self.search.lines(cmd.doc)
            near = " ".join(lines[max(0, cmd.line - 8) : cmd.line + 3])
            for sentence in re.split(r"(?<=[.!?])\s+", near):
                if not checks_setup(sentence):
                    continue
                for path in cmd.runs:
                    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
                    if re.search(rf"(?<![\w-]){re.escape(stem)}(?![\w-])", sentence):
                        checked.add(path)
        return frozenset(checked)

    def _doc_scores(self, q: TaskQuery) -> dict[str, float]:
        """README commands whose surrounding prose matches the task, credited to what they run."""
        out: dict[str, float] = {}
        wanted = {stem(t) for t in q.terms}
        for cmd in self.index.commands:
            if not cmd.runs:
                continue
            lines = self.search.lines(cmd.doc)
            context = "\n".join(lines[max(0, cmd.line - 12) : cmd.line + 1])
            toks = set(terms(context)) | set(terms(cmd.text))
            score = math.fsum(self._idf(t) for t in toks & wanted)  # any set order: same sum
            for r in cmd.runs:
                out[r] = max(out.get(r, 0.0), score)
        return out

    def _label_scores(self, q: TaskQuery) -> dict[str, float]:
        """READMEs map results to commands: "Table 2 (ablation) | bash scripts/run_ablation.sh"."""
        out: dict[str, float] = {}
        if not q.labels:
            return out
        for cmd in self.index.commands:
            lines = self.search.lines(cmd.doc)
            near = " ".join(lines[max(0, cmd.line - 4) : cmd.line]).lower()
            near = re.sub(r"\b(tab|fig)[a-z]*\.?\s*", r"\1 ", near)
            if any(re.search(rf"\b{re.escape(label)}\b", near) for label in q.labels):
                for r in cmd.runs:
                    out[r] = 1.0
        return out

    def _result_scores(self, q: TaskQuery) -> dict[str, float]:
        """Files that write a result/log file holding the task's reported numbers."""
        if not q.results:
            return {}
        matched: dict[str, float] = {}
        for res in self.index.results:
            found = {norm_number(n) for n in res.numbers} & q.results
            if found:
                matched[res.path] = float(len(found))
        out: dict[str, float] = {}
        for path, refs in self.index.file_refs.items():
            score = math.fsum(matched.get(r, 0.0) for r in refs)
            if score:
                out[path] = score
        return out

    def _flag_scores(self, q: TaskQuery) -> dict[str, float]:
        """CLI flags named like the task's variables, defaults/values equal to its numbers."""
        out: dict[str, float] = {}
        guesses = {g.lstrip("-").replace("-", "_") for g in q.flag_guesses}
        wanted = {stem(t) for t in q.terms}
        for e in self.index.entry_points:
            score = 0.0
            for f in e.flags:
                name = f.name.lstrip("-").replace("-", "_")
                if name in guesses:
                    score += 3.0
                score += 0.3 * len(set(terms(name)) & wanted)
                value = norm_number(f.default) if f.default else None
                if value is not None and value in q.numbers:
                    score += 0.5
                elif f.default and set(tokens(f.default)) & set(q.names):
                    score += 1.0
            if score:
                out[e.path] = score
        return out

    def _named_projects(self, q: TaskQuery, cands: dict[str, Candidate]) -> set[str]:
        """The top-level folders the question names whole ("pose estimation" names
        pose_estimation/) that hold programs of their own: the sub-projects it asks about. Of
        several ("object detection and instance segmentation"), the ones whose files match
        the task about as well as the best (detection/ with its COCO configs)."""
        named = {folder for folder, words in self.projects.items() if words <= q.asked}
        fit = {f: 0.0 for f in named}
        for c in cands.values():
            top = c.path.split("/", 1)[0]
            if top in fit:
                fit[top] = max(fit[top], c.signals.get("dir", 0.0))
        best = max(fit.values(), default=0.0)
        return {f for f, v in fit.items() if v >= NAMED_FIT * best}

    def _dir_scores(self, text_scores: dict[str, float]) -> dict[str, float]:
        """How well a file's neighbourhood matches: experiments live in sub-projects.

        A directory's relevance is the mean of its three best-matching files (anywhere below
        it); a file takes the best of its ancestors. Files at the top level are compared with
        the other top-level files only, so the root does not win by containing everything.
        """
        below: dict[str, list[float]] = {}
        for path, score in text_scores.items():
            d = posixpath.dirname(path)
            if not d:
                below.setdefault("", []).append(score)
            while d:
                below.setdefault(d, []).append(score)
                d = posixpath.dirname(d)
        rel = {d: sum(sorted(v, reverse=True)[:3]) / 3 for d, v in below.items()}
        out: dict[str, float] = {}
        for path in self.kinds:
            d = posixpath.dirname(path)
            best = rel.get("", 0.0) if not d else 0.0
            while d:
                best = max(best, rel.get(d, 0.0))
                d = posixpath.dirname(d)
            if best:
                out[path] = best
        return out

    def _config_scores(self, q: TaskQuery) -> dict[str, float]:
        out: dict[str, float] = {}
        names = set(q.names)
        for path, entries in self._config_terms():
            score = 0.0
            for num, words, key in entries:
                if num is not None and num in q.numbers:
                    score += 0.5
                elif words & names:
                    score += 1.0
                if key & names:
                    score += 0.5
            if score:
                out[path] = math.log1p(score)
        return out

    def _config_terms(self) -> list[tuple[str, list[_ConfigEntry]]]:
        """Each config's first 2000 entries as the ranking reads them: the value as a number,
        the value's words, the key's last part's words; read once for every task."""
        if self._configs is None:
            self._configs = [
                (
                    cfg.path,
                    [
                        (
                            norm_number(value) if value else None,
                            frozenset(tokens(value)) if value else frozenset(),
                            frozenset(tokens(key.rsplit(".", 1)[-1])),
                        )
                        for key, value in list(cfg.values.items())[:2000]
                    ],
                )
                for cfg in self.index.configs
            ]
        return self._configs

    def _idf(self, term: str) -> float:
        df = self.search.document_frequency(term)
        n = max(len(self.search.readable), 1)
        return math.log(1 + n / (df + 1))


# a config entry as the ranking reads it: its value as a number, its value's words, its key's
_ConfigEntry = tuple[str | None, frozenset[str], frozenset[str]]


_LICENSE = re.compile(r"(?:LICEN[CS]E|COPYING)(?:\.\w+)?", re.IGNORECASE)


def _vendored(index: RepoIndex) -> list[str]:
    """Folders below the top holding a license of their own: another work's code."""
    return sorted(
        {
            posixpath.dirname(f.path)
            for f in index.files
            if "/" in f.path and _LICENSE.fullmatch(f.path.rsplit("/", 1)[1])
        }
    )


def _projects(kinds: dict[str, str]) -> dict[str, frozenset[str]]:
    """The top-level folders holding two programs or more, by the words that name them
    (`pose_estimation/`: pose, estim), a folder any repository has (`data/`) left out."""
    programs = Counter(p.split("/", 1)[0] for p, k in kinds.items() if "/" in p and k in RUNS)
    out: dict[str, frozenset[str]] = {}
    for folder, n in programs.items():
        words = {stem(t) for t in tokens(re.sub(r"[-_.]", " ", folder))}
        words -= _PATH_NOISE | STOPWORDS | GENERIC | _COMMON_FOLDERS
        if n >= 2 and words and max(map(len, words)) >= 4:
            out[folder] = frozenset(words)
    return out


def _path_terms(path: str) -> set[str]:
    stem_dir = posixpath.dirname(path)
    toks = set(path_tokens(path))
    toks |= {t for t in tokens(stem_dir.replace("-", " "))}
    keep = {t for t in toks if t not in _PATH_NOISE and t not in STOPWORDS and t not in GENERIC}
    return {stem(t) for t in keep}
