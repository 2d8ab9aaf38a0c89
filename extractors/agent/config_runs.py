"""Runs of a program that reads its experiment from a config file (`tools/train.py CONFIG`).

Some frameworks (OpenMMLab's among them) select the model, the data set and the schedule by
the config file a program is given, not by options: `./tools/dist_train.sh configs/x/y.py 8`.
A task's arm ("SegNeXt-T", "Mask R-CNN") is then the config file whose path names it, among
those of the program's own project (`detection/configs/` for `detection/train.py`), the data
set the task holds fixed breaking ties ("ADE20K" picks `...ade.160k.py`). The run is the
authors' documented command for the program, or for the launch script that runs it, with that
file in the config's place; then the documented evaluation of the same config. A config names
its model's parts by registered type (`backbone=dict(type='MSCAN')`): the classes the
repository defines under those names are the method's own code, cited as steps and masked.
"""

from __future__ import annotations

import ast
import functools
import posixpath
import re
import shlex
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from expcurate.records import ConfigFile, DocCommand, EntryPoint, RepoIndex
from extractors.repo import RepoPathError, RepoSearch, terms
from extractors.repo.commands import doc_order, run_from

from .arms import Arm
from .run import Run
from .steps import Step, StepTracer

# the positional argument that names the experiment's config file
CONFIG_PARAM = re.compile(
    r"^(?:config|cfg|conf|config[-_]?file|config[-_]?path|cfg[-_]?file)$", re.I
)
# where a documented command leaves the config's place open: /path/to/config, ${CONFIG_FILE}
_SLOT = re.compile(r"(?i)(?:config|cfg)")
_CONFIG_DIRS = frozenset({"configs", "config", "local_configs", "conf", "cfgs", "cfg"})
_CONFIG_EXTS = (".py", ".yaml", ".yml", ".json")
_PARTIAL = frozenset({"_base_", "_base", "__base__"})
# a model size written as one letter after the name (Swin-T, SegNeXt-L, MogaNet-XT)
_SIZES = {
    "t": "tiny",
    "s": "small",
    "b": "base",
    "m": "medium",
    "l": "large",
    "h": "huge",
    "xt": "xtiny",
    "xs": "xsmall",
    "xl": "xlarge",
}
_WORD = re.compile(r"[a-z0-9]+")
# what a program counting a model's costs measures, not what training and testing it gives
_COST = re.compile(r"(?i)flop|param|latency|fps|throughput|memory|speed|\btime|macs")
_VERSION = re.compile(r"\d+[a-z]?")
_DEEP = re.compile(r"([a-z]+)(\d+)")  # a name and a depth: resnet101
_NOT_ARM_WORDS = frozenset({"w", "with", "the", "a", "of", "and", "on", "in", "for", "model"})
# the program that evaluates what a training program wrote, beside it
_EVALUATES = ("test.py", "eval.py", "evaluate.py", "validate.py")
MAX_TYPES = 3  # the model parts a config names that become steps
THIN = 10  # a class this short that extends one beside it is cited by that one
NARROW = 40  # a class longer than this is cited by its forward pass
RARE = 0.5  # a config word held by at most this share of the configs tells them apart
# an arm adding a part to a model ("SegNeXt-B w/ Ham", "ResNet-50 + EAT"): the model's name
_ADDED = re.compile(r"(\S.*?)\s+(?:w/|with|\+)\s*(?!o\b)\S")
_PARTS = ("backbone", "neck", "decode_head", "head", "encoder", "decoder", "bbox_head")


def reads_config(e: EntryPoint | None) -> bool:
    """The program's first positional argument is the config file of the experiment."""
    first = next((f for f in (e.flags if e else []) if not f.name.startswith("-")), None)
    return first is not None and bool(CONFIG_PARAM.match(first.name))


