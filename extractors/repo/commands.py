"""Commands written in READMEs, docs and launch scripts, and the repo files they run.

The README's `python train.py --lr 1e-3` and `scripts/etth1.sh` are how the authors ran their
experiments; linking each command to the file it executes is what lets the setup agent go
from "the ETTh1 experiment" to the right script and entry point.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from expcurate.records import CliFlag, DocCommand, EntryPoint

_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PREFIXES = {
    "nohup", "time", "nice", "exec", "sudo", "command", "do", "then", "else", "env", "{", "(",
}  # fmt: skip
_PREFIX_OPTION = re.compile(r"^-(?:n|-adjustment=?)?-?\d*$")  # `nice -n 10`, `nice -5`
_PY = re.compile(r"^(?:\S*/)?python[\d.]*$")
_SHELLS = {"bash", "sh", "zsh", "source", "."}
_LAUNCHERS = {"torchrun", "deepspeed", "accelerate"}
_WRAPPERS = {"srun", "sbatch", "mpirun", "horovodrun", "xargs", "parallel"}
_DIST_MODULES = {"torch.distributed.launch", "torch.distributed.run", "accelerate.commands.launch"}
_REDIRECT = re.compile(r"^\d*[<>]|^&>|^\|")
# a shell asked to run a Python file: `bash tools/get_flops.py ...`
_SHELL_ON_PY = re.compile(r"^(\s*(?:[A-Za-z_]\w*=\S*\s+)*)(?:ba|z)?sh\s+(\S+\.py)\b")
# commands that prepare an environment or fetch data, and the scripts that do
_SETUP_WORDS = re.compile(
    r"(?:^|[\s;&|(])(?:pip3?|conda|mamba|git|wget|curl|mkdir|apt(?:-get)?|brew|docker|unzip"
    r"|tar|ln|cp|mv|rm|chmod|export|source|gdown|huggingface-cli|make|cmake|npm|yarn)\s",
)
_SETUP_TARGET = re.compile(
    r"(?:^|/)(?:setup|install|download|get_data|fetch|prepare_env|env|build_ext)[^/]*\.(?:py|sh)$",
    re.I,
)
# a shell prompt before a documented command: `$ `, `~$ `, `user@host:~/src$ `, `(env) $ `,
# `> `, `% `, `! `
_PROMPT = re.compile(r"^(?:\([\w.-]+\)\s*)?(?:[\w.-]+@[\w.-]+:)?(?:~[\w/.-]*)?\s*[$>%!]\s*")
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE = re.compile(r"`([^`\n]{6,400})`")
_CMD_HINT = re.compile(
    r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:(?:nohup|time|nice(?:\s+-n\s*-?\d+|\s+-\d+)?)\s+)*"
    r"(?:(?:\S*/)?python[\d.]*\s|torchrun\s|deepspeed\s|accelerate\s+launch\s|bash\s|sh\s|zsh\s"
    r"|sbatch\s|srun\s|cd\s|\./\S+|\S+\.sh\b)"
)
_SHELL_ASSIGN = re.compile(
    r"^\s*(?:export\s+)?([A-Za-z_]\w*)=('[^']*'|\"[^\"$]*\"|[^\s;$`]*)\s*;?\s*$"
)
_SHELL_VAR = re.compile(r"\$\{(\w+)\}|\$([A-Za-z_]\w*)")
# prose pointing at a file ("please refer to `./medalpaca/train.py`"): a path it names, no
# command it runs, unless the span holds arguments
_REFERENCE = re.compile(
    r"\b(?:refer\s+to|see|check|edit|modify|change|in|at|under|from|of)$", re.IGNORECASE
)
# a value documented as a list of choices, `--model {gpt-3.5, gpt-4}` or `[cifar10 | cifar100]`
_CHOICE_LIST = re.compile(r"(?<![$\w])([{\[])\s*([\w.+-]+(?:\s*[,|]\s*[\w.+-]+)+)\s*([}\]])")
_PY_CMD = re.compile(r"^(?:\S+=\S*\s+)*(?:python|torchrun|deepspeed|accelerate)")
_DOC_TRIGGER = re.compile(r"python|torchrun|deepspeed|accelerate|bash|\bsh\b|\.sh\b|\.py\b")


_SCRIPT_EXTS = (".py", ".sh")
# file names so common that a bare one in a document may name another project's file
_COMMON_NAMES = frozenset(
    f"{stem}.py"
    for stem in [
        "setup",
        "main",
        "train",
        "test",
        "run",
        "eval",
        "evaluate",
        "demo",
        "app",
        "inference",
        "predict",
        "utils",
        "util",
        "config",
        "configs",
        "__init__",
        "__main__",
        "manage",
        "server",
        "client",
        "download",
    ]
) | frozenset({"install.sh", "run.sh", "train.sh", "test.sh", "setup.sh", "download.sh"})


class PathResolver:
    """Maps a path or module as written in a command to a file of the repository."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = set(paths)
        self._by_name: dict[str, list[str]] = defaultdict(list)
        self._parts: set[str] = set()
        self._modules: dict[tuple[str, tuple[str, ...]], str | None] = {}
        for p in sorted(self.paths):
            self._by_name[p.rsplit("/", 1)[-1]].append(p)
            for part in p.split("/"):
                self._parts.add(part.rsplit(".", 1)[0] if part.endswith(".py") else part)

    def file(self, token: str, bases: Iterable[str]) -> str | None:
        token = token.strip("'\"")
        # `$ROOT/train.py`, `$(dirname "$0")/train.py`: drop the unknown prefix, try from the bases
        token = re.sub(r"^(?:\$\{?\w+\}?/)+", "", token)
        token = re.sub(r"^.*\$\S*?[)}]/", "", token)
        if not token or "$" in token.rsplit("/", 1)[-1] or token.startswith("-"):
            return None
        for base in bases:
            cand = (
                posixpath.normpath(posixpath.join(base, token))
                if base
                else posixpath.normpath(token)
            )
            if cand in self.paths:
                return cand
        # Fall back on a unique file whose path ends like the token (docs often omit a prefix).
        clean = posixpath.normpath(token).lstrip("./")
        if "/" in clean or (clean.endswith(_SCRIPT_EXTS) and clean not in _COMMON_NAMES):
            # a bare name the repository holds once (`python eval_pass_rate.py` in a README
            # section written from toolbench/tooleval/); a common one (setup.py, train.py)
            # may be another project's
            hits = [p for p in self._by_name.get(clean.rsplit("/", 1)[-1], []) if p.endswith(clean)]
            if len(hits) == 1:
                return hits[0]
        return None

    def ours(self, name: str) -> bool:
        """A dotted name begins with a folder or module of the repository (`src.start_task`),
        not an installed package's (`pytest`), whether or not the rest resolves."""
        return name.split(".", 1)[0] in self._parts

    def module(self, name: str, bases: Iterable[str]) -> str | None:
        # Most imports are of installed packages (os, torch): reject those in one lookup.
        if not self.ours(name):
            return None
        key = (name, tuple(bases))
        if key not in self._modules:
            self._modules[key] = self._module(name, key[1])
        return self._modules[key]

    def _module(self, name: str, bases: tuple[str, ...]) -> str | None:
        rel = name.replace(".", "/")
        for base in [*bases, "src"]:
            for cand in (f"{rel}.py", f"{rel}/__main__.py", f"{rel}/__init__.py"):
                full = posixpath.normpath(posixpath.join(base, cand)) if base else cand
                if full in self.paths:
                    return full
        return None


