"""What Python files say about how a repository is run, read from the AST (never by regex).

Regexes mistake comments, strings and dead code for entry points; the AST knows a real
`if __name__ == "__main__"` from a docstring that mentions one.
"""

from __future__ import annotations

import ast
import re
import threading
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from expcurate.records import CliFlag, EntryPoint

# Most specific first: a hydra app usually also has a main guard.
_KIND_ORDER = ("hydra", "click", "typer", "fire", "absl", "argparse", "main", "script")
# Module-level calls that libraries make too; they do not make a file a script.
_SETUP_CALLS = {
    "sys",
    "os",
    "logging",
    "warnings",
    "torch",
    "np",
    "numpy",
    "random",
    "matplotlib",
    "plt",
    "load_dotenv",
    "getLogger",
    "basicConfig",
    "filterwarnings",
    "seed",
    "manual_seed",
    "TypeVar",
    "namedtuple",
    "NewType",
    "register",
    "setLevel",
    "setFormatter",  # a logger's handlers, made and attached at import time
    "addHandler",
    "append",
    "insert",
    "use",
    "ArgumentParser",
    "add_argument",
    "set_defaults",
    "dataclass",
    "field",
    "Path",
    "getenv",
}
_NOT_CONFIG_NAMES = {"__init__.py", "setup.py", "conftest.py", "__main__.py"}
MAX_CONFIG_KEYS = 2000
MAX_TESTED = 12  # the values kept of those code tests an attribute for
_PATH_HINT = re.compile(r"\.(?:ya?ml|json|toml|cfg|ini|sh|py)\b")
_CLI_HINT = re.compile(r"add_argument|ArgumentParser|Fire\b|typer|click|hydra|DEFINE_")
# an attribute compared with a string, or matched against one
_TEST_HINT = re.compile(r"""\.\w+\s*(?:==|!=|\bin\b)\s*[(\[{]?\s*['"]|\bmatch\s+[\w.]+\s*:""")


class ImportRef(NamedTuple):
    """One imported module as written: `from ..a import b` is ("a", 2, ("b",))."""

    module: str
    level: int
    names: tuple[str, ...]


class OutlineItem(NamedTuple):
    kind: str  # "class" | "function" | "method"
    name: str  # qualified: Class.method
    start: int
    end: int
    doc: str  # first line of the docstring


@dataclass
class PyInfo:
    entry: EntryPoint | None = None
    imports: list[ImportRef] = field(default_factory=list)
    config: dict[str, str] | None = None
    paths: list[str] = field(default_factory=list)  # string literals that look like file paths
    # a config file whose keys the parser adds as options, as the code names it, and the line
    # that adds them: `for k, v in yaml_config_hook("config/config.yaml").items():
    # parser.add_argument(f"--{k}", default=v)`
    flags_from: tuple[str, int] | None = None
    # the strings code compares an attribute with, by the attribute's name (`args.algo ==
    # "trace"`, `match cfg.mode: case "full":`): the values of an option of that name
    tested: dict[str, list[str]] = field(default_factory=dict)
    # file paths the code builds from attributes (`f"config/{args.pattern}/{args.dataset}.yaml"`)
    # as (a regex over repository paths, the attribute each of its groups captures)
    # paths built from parsed options: (regex over repository paths, the options its groups
    # capture, the path as a template: `config/{pattern}/{dataset}.yaml`)
    path_patterns: list[tuple[str, tuple[str, ...], str]] = field(default_factory=list)
    error: str = ""


_AST_ATTEMPTS = 3
_AST_LOCK = threading.Lock()


def parse(text: str) -> ast.Module | None:
    """The module's syntax tree, or None. The compiler's warnings about the repository's code
    (invalid escapes, `1if x`) are not ours to print, nor to turn into errors.

    CPython 3.11 before 3.11.8 keeps the AST builder's recursion depth per interpreter, not per
    thread (python/cpython#106905): while another thread also parses (parse beside mine), a
    deep file can fail with "recursion depth mismatch". That is the interpreter's slip, not
    the file's, so it is tried again, and our own parses never overlap (one lock for the
    process: two papers mined in one process would otherwise collide every time).
    """
    for attempt in range(_AST_ATTEMPTS):
        try:
            with _AST_LOCK, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ast.parse(text)
        except SystemError:
            if attempt == _AST_ATTEMPTS - 1:
                return None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    return None