def arm_words(value: str) -> list[str]:
    """The words an arm's config path must hold: `SegNeXt-T` -> segnext, tiny (a size letter
    after the name); `Mask R-CNN` -> mask, rcnn (another lone letter is part of the word after
    it); a parenthesised note is dropped."""
    bare = re.sub(r"\([^()]*\)", " ", value.lower())
    # a name and its depth joined by a dash are one word, as file names write them:
    # `HRNetW-18` is hrnetw18 (`hr18`), `ResNet-50` resnet50 (`r50`)
    bare = re.sub(r"([a-z])-(\d+)\b", r"\1\2", bare)
    # a versioned name and its width (`HRNetV2-W48`) are the name and that width, as file
    # names write them: hrnetw48 (`hr48`)
    bare = re.sub(r"([a-z])v\d+-w(\d+)\b", r"\1w\2", bare)
    words = _WORD.findall(bare)
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in _NOT_ARM_WORDS:
            pass
        elif out and w in _SIZES and (i + 1 == len(words) or words[i + 1] in _NOT_ARM_WORDS):
            out.append(_SIZES[w])  # the size right after the name
        elif len(w) == 1 and i + 1 < len(words) and not words[i + 1].isdigit():
            out.append(w + words[i + 1])
            i += 1
        else:
            out.append(w)
        i += 1
    return out


def path_words(path: str) -> list[str]:
    stem = path.rsplit(".", 1)[0]
    return _WORD.findall(stem.lower())


_SIZE = re.compile(r"\d{2,5}x\d{2,5}")  # an input size in a file name: 512x512, 1024x1024
# what follows the data set in a config's name, or stands in it for no data: a schedule
# (80k, 160k, 20e), an input size, a device count (4x4), a version
_SCHEDULE = re.compile(r"\d+[ke]?|\d+x\d+|v\d+|1x|2x|3x|\d+ep")


def _names_whole(want: list[str], have: list[str]) -> bool:
    """Every word of the arm is a word of the path as it is, or a backbone the path writes
    by its initial and depth (`resnet50` as `r50`): not only the start of one."""
    return all(
        w in have
        or (
            _DEEP.fullmatch(w) is not None and any(_DEEP.fullmatch(h) and _same(w, h) for h in have)
        )
        for w in want
    )


@functools.lru_cache(maxsize=1 << 16)
def _same(want: str, have: str) -> bool:
    """A word of the task and one of a path: equal, or one begins the other with a number
    after it (`ade20k` and `ade`, `stuff164k` and `stuff`) or, the shorter of four letters or
    more, with letters only (`cityscapes` and `city`); `mask2former` is not `mask`."""
    if want == have:
        return True
    # a backbone a file name writes by its initial and depth: `r101` for resnet101
    m, n = _DEEP.fullmatch(want), _DEEP.fullmatch(have)
    if m and n and m.group(2) == n.group(2) and len(m.group(1)) >= 4 > len(n.group(1)):
        return m.group(1).startswith(n.group(1))
    if want.isdigit() and _SIZE.fullmatch(have):  # "512×512" in a caption: `512x512` configs
        return want in have.split("x")
    if m and len(m.group(1)) >= 4 and have == m.group(1):
        return False  # a depth the task names is not any depth: resnest269 is not `resnest/`
    short, long_ = sorted((want, have), key=len)
    if not long_.startswith(short) or short.isdigit():
        return False
    rest = long_[len(short) :]
    if rest == "v1" and len(short) >= 4:  # `bisenet` is `bisenetv1`, the first of its versions
        return True
    return (len(short) >= 3 and bool(_VERSION.fullmatch(rest))) or (
        len(short) >= 4 and rest.isalpha()
    )


def _dated(want: str, have: str) -> bool:
    """A data set's name and a file name's word holding it with a year after it and a
    split or variant after that: `voc` and `voc12aug`, `coco` and `coco2017train` (never
    `mask` and `mask2former`: one digit is part of a name)."""
    return len(want) >= 3 and have.startswith(want) and have[len(want) : len(want) + 2].isdigit()


@dataclass
class ConfigRun:
    config: str
    command: str
    evaluation: str = ""