def split_words(command: str) -> list[str]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = ""
        return list(lexer)
    except ValueError:  # unbalanced quotes: fall back on whitespace
        return command.split()


def segments(words: list[str]) -> Iterator[list[str]]:
    seg: list[str] = []
    for w in words:
        if w and set(w) <= set(";&|"):
            if seg:
                yield seg
            seg = []
        else:
            seg.append(w)
    if seg:
        yield seg


@dataclass
class Parsed:
    """What one command line does in repository terms."""

    runs: list[str] = field(default_factory=list)  # repo files it executes
    flags: list[tuple[str, str]] = field(default_factory=list)  # --name value pairs passed
    mentions: list[str] = field(default_factory=list)  # other repo files named (configs...)
    cwd: str = ""  # directory a `cd` moved to, relative to the repository root


def parse_command(
    command: str, resolver: PathResolver, base: str, cwd: str | None = None
) -> Parsed:
    """Parse a command line written in a doc or script found in directory `base`.

    `cwd` is the directory a preceding `cd` moved to (relative to the repository root).
    """
    out = Parsed()
    for seg in segments(split_words(command)):
        while seg and (_ENV_ASSIGN.match(seg[0]) or seg[0] in _PREFIXES):
            prefix, seg = seg[0], seg[1:]
            while prefix == "nice" and seg and (_PREFIX_OPTION.match(seg[0]) or seg[0].isdigit()):
                seg = seg[1:]  # its niceness: `nice -n 10 python ...`
        if not seg:
            continue
        head, rest = seg[0], seg[1:]
        bases = [b for b in (cwd, base, *_ancestors(base), "") if b is not None]
        if head == "cd":
            where = rest[0] if rest else ""
            if where and not where.startswith(("$", "~", "/")):
                cwd = posixpath.normpath(posixpath.join(cwd or base, where))
                cwd = "" if cwd == "." else cwd
            continue
        target, args = _target(head, rest)
        if target is None:
            continue
        kind, name = target
        hit = resolver.module(name, bases) if kind == "module" else resolver.file(name, bases)
        if hit:
            out.runs.append(hit)
            out.flags.extend(_flag_pairs(args))
            for word in args:
                if _REDIRECT.match(word):
                    break  # what follows `>` is where output goes, not an input
                value = word.split("=", 1)[-1]
                if "/" in value or "." in value:
                    ref = resolver.file(value, bases)
                    if ref and ref != hit and ref not in out.mentions:
                        out.mentions.append(ref)
    out.cwd = cwd or ""
    return out