def syntax_error(text: str) -> tuple[int, str] | None:
    """Where and why Python cannot compile `text` (the line and the compiler's message:
    "unindent does not match any outer indentation level", "Missing parentheses in call to
    'print'"), or None when it compiles. A file too deep or too large to compile is no
    mistake of its own, so it is None too."""
    with _AST_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except SyntaxError as exc:  # IndentationError and TabError are SyntaxErrors
            return exc.lineno or 0, exc.msg
        except (SystemError, ValueError, RecursionError, MemoryError):
            return None
    return None


def import_refs(node: ast.Import | ast.ImportFrom) -> list[ImportRef]:
    """What an import statement imports: `import a.b` -> a.b; `from .m import f, g` -> m at
    level 1, names f and g."""
    if isinstance(node, ast.Import):
        return [ImportRef(a.name, 0, ()) for a in node.names]
    names = tuple(a.name for a in node.names if a.name != "*")
    return [ImportRef(node.module or "", node.level, names)]


def notebook_imports(lines: list[str]) -> list[ImportRef]:
    """The imports of a notebook's cells (`from opto import trace`), each line read on its
    own: a cell's magics (`%pip install`, `!ls`) or prose cannot hide them."""
    out: list[ImportRef] = []
    for line in lines:
        text = line.strip()
        if not text.startswith(("import ", "from ")):
            continue
        tree = parse(text)
        for node in tree.body if tree is not None else []:
            if isinstance(node, ast.Import | ast.ImportFrom):
                out += import_refs(node)
    return out


def analyze_python(path: str, text: str) -> PyInfo:
    tree = parse(text)
    if tree is None:
        return PyInfo(error="not parseable as Python 3 (syntax error)")
    info = PyInfo()
    kinds: set[str] = set()
    flags: list[CliFlag] = []
    main_line = parser_line = 0
    opened = False  # options beyond those it adds are accepted
    # Walking every expression is the slow part; only files that mention a CLI library need it.
    nodes = ast.walk(tree) if _CLI_HINT.search(text) else _statements(tree)
    tested: dict[str, list[str]] = {}  # `args.algo == "trace"`: the values code tests
    named: dict[str, list[str]] = {}  # `model == "gpt-4"`: the same, of a bare name
    for node in nodes:
        if isinstance(node, ast.Compare):
            _tested_values(node, tested)
            _tested_values(node, named, bare=True)
        elif isinstance(node, ast.Match):
            _matched_values(node, tested)
        elif isinstance(node, ast.JoinedStr):
            if (pattern := _path_pattern(node)) is not None and pattern not in info.path_patterns:
                info.path_patterns.append(pattern)
        elif isinstance(node, ast.If) and _is_main_guard(node.test):
            main_line = main_line or node.lineno
        elif isinstance(node, ast.For) and info.flags_from is None:
            info.flags_from = _options_from_config(node, tree)
        elif isinstance(node, ast.Call):
            opened = opened or callee_name(node.func) in _OPENING
            kind, flag = _call_signal(node)
            if kind:
                kinds.add(kind)
                parser_line = min(parser_line or node.lineno, node.lineno)
            if flag:
                flags.append(flag)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for kind, flag in _decorator_signals(node):
                kinds.add(kind)
                parser_line = min(parser_line or node.lineno, node.lineno)
                if flag:
                    flags.append(flag)
            flags.extend(_typer_params(node))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            info.imports.extend(import_refs(node))
    if main_line:
        kinds.add("main")
    config = None
    if path.rsplit("/", 1)[-1] not in _NOT_CONFIG_NAMES:
        config = python_config(tree)
    info.config = config
    if not _CLI_HINT.search(text) and _TEST_HINT.search(text):
        for node in ast.walk(tree):  # the values the module tests an attribute for
            if isinstance(node, ast.Compare):
                _tested_values(node, tested)
            elif isinstance(node, ast.Match):
                _matched_values(node, tested)
    info.tested = tested
    script_line = 0 if main_line or config is not None else _toplevel_code(tree)
    if script_line:
        kinds.add("script")
    if kinds:
        kind = next(k for k in _KIND_ORDER if k in kinds)
        runnable = bool(main_line or script_line) or kind in ("hydra", "fire")
        flags.sort(key=lambda f: f.line)
        flags = [with_tested(f, {**named, **tested}) for f in flags]
        info.entry = EntryPoint(
            path=path,
            kind=kind,
            flags=flags,
            line=main_line or script_line or parser_line,
            runnable=runnable,
            open_options=opened and bool(flags),
        )
    if _PATH_HINT.search(text):
        info.paths = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            and len(n.value) < 200
            and _PATH_HINT.search(n.value)
        ]
    return info


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """Every statement, however nested (imports and main guards are statements)."""
    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, name, None)
            if isinstance(children, list):
                stack.extend(reversed(children))


