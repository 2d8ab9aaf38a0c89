"""What an entry point needs to run, as its own code says.

The options it refuses to run without (declared `required=True`, or refused with
`parser.error` when absent), the switches its main block hard-codes outside the parser
(`args.use_zoom_in = True`), whether a value is one the repository knows, the flags a launch
script passes that it does not define, and for a hydra program the config file or config key
an override names. Read from the mined index and the parsed files, once for all the tasks of
a repository.
"""

from __future__ import annotations

import ast
import posixpath
import re
import shlex
from collections import Counter

from expcurate.records import CliFlag, EntryPoint, RepoIndex
from extractors.repo import RepoSearch, terms
from extractors.repo.commands import check_command, run_folder
from extractors.repo.pysource import attribute_equals, callee_name

from .arm_options import (
    choices_of,
    fold,
)
from .arms import (
    SETTING_FILLER,
    CodeSetting,
    content_words,
    numeric,
    value_forms,
)
from .launch import appended, blocks_of, shell
from .steps import StepTracer

# a config group's file: conf/task/vmas/navigation.yaml is group "task", stem "navigation"
CONFIG_GROUP = re.compile(
    r"(?:^|/)(?:conf|config|configs)/(?P<group>[\w/-]+)/(?P<stem>[\w.-]+)\.ya?ml$"
)