class ConfigFiles:
    """The experiment configs of one repository and the programs documented to read them."""

    def __init__(self, index: RepoIndex, search: RepoSearch, tracer: StepTracer) -> None:
        self.index = index
        self.search = search
        self.tracer = tracer
        self.entries = {e.path: e for e in index.entry_points}
        self.known = {f.path for f in index.files}
        self.configs = [
            f.path
            for f in index.files
            if not f.skipped and f.path.endswith(_CONFIG_EXTS) and _experiment_config(f.path)
        ]
        self._words = {p: path_words(p) for p in self.configs}
        self._data: frozenset[str] | None = None  # the data sets the configs are on, by name
        self._classes: dict[str, tuple[str, ast.ClassDef] | None] = {}
        self._rare: set[str] | None = None

    # ------------------------------------------------------------ which program, which file

    def program(self, entry: str | None, metrics: list[str]) -> str | None:
        """The program the runs give a config: the entry point itself, or the one its launch
        script runs; with no entry point, the training program the README documents. A
        program that only counts costs (`get_flops.py`) gives way to its project's training
        program when the task measures more than costs."""
        if entry is None:
            return self._trainer(None)
        program = self._reader(entry)
        if program is None:
            return None
        if "train" in posixpath.basename(program) or all(_COST.search(m) for m in metrics):
            return program
        return self._trainer(_project(program)) or program

    def _reader(self, path: str) -> str | None:
        e = self.entries.get(path)
        if reads_config(e):
            return path
        for callee in e.calls if e else []:
            if reads_config(self.entries.get(callee)):
                return callee
        return None

    def trainers(self) -> list[str]:
        """Every documented program that trains from a config, the top-level README's first
        (`detection/train.py`, `segmentation/train.py` of one repository)."""
        out: list[str] = []
        for c in sorted(self.index.commands, key=doc_order):
            for run in c.runs:
                program = self._reader(run)
                if program and "train" in posixpath.basename(program) and program not in out:
                    out.append(program)
        return out

    def says(self, config: str, words: set[str]) -> bool:
        """The config's name, below its configs folder, holds one of these words that at
        most half of the repository's configs hold (`coco` of a task "on COCO"; not the
        project's folder, not the model family every config is of)."""
        if self._rare is None:
            counts = Counter(w for p in self.configs for w in set(_own_words(p)))
            self._rare = {w for w, n in counts.items() if n <= RARE * len(self.configs)}
        have = [h for h in _own_words(config) if h in self._rare]
        return any(_same(w, h) for w in words for h in have)

    def data_named(self, words: Sequence[str]) -> list[str]:
        """Of `words` (a question's), those naming the data set some config is on, as the
        last word of its file name past the schedule and the input size (`isaid` of
        `pspnet_r50-d8_4x4_896x896_80k_isaid.py`)."""
        if self._data is None:
            ends: set[str] = set()
            for p in self.configs:
                if _PARTIAL & set(p.split("/")):  # a base config is a part, on no data
                    continue
                name = path_words(p.rsplit("/", 1)[-1])
                stem = [w for w in name if not _SCHEDULE.fullmatch(w)]
                # a model's name alone (`pspnet.yml`, a metafile) is on no data
                if len(name) >= 3 and len(stem) >= 2 and not stem[-1].isdigit():
                    ends.add(stem[-1])
            self._data = frozenset(ends)
        data = self._data
        return [
            w
            for w in dict.fromkeys(words)
            if len(w) >= 3 and w.isalpha() and any(w == d or _dated(w, d) for d in data)
        ]

    def other_data(self, config: str, wanted: Sequence[str]) -> list[str]:
        """Of the words of what the task holds fixed, those naming data some config of the
        repository is on (`voc` of "Pascal VOC": `..._voc12aug.py`), when this config holds
        none of them: it trains on another data set than the task's. Else []."""

        def on(w: str, words: list[str]) -> bool:
            return any(_same(w, h) or _dated(w, h) for h in words)

        known = [
            w
            for w in dict.fromkeys(wanted)
            if len(w) >= 3 and w.isalpha() and any(on(w, self._words[p]) for p in self.configs)
        ]
        if not known or any(on(w, self._words[config]) for w in known):
            return []
        return known

    def _trainer(self, project: str | None) -> str | None:
        """The first documented program that trains from a config, of this project when one
        is given."""
        return next((p for p in self.trainers() if project is None or _project(p) == project), None)

    def config_for(
        self,
        program: str,
        arm: Arm,
        prefer: list[str],
        beside: Sequence[Sequence[str]] = (),
        loose: Sequence[str] = (),
    ) -> str | None:
        """The config of the program's project whose path holds every word of the arm; of
        several, the one holding most of `prefer` (the data set and settings held fixed),
        then the most of `beside` it holds whole (the words of the other variables' arms:
        RetinaNet with the task's MogaNet-T), then the most of `loose` (the task's other
        words), then the shortest."""
        want = arm_words(arm.value)
        if not want:
            return None
        home = _project(program)

        def held(words: Sequence[str], have: list[str], dated: bool = False) -> int:
            """How many of `words` the path holds; with `dated`, a data set's name also
            before a year or a split (`voc12aug`)."""
            return sum(
                any(_same(w, h) or (dated and _dated(w, h)) for h in have)
                for w in dict.fromkeys(words)
            )

        fits: list[tuple[int, int, int, int, str]] = []
        for path in self.configs:
            if home and not path.startswith(home + "/"):
                continue
            have = self._words[path]
            if held(want, have) < len(set(want)):
                continue
            near = sum(held(other, have) == len(set(other)) for other in beside)
            fits.append((-held(prefer, have, True), -near, -held(loose, have), len(have), path))
        return min(fits)[-1] if fits else None

    def configs_for(
        self, program: str, arms: list[Arm], prefer: list[str], loose: Sequence[str] = ()
    ) -> dict[int, str]:
        """Each arm's config (by the arm's index), leaving out arms of one variable that
        find the same file: the file does not tell them apart (`SegNeXt-T (a)` and `(b)`)."""
        found = self._each_config(program, arms, prefer, loose)
        claims: dict[tuple[str, str], list[int]] = {}
        for i, c in found.items():
            claims.setdefault((arms[i].variable, c), []).append(i)
        out: dict[int, str] = {}
        for (_, c), idx in claims.items():
            # of methods one file matches (PointRend and PointFlow, by the folder word
            # `point`), the one whose every word the path holds as it is
            exact = [i for i in idx if _names_whole(arm_words(arms[i].value), path_words(c))]
            if len(idx) == 1 or len(exact) == 1:
                out[exact[0] if len(idx) > 1 else idx[0]] = c
        return dict(sorted(out.items()))

    def _each_config(
        self, program: str, arms: list[Arm], prefer: list[str], loose: Sequence[str]
    ) -> dict[int, str]:
        """The config each arm finds, by the arm's index."""
        found: dict[int, str] = {}
        for i, a in enumerate(arms):
            beside = [arm_words(b.value) for b in arms if b.variable != a.variable]
            if config := self.config_for(program, a, prefer, beside, loose):
                found[i] = config
        return found

    def shared_configs(
        self, program: str, arms: list[Arm], prefer: list[str], loose: Sequence[str] = ()
    ) -> dict[str, list[int]]:
        """The configs two or more arms of one variable find (`segnext.tiny...` for
        "SegNeXt-T (a)", "(b)" and "(c)"), with those arms' indexes: the repository's starting
        point for each, which it does not tell apart."""
        found = self._each_config(program, arms, prefer, loose)
        groups: dict[tuple[str, str], list[int]] = {}
        for i, c in found.items():
            groups.setdefault((arms[i].variable, c), []).append(i)
        # only arms named alike but for a note ("(a)", "(b)"): two methods one file happens
        # to match (PointRend and PointFlow) share nothing
        return {
            c: idx
            for (_, c), idx in groups.items()
            if len(idx) >= 2 and len({tuple(arm_words(arms[i].value)) for i in idx}) == 1
        }

    def headed_configs(
        self, program: str, arms: list[Arm], prefer: list[str], loose: Sequence[str] = ()
    ) -> dict[str, list[int]]:
        """The config of a model that arms of one variable add parts to ("SegNeXt-B w/ CC",
        "SegNeXt-B w/ EMA", "SegNeXt-B w/ Ham": `segnext.base...py`), with those arms'
        indexes, for arms no config names whole: the repository's starting point for each."""
        groups: dict[tuple[str, str], list[int]] = {}
        for i, a in enumerate(arms):
            m = _ADDED.match(a.value)
            if m and self.config_for(program, a, prefer, (), loose) is None:
                groups.setdefault((a.variable, m.group(1).strip()), []).append(i)
        out: dict[str, list[int]] = {}
        for (variable, head), idx in groups.items():
            if len(idx) < 2:
                continue
            model = Arm(variable, head, frozenset(terms(head)))
            if config := self.config_for(program, model, prefer, (), loose):
                out.setdefault(config, []).extend(idx)
        return out

    def built(self, config: str) -> list[tuple[str, str]]:
        """The parts the config file builds by registered type, as it sets them itself
        (`model.decode_head.type`, `LightHamHead`), not its bases."""
        own = next((c for c in self.index.configs if c.path == config), None)
        if own is None:
            return []
        return [
            (k.removesuffix(".type"), v)
            for k, v in own.values.items()
            if k == "type" or k.endswith(".type")
        ]

    def part_class(self, word: str, kind: str) -> tuple[str, str, int, int] | None:
        """The class of the same kind as `kind` an arm's own word names (`CCHead` for "CC"
        beside `LightHamHead`): its name, path and the lines doing its work (its forward
        pass, else the class); None when the repository defines none or several."""
        suffix = re.search(r"[A-Z][a-z]+$", kind)
        if not suffix or not word.isalnum():
            return None
        name = rf"{re.escape(word)}_?{suffix.group(0)}"
        try:
            hits = self.search.grep(rf"(?mi)^class ({name})\b", max_hits=3)
        except RepoPathError:
            return None
        found = {
            m.group(1)
            for path, _, text in hits
            if path.endswith(".py") and (m := re.match(rf"(?i)class ({name})\b", text.strip()))
        }
        where = self._class(found.pop()) if len(found) == 1 else None
        if where is None:
            return None
        path, node = where
        core = _core(node) or node
        return node.name, path, core.lineno, core.end_lineno or core.lineno

    def run(self, program: str, config: str) -> ConfigRun:
        """The documented command for the program (or a launch script running it) with this
        config in the config's place, then the documented evaluation of that config."""
        documented = self._documented(program, config)
        if documented is None:
            command = f"python {shlex.quote(program)} {shlex.quote(config)}"
        else:
            command = with_config(run_from(documented, self.known), config)
        evaluation = ""
        judge = self.evaluator(program)
        if judge is not None and (doc := self._documented(judge, config)) is not None:
            evaluation = with_config(run_from(doc, self.known), config)
        return ConfigRun(config, command, evaluation)

    def _documented(self, program: str, config: str = "") -> DocCommand | None:
        """The first documented command running the program or a launch script that runs
        it, the top-level README first; one that names a config in its place beats none,
        and one naming `config` itself (with its own other options: `--json_file
        small.json` for configs/small.py) beats one written for another config."""
        runners = {program} | {e.path for e in self.index.entry_points if program in e.calls}
        found = [c for c in self.index.commands if set(c.runs) & runners and _config_place(c.text)]
        if not found:
            return None
        own = [c for c in found if config and _names_config(c.text, config)]
        return min(own or found, key=doc_order)

    def evaluator(self, program: str) -> str | None:
        """The program beside a training program that evaluates the same config."""
        folder = posixpath.dirname(program)
        if "train" not in posixpath.basename(program):
            return None
        for name in _EVALUATES:
            path = posixpath.join(folder, name)
            if reads_config(self.entries.get(path)):
                return path
        return None

    # ------------------------------------------------------------ what the config builds

    def model_types(self, config: str) -> list[tuple[str, str]]:
        """The registered type names of the model a config builds, with the part each builds
        (backbone, decode head, ...), its bases' included (a config's own value before a
        base's), the model's own type last."""
        seen: set[str] = set()
        parts: list[tuple[str, str]] = []
        outer: list[tuple[str, str]] = []
        for path in self._chain(config):
            tree = self._tree(path)
            if tree is None:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "model" for t in node.targets
                ):
                    _types(node.value, "model", parts, outer, seen, depth=0)
        parts.sort(key=lambda p: _PARTS.index(p[1].replace(" ", "_")))
        return [*parts, *outer]

    def class_steps(self, config: str) -> list[Step]:
        """The lines of the config that set the model, and the classes the repository
        defines under the config's model types (a long one by its forward pass): the
        method's own code for this run."""
        steps: list[Step] = []
        if at := self._model_lines(config):
            steps.append(Step(f"Set the model in {posixpath.basename(config)}", config, *at))
        for name, role in self.model_types(config)[:MAX_TYPES]:
            where = self._class(name)
            if where is None:
                continue
            path, node = where
            long_ = (node.end_lineno or node.lineno) - node.lineno > NARROW
            core = _core(node) if long_ else None
            if long_ and core is None:  # a wrapper with no forward pass of its own says little
                continue
            if core is None:
                action = f"Define the {role} {name}"
                steps.append(Step(action, path, node.lineno, node.end_lineno or node.lineno))
            else:
                action = f"Compute the {role} {name}'s {core.name.strip('_')} pass"
                steps.append(Step(action, path, core.lineno, core.end_lineno or core.lineno))
        return steps

    def assigned(self, config: str, name: str, action: str) -> Step | None:
        """The lines that set `name = dict(...)` for this config, in it or the bases it
        inherits: the longest (`data = dict(...)` in `_base_/datasets/ade20k.py`, not the
        config's own one-line override of its batch size)."""
        found: list[Step] = []
        for path in self._chain(config):
            tree = self._tree(path)
            for node in tree.body if tree else []:
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in node.targets
                ):
                    found.append(Step(action, path, node.lineno, node.end_lineno or node.lineno))
        return max(found, key=lambda s: s.end - s.start, default=None)

    def _chain(self, config: str, depth: int = 0) -> list[str]:
        """The config and the base configs it inherits (`_base_ = [...]`), itself first."""
        out = [config]
        tree = self._tree(config)
        if tree is None or depth > 4:
            return out
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "_base_" for t in node.targets
            ):
                values = (
                    node.value.elts
                    if isinstance(node.value, ast.List | ast.Tuple)
                    else [node.value]
                )
                for v in values:
                    if isinstance(v, ast.Constant) and isinstance(v.value, str):
                        base = posixpath.normpath(
                            posixpath.join(posixpath.dirname(config), v.value)
                        )
                        if base in self.known and base not in out:
                            out += self._chain(base, depth + 1)
        return out

    def _tree(self, path: str) -> ast.Module | None:
        return self.tracer.tree(path) if path.endswith(".py") else None

    def _model_lines(self, config: str) -> tuple[int, int] | None:
        tree = self._tree(config)
        for node in tree.body if tree else []:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "model" for t in node.targets
            ):
                return node.lineno, node.end_lineno or node.lineno
        return None

    def _class(self, name: str) -> tuple[str, ast.ClassDef] | None:
        """Where the repository defines a class of this name (the first, outside tests); a
        thin subclass (`class MogaNet_feat(MogaNet): ...`) by the base it extends there."""
        if name not in self._classes:
            found = None
            try:
                hits = self.search.grep(rf"(?m)^\s*class {re.escape(name)}\b", max_hits=5)
            except RepoPathError:
                hits = []
            for path, _, _ in hits:
                if "test" in path.split("/")[0] or not path.endswith(".py"):
                    continue
                tree = self.tracer.tree(path)
                defs = (
                    {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
                    if tree
                    else {}
                )
                node = defs.get(name)
                if node is None:
                    continue
                base = next(
                    (defs[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in defs),
                    None,
                )
                if base is not None and (node.end_lineno or 0) - node.lineno < THIN:
                    node = base
                found = (path, node)
                break
            self._classes[name] = found
        return self._classes[name]


def _types(
    node: ast.AST,
    role: str,
    parts: list[tuple[str, str]],
    outer: list[tuple[str, str]],
    seen: set[str],
    depth: int,
) -> None:
    """Collect `type='X'` of a `dict(...)` tree: the parts' types, then the outermost."""
    if not isinstance(node, ast.Call) or depth > 3:
        return
    for kw in node.keywords:
        value = kw.value
        if kw.arg == "type" and isinstance(value, ast.Constant) and isinstance(value.value, str):
            name = value.value
            if name not in seen and name.isidentifier():
                seen.add(name)
                (outer if depth == 0 else parts).append((name, role))
        elif kw.arg in _PARTS:
            _types(value, kw.arg.replace("_", " "), parts, outer, seen, depth + 1)


def _core(node: ast.ClassDef) -> ast.FunctionDef | None:
    """The method that does a class's work: its forward pass (or `__call__`), else none."""
    methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
    for want in ("forward", "__call__"):
        found = next((m for m in methods if m.name == want), None)
        if found is not None and (found.end_lineno or found.lineno) - found.lineno >= 3:
            return found
    return None


def _experiment_config(path: str) -> bool:
    """A whole experiment's config: under a configs folder, not a partial one (`_base_`)."""
    parts = path.split("/")
    return any(p in _CONFIG_DIRS for p in parts[:-1]) and not any(
        p.lower() in _PARTIAL for p in parts[:-1]
    )


def _own_words(config: str) -> list[str]:
    """The words of a config's path below its configs folder."""
    parts = config.split("/")
    last = max((i for i, p in enumerate(parts[:-1]) if p in _CONFIG_DIRS), default=-1)
    return path_words("/".join(parts[last + 1 :]))


def _project(program: str) -> str:
    """The folder whose configs a program reads: its own, above a `tools/` or `scripts/`."""
    folder = posixpath.dirname(program)
    if posixpath.basename(folder) in ("tools", "scripts", "tool", "script"):
        folder = posixpath.dirname(folder)
    return folder


def _names_config(text: str, config: str) -> bool:
    """The command names the config file by its path, whole or from a folder inside the
    repository (`configs/small.py`, `../configs/small.py`, `./small.py` from configs/)."""
    for token in text.split():
        path = token.strip("'\"").lstrip("./")
        if path and (path == config or config.endswith("/" + path)):
            return True
    return False


def _config_place(text: str) -> bool:
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    return any(_is_place(w) for w in words[_after_script(words) :])


def _after_script(words: list[str]) -> int:
    """Where a command's arguments begin: after the script it runs (`tools/train.py`)."""
    for i, w in enumerate(words):
        if w.endswith((".py", ".sh")) and not w.startswith("-"):
            return i + 1
    return 1


def _is_place(word: str) -> bool:
    if word.startswith("-"):
        return False
    return word.endswith(_CONFIG_EXTS) or (bool(_SLOT.search(word)) and "=" not in word)


def with_config(command: str, config: str) -> str:
    """The command with `config` in the config's place (its first config-like argument),
    relative to the folder the command changes into."""
    cd = re.match(r"cd (\S+) && ", command)
    rel = posixpath.relpath(config, cd.group(1)) if cd else config
    head = cd.group(0) if cd else ""
    rest = command[len(head) :]
    try:
        words = shlex.split(rest)
    except ValueError:
        return command
    start = _after_script(words)
    for i, w in enumerate(words[start:], start=start):
        if _is_place(w):
            words[i] = rel
            return head + shlex.join(words)
    return command


def built_arms(runs: list[Run], configs_of: Callable[[Run], list[ConfigFile]]) -> list[Run]:
    """Arms no option, script or config path selects, one of which every run's config builds
    by name: SegNeXt's "w/ MSCA" beside "w/ Ham", where each size's config sets
    `decode_head=dict(type='LightHamHead')`. That arm is what the runs run ("its config builds
    LightHamHead: that is w/ Ham"), no longer an arm to write; the others stay to write. The
    words all the variable's arms share do not tell them apart; a run must give one config
    at least, and every run's configs must name the same one arm."""
    missing = [r for r in runs if r.missing and len(r.arms) == 1]
    ran = [r for r in runs if not r.missing and r.command]
    if len(missing) < 2 or not ran:
        return runs
    built = {
        id(r): [
            (c.path, v)
            for c in configs_of(r)  # the config file's own, not its bases': what it chose
            for k, v in c.values.items()
            if k == "type" or k.endswith(".type")
        ]
        for r in ran
    }
    if any(not types for types in built.values()):
        return runs
    taken: dict[int, tuple[Arm, str]] = {}  # by the missing run: its arm, and what builds it
    for variable in dict.fromkeys(r.arms[0].variable for r in missing):
        group = [r for r in missing if r.arms[0].variable == variable]
        if len(group) < 2 or any(a.variable == variable for r in ran for a in r.arms):
            continue
        shared = frozenset.intersection(*(r.arms[0].words for r in group))
        own = {id(g): set(g.arms[0].words - shared) for g in group}
        found: set[int] = set()
        said = ""
        for run in ran:
            hits = {
                id(g): f"its config builds {kind}"
                for g in group
                for _, kind in built[id(run)]
                if own[id(g)] and own[id(g)] <= set(terms(kind))
            }
            if len(hits) != 1:
                found = set()
                break
            found |= set(hits)
            said = said or next(iter(hits.values()))
        if len(found) == 1:
            (hit,) = found
            arm = next(g.arms[0] for g in group if id(g) == hit)
            taken[hit] = (arm, said)
    if not taken:
        return runs
    for arm, said in taken.values():
        note = f"{said}: that is {arm.value}"
        for run in ran:
            run.arms = [*run.arms, arm]
            run.say_first(note)
    return [r for r in runs if id(r) not in taken]