def _is_main_guard(test: ast.expr) -> bool:
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names and consts)


def _toplevel_code(tree: ast.Module) -> int:
    """Line of the first top-level statement that does work at import time, else 0.

    Scripts without a main guard (common in research code) run their experiment from module
    level: loops, `with` blocks, calls such as `args = config()` or `train()`. Setup calls
    (path tweaks, logging, seeds, warnings) do not count: libraries make them too.
    """
    work = 0
    first = 0
    for stmt in tree.body:
        value = stmt.value if isinstance(stmt, ast.Expr | ast.Assign) else None
        if isinstance(stmt, ast.For | ast.While | ast.With | ast.AsyncWith):
            hit = True
        elif isinstance(value, ast.Call):
            hit = (
                dotted_name(value.func).split(".")[0] not in _SETUP_CALLS
                and callee_name(value.func) not in _SETUP_CALLS
            )
        else:
            hit = False
        if hit:
            work += 1
            first = first or stmt.lineno
    return first if work >= 2 or (work and _parses_args(tree)) else 0


# a framework adding its options to the program's parser, or a parser keeping unknown ones
_OPENING = {"add_argparse_args", "add_model_specific_args", "parse_known_args"}


def _parses_args(tree: ast.Module) -> bool:
    return any(
        isinstance(n, ast.Call) and callee_name(n.func) in ("parse_args", "parse_known_args")
        for n in ast.walk(tree)
    )