class EntryArgs:
    """The arguments and switches of one repository's entry points, read once for its tasks."""

    def __init__(self, index: RepoIndex, search: RepoSearch, tracer: StepTracer) -> None:
        self.index = index
        self.search = search
        self.tracer = tracer
        # a value made up to reach an option's last `else` (`--algo optoprime`): what it means
        self.else_notes: dict[tuple[str, str, str], str] = {}
        self._chain_cache: dict[
            str, dict[str, list[list[tuple[str | None, list[ast.stmt], set[str]]]]]
        ] = {}
        self.entries = {e.path: e for e in index.entry_points}
        self._settings: dict[str, list[CodeSetting]] = {}
        self._choices: dict[tuple[str, str], str] | None = None

    def required(self, entry: str | None) -> list[tuple[str, str]]:
        """The options a Python entry point cannot run without, with a value to give: those
        declared `required=True`, and those whose absence its code refuses (`if args.config
        is None: parser.error(...)`). A configuration gets the repository's config file
        that shares most words with the entry point, anything else a placeholder."""
        e = self.entries.get(entry or "")
        tree = self.tracer.tree(entry) if entry and entry.endswith(".py") else None
        if e is None or tree is None:
            return []
        names: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and callee_name(node.func) == "add_argument":
                if (
                    any(
                        k.arg == "required" and isinstance(k.value, ast.Constant) and k.value.value
                        for k in node.keywords
                    )
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    names.append(str(node.args[0].value))
            elif isinstance(node, ast.If) and any(
                (isinstance(c, ast.Call) and callee_name(c.func) in ("error", "exit"))
                or isinstance(c, ast.Raise)
                for stmt in node.body
                for c in ast.walk(stmt)
            ):
                for c in ast.walk(node.test):
                    if isinstance(c, ast.Compare) and isinstance(c.ops[0], ast.Is):
                        left = c.left
                    elif isinstance(c, ast.UnaryOp) and isinstance(c.op, ast.Not):
                        left = c.operand
                    else:
                        continue
                    if isinstance(left, ast.Attribute) and isinstance(left.value, ast.Name):
                        names.append(f"--{left.attr}")
                        break  # the first one the test names: --config of "config or ..."
        out: list[tuple[int, str, str]] = []
        for name in dict.fromkeys(names):
            flag = next(
                (
                    f
                    for f in e.flags
                    if name in (f.name, *f.aliases)
                    or f.name.lstrip("-").replace("-", "_") == name.lstrip("-")
                ),
                None,
            )
            if flag is None or flag.switch or not flag.name.startswith("-"):
                continue
            out.append((flag.line, flag.name, self._value_for(flag.name, entry or "")))
        return [(name, value) for _, name, value in sorted(out)]  # in the parser's order

    def _value_for(self, name: str, entry: str) -> str:
        """A config file of the repository for a configuration option, else `<NAME>`."""
        words = set(terms(name))
        if words & {"config", "cfg", "yaml"}:
            near = set(content_words(entry.replace("/", " ").rsplit(".", 1)[0])) - {"src", "main"}
            best = max(
                (
                    (len(near & set(content_words(f.path.replace("/", " ")))), f.path)
                    for f in self.index.files
                    if f.path.endswith((".yaml", ".yml")) and "config" in f.path.lower()
                ),
                default=(0, ""),
            )
            if best[0]:
                return best[1]
        return "<" + name.lstrip("-").replace("-", "_").upper() + ">"

    def complete(self, command: str, entry: str | None) -> str:
        """The command with the entry point's required options it lacks (and `dashed`)."""
        command = self.dashed(command, entry)
        given = set(re.findall(r"(?<!\S)--?[\w-]+", command))
        added = [
            w for name, value in self.required(entry) if name not in given for w in (name, value)
        ]
        return appended(command, shell(added)) if added else command

    def dashed(self, command: str, entry: str | None) -> str:
        """The command with a long option written with one dash (`-momentum 0.9`, which
        argparse reads as `-m omentum`) given the two its parser defines (`--momentum`)."""
        e = self.entries.get(entry or "")
        names = {n for f in (e.flags if e else []) for n in (f.name, *f.aliases)}
        return " ".join(
            "-" + w
            if re.fullmatch(r"-[A-Za-z][\w-]+", w) and w not in names and "-" + w in names
            else w
            for w in command.split(" ")
        )

    def code_settings(self, path: str | None) -> list[CodeSetting]:
        """The switches a Python entry point hard-codes outside its parser and its classes'
        state (`args.use_zoom_in = True`, `USE_TEXT = False`), the last assignment of each."""
        if not path or not path.endswith(".py"):
            return []
        if path not in self._settings:
            tree = self.tracer.tree(path)
            found: dict[str, CodeSetting] = {}
            for node in ast.walk(tree) if tree is not None else []:
                if not (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, bool)
                ):
                    continue
                target = node.targets[0]
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    owner, name = target.value.id, target.attr
                elif isinstance(target, ast.Name):
                    owner, name = "", target.id
                elif (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    owner, name = target.value.id, target.slice.value
                else:
                    continue
                words = frozenset(content_words(name.replace("_", " "))) - SETTING_FILLER
                if owner == "self" or not any(len(w) >= 3 for w in words):
                    continue
                text = ast.unparse(target)
                if text not in found or found[text].line < node.lineno:
                    found[text] = CodeSetting(path, node.lineno, text, node.value.value, words)
            self._settings[path] = sorted(found.values(), key=lambda c: c.line)
        return self._settings[path]

    def labelled_value(self, path: str | None, flag: CliFlag, name: str) -> str:
        """The value of `flag` the program's code tests under a comment naming `name`:
        `elif args.dataset == '600': # Numeracy600k` gives 600 for "Numeracy600K". "" when
        no test's comment names it, or the comments name it by more than one value."""
        wanted = fold(name)
        if len(wanted) < 4:
            return ""
        found = {
            value for value, comment in self._tests(path, flag.name) if wanted in fold(comment)
        }
        return found.pop() if len(found) == 1 else ""

    def branch_value(self, path: str | None, flag: CliFlag, name: str) -> str:
        """The value of `flag` whose branch makes or calls `name`: `if args.algo ==
        "textgrad": TextGrad(...) else: OptoPrime(...)` gives a value for OptoPrime. A tested
        branch gives its value; the last `else` the one value the program lists for the
        option (its choices, the values its code tests) that no test of the chain takes,
        or, when it lists none beyond them, the name itself, which no test takes either.
        "" when no branch makes it, or several values could."""
        wanted = fold(name)
        if not path or len(wanted) < 3 or flag.switch:
            return ""
        dest = flag.name.lstrip("-").replace("-", "_")
        for chain in self._chains(path).get(dest, []):
            for value, body, made in chain:
                if wanted not in made:
                    continue
                if value is not None:
                    return value
                tested = [v for v, _, _ in chain if v is not None]
                listed = set(choices_of(flag)) - set(tested)
                if len(listed) == 1:
                    return listed.pop()
                if listed:
                    return ""
                value = re.sub(r"[^a-z0-9_]+", "", name.lower())
                said = " or ".join(tested)
                self.else_notes[(path, flag.name, value)] = (
                    f"any {flag.name} but {said} takes the `else` that makes {name}, at "
                    f"{path}:{body[0].lineno}"
                )
                return value
        return ""

    def _chains(
        self, path: str
    ) -> dict[str, list[list[tuple[str | None, list[ast.stmt], set[str]]]]]:
        """Each `if`/`elif`/`else` chain of string tests of the program, by the option it
        tests, each branch with what it makes or calls (folded names), read once."""
        if path not in self._chain_cache:
            tree = self.tracer.tree(path) if path.endswith(".py") else None
            found: dict[str, list[list[tuple[str | None, list[ast.stmt], set[str]]]]] = {}
            for node in ast.walk(tree) if tree is not None else []:
                if not isinstance(node, ast.If):
                    continue
                tested = attribute_equals(node.test)
                if tested is None or not isinstance(tested[1], str):
                    continue
                chain = [
                    (
                        value,
                        body,
                        {
                            fold(callee_name(c.func))
                            for b in body
                            for c in ast.walk(b)
                            if isinstance(c, ast.Call)
                        },
                    )
                    for value, body in _chain(node, tested[0].attr)
                ]
                found.setdefault(tested[0].attr, []).append(chain)
            self._chain_cache[path] = found
        return self._chain_cache[path]

    def asserted_values(self, path: str | None, flag: CliFlag) -> set[str]:
        """The values an `assert args.algo in [...]` of the program holds the option to."""
        tree = self.tracer.tree(path) if path and path.endswith(".py") else None
        dest = flag.name.lstrip("-").replace("-", "_")
        out: set[str] = set()
        for node in ast.walk(tree) if tree is not None else []:
            test = node.test if isinstance(node, ast.Assert) else None
            if (
                isinstance(test, ast.Compare)
                and isinstance(test.ops[0], ast.In)
                and isinstance(test.left, ast.Attribute)
                and test.left.attr == dest
                and isinstance(test.comparators[0], ast.List | ast.Tuple | ast.Set)
            ):
                out |= {
                    e.value
                    for e in test.comparators[0].elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                }
        return out

    def else_note(self, path: str | None, setting: list[str]) -> str:
        """What a setting `branch_value` made up for an `else` branch means, or ""."""
        key = (path or "", setting[0], setting[1] if len(setting) > 1 else "")
        return self.else_notes.get(key, "")

    def tested_values(self, path: str | None, option: str) -> set[str]:
        """The values the program's code compares the option with (`args.dataset ==
        'CIFAR-10'`): those it has a path for."""
        return {value for value, _ in self._tests(path, option)}

    def _tests(self, path: str | None, option: str) -> list[tuple[str, str]]:
        """Each string the program compares `option` with (`args.dataset == '600'`, `'600'
        in args.dataset`), with the comment ending that line."""
        tree = self.tracer.tree(path) if path and path.endswith(".py") else None
        if tree is None or path is None:
            return []
        dest = option.lstrip("-").replace("-", "_")
        lines = self.search.lines(path)
        out: list[tuple[str, str]] = []
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare) or len(node.comparators) != 1:
                continue
            sides = [node.left, node.comparators[0]]
            if not any(isinstance(s, ast.Attribute) and s.attr == dest for s in sides):
                continue
            line = lines[node.lineno - 1] if 0 < node.lineno <= len(lines) else ""
            comment = line.split("#", 1)[1] if "#" in line else ""
            out += [
                (s.value, comment)
                for s in sides
                if isinstance(s, ast.Constant) and isinstance(s.value, str)
            ]
        return out

    def known_value(self, value: str, flag: CliFlag) -> bool:
        """The repository knows the value: its parser's default or choices, or its code."""
        low = value.lower()
        if low == flag.default.strip("'\"").lower() or low in flag.help.lower() or numeric(value):
            return True
        return any(
            self.search.document_frequency(t) > 0
            for t in dict.fromkeys((low, low.replace("-", "_")))
        )

    def config_choice(self, value: str) -> str:
        """The hydra override that picks the config file named after `value`:
        conf/task/vmas/navigation.yaml is `task=vmas/navigation` for "navigation" (or "")."""
        for form in value_forms(value):
            name = re.sub(r"[\s-]+", "_", form.lower())
            for group, choice in self.hydra_choices():
                if name in (choice.rsplit("/", 1)[-1].lower(), choice.lower()):
                    return f"{group}={choice}"
        return ""

    def hydra_choices(self) -> dict[tuple[str, str], str]:
        """The repository's config files by the override that chooses them, in index order:
        ("task", "vmas/balance") for conf/task/vmas/balance.yaml (read once)."""
        if self._choices is None:
            self._choices = {}
            for f in self.index.files:
                m = CONFIG_GROUP.search(f.path)
                if m:
                    group, _, inner = m.group("group").partition("/")
                    choice = f"{inner + '/' if inner else ''}{m.group('stem')}"
                    self._choices.setdefault((group, choice), f.path)
        return self._choices

    def config_key(self, variable: str) -> str | None:
        """The config key a design variable names, as an override writes it: a dotted key of
        the program's configs (`experiment.max_n_frames` where conf/experiment/*.yaml sets
        max_n_frames), a key of the primary config (`seed`), or a plain name the authors'
        own commands override under its group (`n_agents`, written `task.n_agents=4` in a
        launch script or README command)."""
        if self.config_key_line(variable) is not None:
            return variable.strip()
        name = variable.strip()
        if not re.fullmatch(r"\w+", name):
            return None
        written = re.compile(rf"(?<![\w.])\+?((?:\w+\.)+{re.escape(name)})=")
        texts = [c.text for c in self.index.commands] + [
            line
            for e in self.index.entry_points
            if e.path.endswith(".sh")
            for line in self.search.lines(e.path)
        ]
        keys = Counter(m.group(1) for text in texts for m in written.finditer(text))
        for key, _ in keys.most_common():
            if self.config_key_line(key) is not None:
                return key
        return None

    def config_key_line(self, variable: str) -> tuple[str, int] | None:
        """Where a config key is set: (config file, line) of `experiment.max_n_frames` in
        conf/experiment/base_experiment.yaml; a dotted key in its group's folder, a plain one
        in the primary config beside it."""
        variable = variable.strip()
        if not re.fullmatch(r"\w+(?:\.\w+)*", variable):
            return None
        group, last = variable.split(".", 1)[0], variable.rsplit(".", 1)[-1]
        key = re.compile(rf"^\s*{re.escape(last)}\s*:")
        where = (
            (lambda p: f"/{group}/" in f"/{p}")
            if "." in variable
            else (lambda p: bool(re.search(r"(?:^|/)(?:conf|config|configs)/[^/]+\.ya?ml$", p)))
        )
        for f in self.index.files:
            if f.path.endswith((".yaml", ".yml")) and where(f.path):
                for n, line in enumerate(self.search.lines(f.path), start=1):
                    if key.match(line):
                        return f.path, n
        return None

    def rejected(self, invocation: str, script: str) -> str:
        """What the script passes, in any of its runs, that its entry point's parser does not
        define, as a warning for the reader ("" when every flag is known)."""
        if not invocation:
            return ""
        folder = posixpath.dirname(script)
        known = {f.path for f in self.index.files}
        bad: list[tuple[str, str]] = []  # each flag, and the program that lacks it
        for command in [invocation, *(b.filled() for b in blocks_of(self.search.lines(script)))]:
            # from where the script's program is found, as mining resolves it
            program = next((w for w in command.split() if w.endswith(".py")), "")
            found = run_folder(script, program, known) if program else None
            for cwd in dict.fromkeys([*([found] if found is not None else []), "", folder]):
                line = f"cd {shlex.quote(cwd)} && {command}" if cwd else command
                missing, unknown = check_command(line, known, self.entries)
                if not missing:
                    break
            for u in unknown:
                flag, _, rest = u.partition(" is not a flag of ")
                bad.append((flag, rest.split(" (", 1)[0]))
        bad = list(dict.fromkeys(bad))
        if not bad:
            return ""
        # a flag the program reads all the same (`args.factor`) is missing from its parser:
        # dropping it would stop the run where it is read
        read = [f for f, program in bad if self._reads(program, f)]
        dropped = [f for f, _ in bad if f not in read]
        said: list[str] = []
        if dropped:
            them = "them" if len(dropped) > 1 else "it"
            said.append(
                f"the script passes {_few(dropped)}, which its program does not define: drop {them}"
            )
        if read:
            them = "them" if len(read) > 1 else "it"
            said.append(
                f"the script passes {_few(read)}, which its program reads but its parser does "
                f"not define: add {them} to the parser"
            )
        return "; ".join(said)

    def _reads(self, program: str, flag: str) -> bool:
        """The program reads the option's value (`args.factor` for `--factor`)."""
        dest = flag.lstrip("-").replace("-", "_")
        try:
            text = self.search.text(program)
        except (OSError, ValueError):
            return False
        return bool(re.search(rf"\.{re.escape(dest)}\b(?!\s*=[^=])", text))


def positional(e: EntryPoint | None) -> list[str]:
    """Placeholders for the entry point's positional arguments: `<CONFIG>`."""
    return [f"<{f.name.upper()}>" for f in (e.flags if e else []) if not f.name.startswith("-")]


def _few(flags: list[str]) -> str:
    """Up to six flags, the rest elided."""
    return ", ".join(flags[:6]) + (", …" if len(flags) > 6 else "")


def _chain(node: ast.If, dest: str) -> list[tuple[str | None, list[ast.stmt]]]:
    """An `if`/`elif`/`else` chain testing one option against strings (`args.algo ==
    "textgrad"`), each branch by the value it takes (None for the last `else`); [] when
    its first test is no such test."""
    out: list[tuple[str | None, list[ast.stmt]]] = []
    current: ast.If | None = node
    while current is not None:
        tested = attribute_equals(current.test)
        if tested is None or tested[0].attr != dest or not isinstance(tested[1], str):
            break
        out.append((tested[1], current.body))
        rest = current.orelse
        if len(rest) == 1 and isinstance(rest[0], ast.If):
            current = rest[0]
            continue
        if rest:
            out.append((None, rest))
        current = None
    return out