def _ancestors(folder: str) -> list[str]:
    """The folders above `folder`, nearest first, the root left out: a sub-project's launch
    script (`Formers/FEDformer/scripts/LongForecasting.sh`) runs from the project's folder
    (`python -u run.py` is `Formers/FEDformer/run.py`), as its README has the user `cd`."""
    out: list[str] = []
    while "/" in folder:
        folder = folder.rsplit("/", 1)[0]
        out.append(folder)
    return out


def run_folder(script: str, program: str, known: set[str]) -> str | None:
    """The folder a launch script's `program` is found from, in the order mining reads it:
    the script's own, the nearest above it, else the top (""); None when it is nowhere."""
    folder = posixpath.dirname(script)
    for base in dict.fromkeys([folder, *_ancestors(folder), ""]):
        if posixpath.normpath(posixpath.join(base, program.removeprefix("./"))) in known:
            return base
    return None


def _target(head: str, rest: list[str]) -> tuple[tuple[str, str] | None, list[str]]:
    """(("file"|"module", name), remaining args) for the program a command segment runs."""
    if _PY.match(head):
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            if rest[i] == "-m" and i + 1 < len(rest):
                module = rest[i + 1]
                if module in _DIST_MODULES:
                    return _first_py(rest[i + 2 :])
                return ("module", module), rest[i + 2 :]
            i += 2 if rest[i] in ("-W", "-X") else 1
        return (("file", rest[i]), rest[i + 1 :]) if i < len(rest) else (None, [])
    if head in _LAUNCHERS:
        return _first_py(rest)
    if head in _WRAPPERS:  # their own options vary; find the program they wrap
        for i, w in enumerate(rest):
            if _PY.match(w) or w in _LAUNCHERS or w in _SHELLS or w.endswith((".sh", ".py")):
                return _target(w, rest[i + 1 :])
        return None, []
    if head in _SHELLS:
        args = [a for a in rest if not a.startswith("-")]
        return (("file", args[0]), rest[rest.index(args[0]) + 1 :]) if args else (None, [])
    if head.endswith((".sh", ".py")):
        return ("file", head), rest
    return None, []