def callee_name(func: ast.expr) -> str:
    """The name a call is made by: `f` of `f(x)` and of `obj.f(x)`."""
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def dotted_name(func: ast.expr) -> str:
    """The dotted name an expression is written as: `a.b.c`; of `f().g`, what follows the call."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _text(node: ast.expr | None) -> str:
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    try:
        return ast.unparse(node)
    except (ValueError, TypeError, RecursionError):
        return ""


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _flag_from_call(call: ast.Call, *, names_from: Sequence[ast.expr]) -> CliFlag | None:
    opts = [a.value for a in names_from if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not opts:
        return None
    longs = [o for o in opts if o.startswith("--")]
    name = (longs or opts)[0]
    default = _text(_kw(call, "default"))
    action = _text(_kw(call, "action"))
    if not default and action in ("store_true", "store_false"):
        default = "False" if action == "store_true" else "True"
    help_text = " ".join(_text(_kw(call, "help")).split())
    choices = _text(_kw(call, "choices"))
    if choices:
        help_text = f"{help_text} (choices: {choices})".strip()
    aliases = [o for o in opts if o != name]
    switch = action in ("store_true", "store_false", "store_const", "count") or (
        _text(_kw(call, "is_flag")) == "True"
    )
    return CliFlag(
        name=name,
        default=default,
        help=help_text[:300],
        line=call.lineno,
        aliases=aliases,
        switch=switch,
    )


_CONFIG_NAME = re.compile(r"[\w./-]+\.(?:ya?ml|json)$")


def _options_from_config(loop: ast.For, tree: ast.Module) -> tuple[str, int] | None:
    """The config file a loop adds as options, key by key, and the line adding them:
    `for k, v in config.items(): parser.add_argument(f"--{k}", default=v)`, where `config`
    is loaded from a file the code names (`yaml_config_hook("config/config.yaml")`)."""
    it = loop.iter
    if not (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Attribute)
        and it.func.attr == "items"
        and not it.args
    ):
        return None
    adds = [
        n
        for n in ast.walk(loop)
        if isinstance(n, ast.Call)
        and callee_name(n.func) == "add_argument"
        and n.args
        and not isinstance(n.args[0], ast.Constant)  # a name made from the key
    ]
    if not adds:
        return None
    source: ast.expr = it.func.value
    if isinstance(source, ast.Name):  # the name's last assignment before the loop
        name = source.id
        assigned = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign)
            and n.lineno < loop.lineno
            and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
        ]
        if not assigned:
            return None
        source = max(assigned, key=lambda n: n.lineno).value
    names = [
        n.value
        for n in ast.walk(source)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and _CONFIG_NAME.search(n.value.strip())
    ]
    return (names[0].strip(), adds[0].lineno) if len(names) == 1 else None


def _tested_values(node: ast.Compare, out: dict[str, list[str]], *, bare: bool = False) -> None:
    """Record the strings an attribute is compared with: `args.algo == "trace"`,
    `opt.mode in ("train", "eval")`, by the attribute's name; or with `bare`, the strings a
    plain name is compared with (`model == "gemini-pro"` in a function handed `args.model`),
    which count only for an option of the parser's own module named the same."""
    sides = [node.left, *node.comparators]
    if len(sides) != 2 or not isinstance(node.ops[0], ast.Eq | ast.NotEq | ast.In | ast.NotIn):
        return
    kind = ast.Name if bare else ast.Attribute
    attr = next((_name_of(x) for x in sides if isinstance(x, kind)), "")
    if not attr:
        return
    other = sides[1] if isinstance(sides[0], kind) else sides[0]
    items = other.elts if isinstance(other, ast.List | ast.Tuple | ast.Set) else [other]
    for item in items:
        if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value.strip():
            values = out.setdefault(attr, [])
            if item.value not in values and len(values) < MAX_TESTED:
                values.append(item.value)