def _first_py(words: list[str]) -> tuple[tuple[str, str] | None, list[str]]:
    for i, w in enumerate(words):
        if w in ("-m", "--module") and i + 1 < len(words):
            return ("module", words[i + 1]), words[i + 2 :]
        if w.endswith(".py"):
            return ("file", w), words[i + 1 :]
    return None, []


def _flag_pairs(args: list[str]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        a = args[i]
        if _REDIRECT.match(a):
            break
        if a.startswith("-") and len(a) > 1 and not a[1:2].isdigit():
            if "=" in a:
                name, value = a.split("=", 1)
                pairs.append((name, value))
            elif i + 1 < len(args) and not args[i + 1].startswith("-"):
                pairs.append((a, args[i + 1]))
                i += 1
            else:
                pairs.append((a, "True"))
        elif "=" in a and not a.startswith("="):  # hydra-style key=value overrides
            name, value = a.split("=", 1)
            pairs.append((name, value))
        i += 1
    return pairs


# ------------------------------------------------------------------ docs


def _logical_lines(lines: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """Join backslash continuations; yields (first line number, joined text)."""
    buf: list[str] = []
    start = 0
    for no, line in lines:
        if not buf:
            start = no
        stripped = _strip_comment(line).rstrip()  # "--flag x \\  # note" still continues
        if stripped.endswith("\\"):
            buf.append(stripped[:-1].strip())
            continue
        buf.append(stripped.strip())
        yield start, " ".join(b for b in buf if b)
        buf = []
    if buf:
        yield start, " ".join(b for b in buf if b)


def _doc_blocks(text: str, is_markdown: bool) -> Iterator[list[tuple[int, str]]]:
    """Code blocks of a doc: fenced, indented, `$ ` prompts and (markdown) inline code."""
    lines = text.splitlines()
    fence: str | None = None
    block: list[tuple[int, str]] = []
    for no, line in enumerate(lines, start=1):
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(1) == fence:
                yield block
                fence, block = None, []
            else:
                block.append((no, line))
            continue
        if m:
            fence, block = m.group(1), []
            continue
        stripped = line.strip()
        # reStructuredText indents literal blocks by any amount (often 3 spaces)
        indent = ("    ", "\t") if is_markdown else ("  ", "\t")
        if stripped.startswith("$ ") or line.startswith(indent):
            block.append((no, stripped))
            continue
        quoted = stripped.lstrip(">").strip()
        if is_markdown and stripped.startswith(">") and _CMD_HINT.match(quoted):
            block.append((no, quoted))  # a command quoted as "> python train.py"
            continue
        if block:
            yield block
            block = []
        if is_markdown:
            for m in _INLINE.finditer(line):
                # "see `python x.py --y`" holds arguments: a command all the same
                pointed = _REFERENCE.search(line[: m.start()].rstrip("`").rstrip())
                if not pointed or " " in m.group(1).strip():
                    yield [(no, m.group(1))]
    if block:
        yield block


_LOOP = re.compile(r"^for\s+([A-Za-z_]\w*)\s+in\s+([^;]+?)\s*(?:;\s*do)?\s*$")
_LOOPED = re.compile(r"^for\s+(\w+)\s+in\s+[^;]*;\s*do\s+(.*?);\s*done$")


def joined_choices(command: str) -> str:
    """A command whose option value is a documented list of choices, with the list written as
    one word (`--model {gpt-3.5,gpt-4,gemini-pro}`, `[a | b]` as `[a,b]`), so that it reads as
    that option's value."""

    def join(m: re.Match[str]) -> str:
        if {m.group(1), m.group(3)} not in ({"{", "}"}, {"[", "]"}):
            return m.group(0)
        items = [x.strip() for x in re.split(r"[,|]", m.group(2))]
        return m.group(1) + ",".join(items) + m.group(3)  # a shell reads `|` as a pipe

    return _CHOICE_LIST.sub(join, command)


def listed_choices(value: str) -> list[str]:
    """The choices of a value `joined_choices` wrote (`{gpt-3.5,gpt-4}`), else none."""
    m = re.fullmatch(r"\{([^{}]+)\}|\[([^\[\]]+)\]", value.strip())
    if m is None:
        return []
    items = (m.group(1) or m.group(2)).split(",")
    return [x for x in items if x] if len(items) >= 2 else []


def documented_choices(command: str) -> dict[str, list[str]]:
    """The options a documented command gives a list of choices (`--model {gpt-3.5,gpt-4}`),
    by option name."""
    return {
        name: choices
        for name, value in _flag_pairs(split_words(command))
        if name.startswith("-") and (choices := listed_choices(value))
    }


def looped(variable: str, values: str, body: str) -> str:
    """A documented command run once per value of a loop, as one line."""
    return f"for {variable} in {values}; do {body}; done"


def loop_of(command: str) -> tuple[str, str] | None:
    """The variable and the body of a command written by `looped`, or None."""
    m = _LOOPED.match(command)
    return (m.group(1), m.group(2)) if m else None


def doc_commands(
    doc: str, text: str, resolver: PathResolver, refs: dict[str, list[str]]
) -> list[DocCommand]:
    """Commands of one doc; files they pass to what they run are added to `refs[target]`."""
    if not _DOC_TRIGGER.search(text):
        return []
    base = posixpath.dirname(doc)
    out: list[DocCommand] = []
    carried: str | None = None  # where an earlier block's `cd` left the reader's shell
    for block in _doc_blocks(text, doc.lower().endswith(".md")):
        cwd: str | None = None
        loop: tuple[str, str] | None = None  # `for dout in texture svhn` around the commands
        for no, line in _logical_lines(block):
            cmd = _PROMPT.sub("", _strip_comment(line).strip())
            if m := _LOOP.match(cmd):
                loop = (m.group(1), " ".join(m.group(2).split()))
                continue
            if re.fullmatch(r"done;?", cmd):
                loop = None
                continue
            cmd = joined_choices(re.sub(r"^do\s+", "", cmd))
            if not _CMD_HINT.match(cmd):
                continue
            parsed = parse_command(cmd, resolver, base, cwd)
            if not parsed.runs and cwd is None and carried and _PY_CMD.match(cmd):
                # `cd evaluate` in one block, `python evaluate.py` in the next: the README is
                # one shell session, read from where it last moved
                moved = parse_command(cmd, resolver, base, carried)
                parsed = moved if moved.runs else parsed
            cwd = parsed.cwd or cwd
            if parsed.runs and cwd:
                carried = cwd  # a folder some command ran from
            if parsed.runs or _PY_CMD.match(cmd):
                flat = _kept(cmd)
                if loop and re.search(rf"\$\{{?{loop[0]}\b", flat):  # it runs once per value
                    flat = looped(*loop, flat)
                out.append(DocCommand(text=flat, doc=doc, line=no, runs=parsed.runs))
                for target in parsed.runs:
                    refs.setdefault(target, []).extend(parsed.mentions)
    return out


# a documented command is kept whole: a training command with thirty options runs past 600
# characters (ToolBench's `torchrun ... train_mem.py`), and one cut inside a word or a quoted
# value no longer runs. Only a runaway (a whole script on one line) is cut, between words.
MAX_COMMAND_CHARS = 4000


def _kept(cmd: str) -> str:
    """The command on one line, whole unless it runs past `MAX_COMMAND_CHARS`."""
    flat = " ".join(cmd.split())
    return flat if len(flat) <= MAX_COMMAND_CHARS else flat[:MAX_COMMAND_CHARS].rsplit(" ", 1)[0]


def notebook_commands(
    path: str, lines: list[tuple[int, str]], resolver: PathResolver, refs: dict[str, list[str]]
) -> list[DocCommand]:
    """Commands in a notebook's cells: `!python x.py` in code, `python x.py` in markdown."""
    base = posixpath.dirname(path)
    out: list[DocCommand] = []
    for no, line in _logical_lines(lines):
        cmd = line.strip().strip("`").strip()
        cmd = re.sub(r"^%run\s+", "python ", cmd)
        cmd = re.sub(r"^(?:\$|!|%%?\w*\s)\s*", "", cmd)
        if not _CMD_HINT.match(cmd):
            continue
        parsed = parse_command(cmd, resolver, base)
        if parsed.runs:
            out.append(DocCommand(text=_kept(cmd), doc=path, line=no, runs=parsed.runs))
            for target in parsed.runs:
                refs.setdefault(target, []).extend(parsed.mentions)
    return out


# ------------------------------------------------------------------ shell scripts


def shell_entry(path: str, text: str, resolver: PathResolver) -> tuple[EntryPoint, list[str]]:
    """A launch script: the repo files it runs, the flags it passes, the files it names."""
    mentions: list[str] = []
    base = posixpath.dirname(path)
    calls: list[str] = []
    flags: list[CliFlag] = []
    seen: set[str] = set()
    first = 0
    cwd: str | None = None
    raw = [(no, _strip_comment(ln)) for no, ln in enumerate(text.splitlines(), start=1)]
    variables: dict[str, str] = {}
    for no, line in _logical_lines(raw):
        if not line:
            continue
        assign = _SHELL_ASSIGN.match(line)
        if assign:
            variables[assign.group(1)] = assign.group(2).strip("'\"")
            continue
        line = _substitute(line, variables)
        parsed = parse_command(line, resolver, base, cwd)
        cwd = parsed.cwd or cwd
        for r in parsed.runs:
            if r != path and r not in calls:
                calls.append(r)
            first = first or no
        for ref in parsed.mentions:
            if ref not in mentions:
                mentions.append(ref)
        for name, value in parsed.flags:
            if name not in seen:
                seen.add(name)
                flags.append(CliFlag(name=name, default=value[:200], line=no))
    entry = EntryPoint(path=path, kind="shell", flags=flags, line=first or 1, calls=calls)
    return entry, mentions


def python_entry(target: str, entries: Mapping[str, EntryPoint]) -> str | None:
    """The Python file a command ends up running: the target itself, or the first Python file
    its launch scripts call, breadth first."""
    if target.endswith(".py"):
        return target
    todo, seen = [target], {target}
    while todo:
        entry = entries.get(todo.pop(0))
        for callee in entry.calls if entry else []:
            if callee.endswith(".py"):
                return callee
            if callee not in seen:
                seen.add(callee)
                todo.append(callee)
    return None


def _substitute(line: str, variables: dict[str, str]) -> str:
    """Expand `$name` / `${name}` for variables the script set to a plain value."""

    def repl(m: re.Match[str]) -> str:
        return variables.get(m.group(1) or m.group(2), m.group(0))

    return _SHELL_VAR.sub(repl, line) if variables else line


def _strip_comment(line: str) -> str:
    s = line.strip()
    if s.startswith("#"):
        return ""
    cut = re.search(r"\s#", line)
    return line[: cut.start()] if cut else line


# ---------------------------------------------------------------- checking a command

_SCRIPT = re.compile(r"\.(py|sh|ipynb)$")
_CHECKED_KINDS = {"argparse", "click", "typer"}  # parsers whose flags the miner sees in full
_NUMBERED = re.compile(r"^\s*(?:\d+[.)]|[-*])\s+")


def command_lines(usage: str) -> list[str]:
    """The shell commands in usage instructions: whole lines that are commands, and commands
    quoted in backticks inside numbered prose ("2. Train: `python train.py --lr 0.1`")."""
    out: list[str] = []
    for line in usage.splitlines():
        quoted = [m.group(1).strip() for m in _INLINE.finditer(line)]
        found = [c for c in quoted if _CMD_HINT.match(c)]
        if found:
            out += found
            continue
        bare = _NUMBERED.sub("", line).strip()
        if _CMD_HINT.match(bare):
            out.append(bare)
    return out


def check_command(
    line: str, known: set[str], entries: dict[str, EntryPoint]
) -> tuple[str, list[str]]:
    """(a script the command runs that does not exist, flags its parser does not define)."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return "", []
    cwd = ""
    missing = ""
    unknown: list[str] = []
    segment: list[str] = []
    for word in [*words, "&&"]:
        if word not in ("&&", ";", "||", "|"):
            segment.append(word)
            continue
        if len(segment) >= 2 and segment[0] == "cd":
            cwd = posixpath.normpath(posixpath.join(cwd, segment[1]))
        else:
            gone, bad = _check_segment(segment, cwd, known, entries)
            missing = missing or gone
            unknown += bad
        segment = []
    return missing, unknown


def _check_segment(
    segment: list[str], cwd: str, known: set[str], entries: dict[str, EntryPoint]
) -> tuple[str, list[str]]:
    for k, word in enumerate(segment):
        if not _SCRIPT.search(word) or set(word) & set("$*{}[]<>") or word.startswith("-"):
            continue
        if "=" in word or (k and segment[k - 1].startswith("--")):
            return "", []  # a value of an option (--config x.py), not the program run
        path = posixpath.normpath(posixpath.join(cwd, word.removeprefix("./")))
        if path.startswith("../") or path.startswith("/"):
            return "", []
        if path not in known:
            return word, []
        entry = entries.get(path)
        if entry is None or entry.kind not in _CHECKED_KINDS:
            return "", []
        defined = {n for f in entry.flags for n in (f.name, *f.aliases) if n.startswith("--")}
        if not defined or entry.open_options:
            return "", []
        bad = []
        for arg in segment[k + 1 :]:
            name = arg.split("=", 1)[0]
            if not name.startswith("--") or len(name) <= 2 or name in defined or "$" in name:
                continue
            # argparse accepts an unambiguous prefix of a flag
            if entry.kind == "argparse" and any(d.startswith(name) for d in defined):
                continue
            shown = ", ".join(sorted(defined)[:20])
            bad.append(f"{name} is not a flag of {path} (its flags: {shown})")
        return "", bad
    return "", []


def sets_up(cmd: DocCommand) -> bool:
    """A documented command that prepares an environment or fetches data (`pip install`,
    `git clone`, `python setup.py develop`, `bash download.sh`): nothing a paper's user runs
    as an experiment."""
    return bool(_SETUP_WORDS.search(" " + cmd.text)) or any(
        _SETUP_TARGET.search(r) for r in cmd.runs
    )


# prose offering a command as a check of the set-up, not as an experiment
_CHECKS = re.compile(
    r"\bto (?:check|verify|test|confirm|make sure|ensure) (?:if|whether|that)\b[^.!?]{0,60}?"
    r"\b(?:configured|installed|set up|working|works|correctly|properly)\b",
    re.I,
)
_CHECK_LINES = 8  # how far above a command its document's prose is read


def only_checks(cmd: DocCommand, lines: list[str]) -> bool:
    """A documented command its document offers as a check of the set-up ("You can try
    `python -m src.client.agent_test` to check if your agent is configured correctly"), said on
    its own line or in the prose above it, up to the heading it is under."""
    text: list[str] = []
    for n in range(cmd.line, max(0, cmd.line - _CHECK_LINES), -1):
        line = lines[n - 1] if n <= len(lines) else ""
        if line.lstrip().startswith("#") and not line.lstrip().startswith("#!"):
            break
        text.insert(0, line.strip())
    return bool(_CHECKS.search(" ".join(text)))


_DOC_VAR = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*)((?:-[A-Za-z]\w*)*))")
_ENVIRONMENT = {"HOME", "PWD", "USER", "PATH", "PYTHONPATH", "CUDA_VISIBLE_DEVICES", "TMPDIR"}


def named_placeholders(text: str) -> str:
    """A documented command's shell variables that nothing in it sets, written as the
    placeholders they are for the reader (`--dout $dout` -> `--dout <DOUT>`, `--device
    $gpu-id`, which a shell would read as `$gpu` then `-id`, -> `<GPU_ID>`); the machine's
    own (`$HOME`, `$CUDA_VISIBLE_DEVICES`) and those the command sets or loops over stay."""
    own = set(re.findall(r"(?:^|[\s;&|(])([A-Za-z_]\w*)=", text))
    own |= set(re.findall(r"\bfor\s+([A-Za-z_]\w*)\s+in\b", text))

    def name(m: re.Match[str]) -> str:
        var = m.group(1) or m.group(2)
        if var in own or var in _ENVIRONMENT:
            return m.group(0)
        return f"<{(var + (m.group(3) or '')).replace('-', '_').upper()}>"

    return _DOC_VAR.sub(name, text)


_OWN_CD = re.compile(r"cd\s+[^\s;&|$`]+\s*&&\s*")


def doc_order(c: DocCommand) -> tuple[int, int, str, int]:
    """Documented commands in reading order: a top-level README first (`README.md` before a
    translation, `README_ZH.md`), then the documents by folder depth and name, each by line."""
    top_readme = "/" not in c.doc and c.doc.lower().startswith("readme")
    return (0 if top_readme else 1, c.doc.count("/"), c.doc, c.line)


def run_from(cmd: DocCommand, known: set[str]) -> str:
    """A documented command with the `cd` it needs: to the document's folder when its scripts
    are there, to none when they are at the root (a `docs/` page written from the root), else
    to the folder of the file it runs (the README said `cd src` in prose). A Python file the
    document runs with a shell (`bash tools/get_flops.py`, a slip) runs with Python, and the
    shell variables nothing sets are named placeholders (`named_placeholders`). A command
    that moves itself first (`cd demo && python image_demo.py`) is given the `cd` its script
    needs in place of its own when its script is found, never a second one."""
    own_cd = _OWN_CD.match(cmd.text)
    found = None
    if own_cd and cmd.runs:  # its scripts found without its own `cd`, else the `cd` stays
        found = _found_from(cmd.model_copy(update={"text": cmd.text[own_cd.end() :]}), known)
    folder, text = found or _found_from(cmd, known) or (_home(cmd), _plain(cmd.text))
    return f"cd {shlex.quote(folder)} && {text}" if folder else text


def _home(cmd: DocCommand) -> str:
    """Where a documented command runs when its scripts are found nowhere: the document's
    folder; a notebook's commands are written from the root."""
    return "" if cmd.doc.endswith(".ipynb") else posixpath.dirname(cmd.doc)


def _plain(text: str) -> str:
    """A documented command as it runs: Python with Python, placeholders named."""
    return named_placeholders(_SHELL_ON_PY.sub(r"\1python \2", text))


def _found_from(cmd: DocCommand, known: set[str]) -> tuple[str, str] | None:
    """The folder a documented command's scripts are found from, and the command; None when
    they are found from none of the folders it may be written from."""
    text = _plain(cmd.text)
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        words = text.split()
    scripts = [
        w
        for w in words
        if _SCRIPT.search(w) and not w.startswith("-") and not set(w) & set("$*{}<>=")
    ]
    # a notebook's commands are often written from the root: its own folder comes second
    home = posixpath.dirname(cmd.doc)
    folders = ["", home] if cmd.doc.endswith(".ipynb") else [home, ""]
    folders += [posixpath.dirname(r) for r in cmd.runs]
    # the folder the script's written path is relative to (`python util/evaluate_mme.py` in
    # `x/docs/eval.md`, which runs `x/util/evaluate_mme.py`: from `x`)
    folders += [
        r[: -len(w.removeprefix("./")) - 1]
        for r in cmd.runs
        for w in scripts
        if r.endswith("/" + w.removeprefix("./"))
    ]
    for folder in dict.fromkeys(folders):
        if scripts and all(
            posixpath.normpath(posixpath.join(folder, w.removeprefix("./"))) in known
            for w in scripts
        ):
            return folder, text
    return None