def attribute_equals(test: ast.expr) -> tuple[ast.Attribute, object] | None:
    """The attribute and the constant of a test `x.attr == constant` (`args.algo ==
    "trace"`), else None."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.left, ast.Attribute)
        and isinstance(test.comparators[0], ast.Constant)
    ):
        return test.left, test.comparators[0].value
    return None


def _name_of(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _matched_values(node: ast.Match, out: dict[str, list[str]]) -> None:
    """Record the strings a `match` on an attribute tests: `match self.config.train_mode:`
    with `case 'base':`, `case 'full' | 'lora':`."""
    if not isinstance(node.subject, ast.Attribute):
        return
    values = out.setdefault(node.subject.attr, [])
    for case in node.cases:
        patterns = (
            case.pattern.patterns if isinstance(case.pattern, ast.MatchOr) else [case.pattern]
        )
        for p in patterns:
            if (
                isinstance(p, ast.MatchValue)
                and isinstance(p.value, ast.Constant)
                and isinstance(p.value.value, str)
                and p.value.value.strip()
                and p.value.value not in values
                and len(values) < MAX_TESTED
            ):
                values.append(p.value.value)
    if not values:
        del out[node.subject.attr]


def _path_pattern(node: ast.JoinedStr) -> tuple[str, tuple[str, ...], str] | None:
    """`f"config/{args.pattern}/{args.dataset}.yaml"` as a regex over repository paths whose
    groups capture the attributes' values (`pattern`, `dataset`), and as a template
    (`config/{pattern}/{dataset}.yaml`, "" when a part is no attribute); None for a string
    that is no file path of a folder or with an extension, or holds no attribute."""
    regex: list[str] = []
    attrs: list[str] = []
    text = ""
    template = ""
    whole = True
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            regex.append(re.escape(part.value))
            text += part.value
            template += part.value.replace("{", "{{").replace("}", "}}")
        elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Attribute):
            regex.append(r"([\w.+-]+?)")
            attrs.append(part.value.attr)
            template += "{" + part.value.attr + "}"
        else:
            regex.append(r"[^/]+?")
            whole = False
    if not attrs or "/" not in text or not re.search(r"\.[A-Za-z]\w{0,5}$", text):
        return None
    return "^(?:.*/)?" + "".join(regex) + "$", tuple(attrs), template if whole else ""


def with_files(flag: CliFlag, values: list[str]) -> CliFlag:
    """A flag without declared or tested values, with those the repository's files name for
    it (`config/2wl/Cora.yaml` for `f"config/{args.pattern}/{args.dataset}.yaml"`), as
    `(values its files name: ['Citeseer', 'Cora'])` in its help."""
    return _noted(flag, "values its files name", values[:MAX_TESTED], "(values the code tests")


def with_listed(flag: CliFlag, values: list[str]) -> CliFlag:
    """A flag with the choices a documented command lists for it, as `(values its docs list:
    ['gpt-3.5', 'gpt-4'])` in its help, unless its parser declares choices or a note has them."""
    return _noted(flag, "values its docs list", values[:MAX_TESTED], "(values its docs list")


def with_tested(flag: CliFlag, tested: dict[str, list[str]]) -> CliFlag:
    """A flag without declared choices, with the values its module's code tests it for, as
    `(values the code tests: ['textgrad', 'trace'])` in its help."""
    values = tested.get(flag.name.lstrip("-").replace("-", "_"), [])
    return _noted(flag, "values the code tests", values)


def _noted(flag: CliFlag, kind: str, values: list[str], unless: str = "") -> CliFlag:
    """The flag with `(kind: values)` at the end of its help (cut to 300 characters), unless
    it has no values to note, is a switch, or its help declares choices or holds `unless`."""
    if not values or flag.switch or "(choices:" in flag.help or (unless and unless in flag.help):
        return flag
    note = f"({kind}: {values!r})"
    return flag.model_copy(update={"help": f"{flag.help[: 300 - len(note) - 1]} {note}".strip()})


def _call_signal(call: ast.Call) -> tuple[str, CliFlag | None]:
    attr = callee_name(call.func)
    dotted = dotted_name(call.func)
    if attr == "add_argument":
        return "", _flag_from_call(call, names_from=list(call.args))
    if attr in ("ArgumentParser", "HfArgumentParser"):
        return "argparse", None
    if dotted in ("fire.Fire", "Fire"):
        return "fire", None
    if dotted in ("typer.Typer", "typer.run"):
        return "typer", None
    if dotted.startswith("flags.DEFINE_") or dotted.startswith("absl.flags.DEFINE_"):
        flag = None
        if call.args and isinstance(call.args[0], ast.Constant):
            default = _text(call.args[1]) if len(call.args) > 1 else _text(_kw(call, "default"))
            help_text = _text(call.args[2]) if len(call.args) > 2 else _text(_kw(call, "help"))
            flag = CliFlag(
                name=f"--{call.args[0].value!s}", default=default, help=help_text, line=call.lineno
            )
        return "absl", flag
    return "", None


def _decorator_signals(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
) -> list[tuple[str, CliFlag | None]]:
    out: list[tuple[str, CliFlag | None]] = []
    for dec in fn.decorator_list:
        call = dec if isinstance(dec, ast.Call) else None
        dotted = dotted_name(call.func if call else dec)
        if (
            dotted in ("hydra.main", "main")
            and call
            and (_kw(call, "config_name") or _kw(call, "config_path"))
        ):
            for key in ("config_path", "config_name"):
                value = _kw(call, key)
                if value is not None:
                    out.append(("hydra", CliFlag(name=key, default=_text(value), line=dec.lineno)))
        elif dotted in ("click.command", "click.group"):
            out.append(("click", None))
        elif dotted in ("click.option", "click.argument") and call:
            out.append(("click", _flag_from_call(call, names_from=list(call.args))))
    return out


def _typer_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[CliFlag]:
    """typer.Option(...) defaults name the CLI flags of a typer command."""
    flags: list[CliFlag] = []
    args = fn.args.args[len(fn.args.args) - len(fn.args.defaults) :]
    for arg, default in zip(args, fn.args.defaults, strict=False):
        if isinstance(default, ast.Call) and dotted_name(default.func) in (
            "typer.Option",
            "Option",
        ):
            names = [a for a in default.args[1:] if isinstance(a, ast.Constant)]
            flag = _flag_from_call(default, names_from=names) if names else None
            if flag is None:
                flag = CliFlag(name="--" + arg.arg.replace("_", "-"), line=default.lineno)
            flag.default = flag.default or (_text(default.args[0]) if default.args else "")
            flags.append(flag)
    return flags


# ------------------------------------------------------------------ outline


def outline(tree: ast.Module) -> list[OutlineItem]:
    """Classes and functions with their line ranges, methods qualified by their class."""
    items: list[OutlineItem] = []

    def visit(nodes: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                kind = "class"
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                kind = "method" if in_class else "function"
            else:
                continue
            doc = (ast.get_docstring(node) or "").strip().splitlines()
            name = f"{prefix}{node.name}"
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            end = node.end_lineno or node.lineno
            items.append(OutlineItem(kind, name, start, end, doc[0] if doc else ""))
            visit(node.body, name + ".", isinstance(node, ast.ClassDef))

    visit(tree.body, "", False)
    return items


# ------------------------------------------------------------------ python configs


class _NotLiteral(Exception):
    pass


def python_config(tree: ast.Module) -> dict[str, str] | None:
    """Flattened values of a config module (mostly assignments, e.g. mmcv style), else None."""
    body = [
        s
        for s in tree.body
        if not isinstance(s, ast.Import | ast.ImportFrom)
        and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    assigns = [s for s in body if isinstance(s, ast.Assign | ast.AnnAssign)]
    if len(assigns) < 2 or len(assigns) < 0.8 * len(body):
        return None
    if any(isinstance(s, ast.ClassDef) for s in body):
        return None
    if sum(isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) for s in body) > 1:
        return None
    env: dict[str, Any] = {}
    for stmt in assigns:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if stmt.value is None:
            continue
        try:
            value: Any = _literal(stmt.value, env)
        except _NotLiteral:
            value = _text(stmt.value)
        for target in targets:
            if isinstance(target, ast.Name):
                env[target.id] = value
    flat: dict[str, str] = {}
    flatten(env, "", flat)
    return flat


def _literal(node: ast.expr, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise _NotLiteral
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [_literal(e, env) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for k, v in zip(node.keys, node.values, strict=False):
            if k is None:
                base = _literal(v, env)
                if isinstance(base, dict):
                    out.update(base)
                continue
            out[str(_literal(k, env))] = _literal(v, env)
        return out
    if isinstance(node, ast.Call) and dotted_name(node.func) == "dict" and not node.args:
        result: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                base = _literal(kw.value, env)
                if isinstance(base, dict):
                    result.update(base)
            else:
                result[kw.arg] = _literal(kw.value, env)
        return result
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _literal(node.operand, env)
        if isinstance(value, int | float):
            return -value
    if isinstance(node, ast.BinOp):
        left, right = _literal(node.left, env), _literal(node.right, env)
        try:
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Mult):
                return left * right
        except TypeError as exc:
            raise _NotLiteral from exc
    raise _NotLiteral


def flatten(
    value: Any, prefix: str, out: dict[str, str], *, max_keys: int = MAX_CONFIG_KEYS
) -> None:
    """Dotted keys for nested dicts and lists: {"a": {"b": [1]}} -> {"a.b.0": "1"}."""
    if len(out) >= max_keys:
        return
    if isinstance(value, dict):
        if not value and prefix:
            out[prefix] = "{}"
        for k, v in value.items():
            flatten(v, f"{prefix}.{k}" if prefix else str(k), out, max_keys=max_keys)
    elif isinstance(value, list | tuple):
        if not value and prefix:
            out[prefix] = "[]"
        for i, v in enumerate(value[:200]):
            flatten(v, f"{prefix}.{i}" if prefix else str(i), out, max_keys=max_keys)
    elif prefix:
        out[prefix] = "" if value is None else str(value)[:500]
