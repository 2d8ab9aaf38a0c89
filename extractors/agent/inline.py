"""Code written inline, cut into steps: a script's main block and a notebook's cells.

Scripts that do their work at top level have no functions to cite; their steps are runs of
statements between blank lines or comments, each worded by the comment above it or by what
it calls, a long loop read through its body. A notebook's steps are its substantial code
cells, worded by the markdown cell before them. Both give (action, first line, last line).
"""

from __future__ import annotations

import ast
import json
import re

from extractors.repo import terms
from extractors.repo.pysource import callee_name, parse

_VERB_FIRST = {
    "build", "load", "train", "test", "evaluate", "eval", "run", "parse", "get", "make",
    "create", "compute", "init", "setup", "prepare", "save", "plot", "predict", "validate",
    "fit", "generate", "main", "process", "preprocess", "update", "sample", "collect",
}  # fmt: skip

# Calls every script makes that say nothing about the experiment.
INCIDENTAL = re.compile(r"parse|debug|seed|logg|print|wandb|set_?up_?log|get_?args", re.I)
_INTERFACE = re.compile(r"button|widget|click|api_?key|env_?var", re.I)

Block = tuple[str, int, int]  # what it does, first line, last line


def humanize(name: str, cls: str = "") -> str:
    """`build_model` -> "Build model"; `Exp.train` -> "Train (Exp.train)"; else "Call x"."""
    words = [w.lower() for w in re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)]
    qual = f"{cls}.{name}" if cls else name
    if not words or words[0] not in _VERB_FIRST:
        return f"Call {qual}"
    text = " ".join(words)
    text = text[0].upper() + text[1:]
    return f"{text} ({qual})" if cls else text


_MARKUP = re.compile(r"https?://|`_|>>>|^\.\. |:param|:return|\w+:\s*[-+.]?\d")
_NOT_PROSE = ("args", "arguments", "returns", "todo", "parameters", "note", "example", "usage")
_TEMPLATE = re.compile(
    r"(?:docstring|description|summary) (?:for|of) \w+$", re.I
)  # an editor's stub


def doc_wording(doc: str, longest: int = 140) -> str:
    """A docstring's first line when it reads as a sentence about what the code does ("Train
    the model for one epoch"), else "": no links, doctest or field lists, no figures
    (`GFLOPS: 0.56, model size: 11.17MB`), no section header, at least two words; inline
    code (``tree_x + alpha * tree_y``) is fine."""
    text = (doc.strip().splitlines() or [""])[0].strip().rstrip(".:")
    words = re.findall(r"[A-Za-z]{2,}", text)
    if not 8 <= len(text) <= longest or len(words) < 2 or not text[0].isalpha():
        return ""
    if _MARKUP.search(text) or text.lower().startswith(_NOT_PROSE) or text.isupper():
        return ""
    return "" if _TEMPLATE.fullmatch(text) else text


def inline_blocks(tree: ast.Module, lines: list[str], wanted: set[str], limit: int) -> list[Block]:
    """The main block's (or its `main()`'s) runs of statements that do the experiment's work,
    in file order; of more than `limit`, those sharing the most words with `wanted`."""
    body = main_body(tree)
    calls_main = [
        n for n in body if isinstance(n, ast.Expr) and "main(" in ast.unparse(n.value)[:40]
    ] or _dispatches_to_main(body)
    if calls_main:
        node = next(
            (
                n
                for n in tree.body
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == "main"
            ),
            None,
        )
        if node is not None:
            body = list(node.body)
    segments: list[list[ast.stmt]] = []
    _segment(body, lines, segments, depth=0)
    blocks: list[Block] = []
    for seg in segments:
        if not any(_meaningful(n) for n in seg):
            continue
        if isinstance(seg[0], ast.If) and _INFRA.search(ast.unparse(seg[0].test)):
            continue
        start = seg[0].lineno
        end = max(n.end_lineno or n.lineno for n in seg)
        action = _block_action(seg, lines)
        if _INFRA.search(action) or _CHORE.search(action):
            continue
        blocks.append((action, start, end))
    if len(blocks) > limit:  # keep the blocks closest to the task, in file order
        text = {b: set(terms(" ".join(lines[b[1] - 1 : b[2]]))) for b in blocks}
        keep = sorted(blocks, key=lambda b: -len(text[b] & wanted))[:limit]
        blocks = [b for b in blocks if b in keep]
    return blocks


def _dispatches_to_main(body: list[ast.stmt]) -> list[ast.stmt]:
    """A short main block calling `main(...)` under a branch (`if args.async_test:
    asyncio.run(async_main(args)) else: main(args)`): the statements that do, for the
    experiment's work is in `main`."""
    if len(body) > _DISPATCH:
        return []
    return [
        n
        for n in body
        if any(
            isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "main"
            for c in ast.walk(n)
        )
    ]


_DISPATCH = 4  # statements a main block has that only parses the options and picks a main


def notebook_cells(raw: str, limit: int) -> list[Block]:
    """One block per substantial code cell, by the cell's lines in the .ipynb file (at most
    `limit`). The markdown cell before a code cell usually says what it does, so its first
    line is the wording; a cell that only calls what the previous one defined joins it.
    When there are fewer cells than `limit`, the longest cells are cut into their parts
    (what they define, then runs of statements), as a script's main block is."""
    raw_lines = raw.splitlines()
    try:
        cells = json.loads(raw).get("cells", [])
    except (ValueError, AttributeError):
        return []
    blocks: list[Block] = []
    parts: list[list[Block]] = []  # each block's cell cut into its parts ([] when it is not)
    defined: set[str] = set()
    pos = 0
    heading = ""
    for cell in cells:
        src = cell.get("source", "")
        src_lines = src if isinstance(src, list) else str(src).splitlines(keepends=True)
        at, pos = _locate(src_lines, raw_lines, pos)
        found = [n for n in at if n]
        if cell.get("cell_type") == "markdown":
            text = next((ln.strip("# \n") for ln in src_lines if ln.strip("# \n")), "")
            text = re.sub(r"^(?:\d+(?:\.\d+)*\.?\s+)", "", text).replace("`", "")
            heading = text if 4 <= len(text) <= 120 else heading
            continue
        if cell.get("cell_type") != "code" or not found:
            continue
        # magics and shell lines are blanked, not dropped: the code keeps the cell's lines
        code_lines = [
            "\n" if ln.lstrip().startswith(("%", "!")) else ln.rstrip("\n") + "\n"
            for ln in src_lines
        ]
        tree = parse("".join(code_lines))
        if tree is None or not tree.body:
            continue
        if _interface_only(tree):
            heading = ""
            continue
        names = {n.name for n in tree.body if isinstance(n, _DEFS)}
        calls = _called_names(tree)
        if blocks and not names and calls and calls <= defined and not heading:
            action, start, _ = blocks[-1]  # running what the previous cell defined
            blocks[-1] = (action, start, max(found))
            parts[-1] = []
            continue
        defined = names or defined
        action = _cell_action(tree)
        title = _title(heading)
        if title and title.lower() not in action.lower():
            action = f"{title}: {action[0].lower() + action[1:]}"
        heading = ""
        blocks.append((action, min(found), max(found)))
        parts.append(_cell_parts(tree, code_lines, at, title))
        if len(blocks) >= limit:
            break
    # the longest cells first, each cut while the steps stay within `limit`
    total = len(blocks)
    for k in sorted(range(len(blocks)), key=lambda i: blocks[i][1] - blocks[i][2]):
        if len(parts[k]) >= 2 and total - 1 + len(parts[k]) <= limit:
            total += len(parts[k]) - 1
        else:
            parts[k] = []
    return [p for k, b in enumerate(blocks) for p in (parts[k] or [b])]


_CELL_LINES = 15  # a code cell longer than this can be cut into its parts


def _cell_parts(tree: ast.Module, lines: list[str], at: list[int], title: str) -> list[Block]:
    """A long cell's parts: what it defines (one block), then its runs of statements between
    blank lines or comments, each worded as a script's inline block; [] for a short cell."""
    if (tree.body[-1].end_lineno or 0) - tree.body[0].lineno < _CELL_LINES:
        return []

    def where(first: int, last: int) -> tuple[int, int] | None:
        lines_at = [n for n in at[first - 1 : last] if n]
        return (min(lines_at), max(lines_at)) if lines_at else None

    out: list[Block] = []
    runs: list[list[ast.stmt]] = []  # definitions next to each other, one block per run
    for prev, node in zip([None, *tree.body], tree.body, strict=False):
        if isinstance(node, _DEFS):
            if isinstance(prev, _DEFS) and runs:
                runs[-1].append(node)
            else:
                runs.append([node])
    for defs in runs:
        span = where(defs[0].lineno, max(n.end_lineno or n.lineno for n in defs))
        if span:
            named = [n.name for n in defs[:3] if isinstance(n, _DEFS)]
            out.append((f"Define {', '.join(named)}", *span))
    segments: list[list[ast.stmt]] = []
    _segment(list(tree.body), lines, segments, depth=0)
    for seg in segments:
        if not any(_meaningful(n) for n in seg):
            continue
        span = where(seg[0].lineno, max(n.end_lineno or n.lineno for n in seg))
        if span:
            out.append((_block_action(seg, lines), *span))
    out.sort(key=lambda b: b[1])
    if out and title and title.lower() not in out[0][0].lower():
        action, start, end = out[0]
        out[0] = (f"{title}: {action[0].lower() + action[1:]}", start, end)
    return out


def statement_blocks(body: list[ast.stmt], lines: list[str], limit: int) -> list[Block]:
    """Statements that are not a main block (the code after a branch's early exit, a long
    function's body) cut and worded the same way, the first `limit` that do work."""
    segments: list[list[ast.stmt]] = []
    _segment(body, lines, segments, depth=0)
    blocks: list[tuple[bool, Block]] = []
    for seg in segments:
        if any(_meaningful(n) for n in seg):
            end = max(n.end_lineno or n.lineno for n in seg)
            # a block calling a function by its name (`sliding_window_inference(...)`) does
            # more of the experiment's work than one calling only methods of its tensors
            named = any(
                isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and not _quiet(c)
                for n in seg
                for c in ast.walk(n)
            )
            blocks.append((named, (_block_action(seg, lines), seg[0].lineno, end)))
    keep = sorted(range(len(blocks)), key=lambda i: not blocks[i][0])[:limit]
    return [blocks[i][1] for i in sorted(keep)]


def function_blocks(
    tree: ast.Module, lines: list[str], start: int, end: int, limit: int
) -> list[Block]:
    """The blocks of the function a step cites whole (`start`..`end`, its definition), cut
    and worded as `statement_blocks` does, each saying which function it is in."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        if node.name.startswith("__"):  # a constructor's parts are its class's step
            continue
        if first <= start <= node.lineno and node.end_lineno == end:
            blocks = [
                (action, a, b)
                for action, a, b in statement_blocks(list(node.body), lines, len(node.body))
                if not (_INFRA.search(action) or _CHORE.search(action))
                and not _SETUP_ONLY.search(f"{action}\n{lines[a - 1]}")
            ]
            return [(f"{action} (in {node.name})", a, b) for action, a, b in blocks[:limit]]
    return []


def has_main(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.If) and "__main__" in ast.unparse(n.test) for n in tree.body)


def main_body(tree: ast.Module) -> list[ast.stmt]:
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return list(node.body)
    return [
        n
        for n in tree.body
        if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCK_LINES = 12  # a segment longer than this is cut
_LONG_COMPOUND = 15  # a loop longer than this is read through its body
_QUIET_CALLS = {
    "print", "len", "str", "int", "float", "format", "append", "extend", "makedirs", "exists",
    "join", "info", "debug", "warning", "warn", "mkdir", "isdir", "isfile", "update", "get",
    "add_argument", "parse_args", "ArgumentParser", "seed", "manual_seed", "set_seed", "time",
    "range", "enumerate", "zip", "list", "dict", "set", "tuple", "items", "keys", "values",
    "set_device", "spawn", "getLogger", "init_process_group", "barrier", "device", "cuda",
    "to", "device_count", "is_available", "manual_seed_all", "setLevel", "addHandler",
    "basicConfig", "FileHandler", "StreamHandler", "Formatter", "setFormatter", "now",
    "strftime", "environ", "getenv", "filterwarnings", "seed_everything", "initialize",
    "init", "set_start_method", "use_deterministic_algorithms", "is_initialized", "eval",
    "no_grad", "inference_mode", "enable_grad", "set_grad_enabled", "autocast",
    "set_description", "set_postfix", "sorted", "reversed", "isinstance", "hasattr", "getattr",
    "Counter", "defaultdict", "OrderedDict", "deque", "ThreadPoolExecutor",
    "ProcessPoolExecutor", "Lock", "Event", "Queue", "tqdm", "trange",
}  # fmt: skip
# what logs, plots or shows progress: its calls are no step of the experiment
_QUIET_OWNER = re.compile(
    r"r?log|logger|logging|(?:tb_|summary_)?writer|wandb|plt|pbar|tqdm|progress", re.I
)
# Blocks about the machine, not the experiment: devices, processes, logging, seeds.
_INFRA = re.compile(
    r"distributed|world_size|local_rank|\bgpus?\b|\bdevices?\b|cuda|amp\b|apex|logg|seed",
    re.I,
)


# What a block does that no experiment is about: making folders, dumping what was computed,
# reading API keys, waiting before a retry, a framework's entry (`fire.Fire(train)`), a
# library's containers
_CHORE = re.compile(
    r"mkdir|makedirs|mmcv\.dump|json\.dumps?\b|pickle\.dump|get_world_size|get world size|"
    r"get_dist_info|init_dist|os\.environ|api_?keys?|git hash|Write the results to a file|"
    r"\bf\.write\b|work_?dir|checkpoint meta|\btime\.sleep\b|"
    r"\bIf True:|Create the (?:Compose|Fire|OrderedDict|ArgumentParser|SummaryWriter|Logger)\b|"
    r"Create the \w*(?:Error|Exception|Warning)\b",
    re.I,
)


# what a long function does about its machine or its tools, never the experiment's work:
# devices and logging (`_INFRA`), chores, version checks, compiling, mixed precision
_SETUP_ONLY = re.compile(
    r"__version__|torch\.compile|wandb|^Get$|^Init$|isinstance\(|\bCall isinstance\b|"
    r"\blog_\w+|\.write_text\(",
    re.I | re.M,
)


def _segment(body: list[ast.stmt], lines: list[str], out: list[list[ast.stmt]], depth: int) -> None:
    """Cut statements into runs at blank or comment lines, and at `_BLOCK_LINES`."""
    current: list[ast.stmt] = []
    for node in body:
        if isinstance(node, (*_DEFS, ast.Import, ast.ImportFrom)):
            continue
        long = (node.end_lineno or node.lineno) - node.lineno > _LONG_COMPOUND
        if (
            long
            and depth < 2
            and isinstance(node, ast.For | ast.While | ast.With | ast.Try | ast.If)
        ):
            if current:
                out.append(current)
                current = []
            _segment(list(node.body), lines, out, depth + 1)
            continue
        if current:
            gap = lines[(current[-1].end_lineno or current[-1].lineno) : node.lineno - 1]
            broken = any(not g.strip() or g.strip().startswith("#") for g in gap)
            too_long = (node.end_lineno or node.lineno) - current[0].lineno >= _BLOCK_LINES
            if broken or too_long:
                out.append(current)
                current = []
        current.append(node)
    if current:
        out.append(current)


def _quiet(call: ast.Call) -> bool:
    name = callee_name(call.func)
    if name in _QUIET_CALLS or INCIDENTAL.search(name):
        return True
    # a call on what logs, plots or shows progress (`self.rlog.section(...)`, `plt.plot`)
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    said = callee_name(owner) if isinstance(owner, ast.Attribute | ast.Name) else ""
    return bool(_QUIET_OWNER.fullmatch(said))


def _meaningful(node: ast.stmt) -> bool:
    """A statement that does work: it calls something other than printing and bookkeeping."""
    if isinstance(node, ast.Pass | ast.Continue | ast.Break | ast.Return | ast.Raise):
        return False
    return any(isinstance(n, ast.Call) and not _quiet(n) for n in ast.walk(node))


# a comment that remarks on the code rather than names what it does
_NOTE = re.compile(
    r"^(?:note|nb|please|todo|fixme|xxx|hack|warning|to be|tbd|remember|do not|don't|"
    r"this (?:is|was)|it is|here we|we (?:need|have)|i think)\b",
    re.I,
)


def said_code(node: ast.AST, limit: int = 60) -> str:
    """Code as a wording quotes it: whole when short, else cut where a reader can tell it
    goes on: "G.graph[i, j] == 0 and G.graph[j, i] == 0 and …" for a long test, never
    in the middle of a bracket ("... and (: Call sorted")."""
    text = ast.unparse(node)
    if len(text) <= limit:
        return text
    if isinstance(node, ast.BoolOp):
        op = " and " if isinstance(node.op, ast.And) else " or "
        kept: list[str] = []
        for value in node.values:
            part = ast.unparse(value)
            part = f"({part})" if isinstance(value, ast.BoolOp) else part
            if len(op.join([*kept, part])) > limit:
                break
            kept.append(part)
        if kept:
            return op.join(kept) + op + "…"
    cut = text[:limit]
    comma = cut.rfind(", ")
    if comma > 0:  # at an argument or item: "f(a, b, …)", its brackets closed
        head = cut[:comma]
        return head + ", …" + "".join(_CLOSE[c] for c in reversed(_still_open(head)))
    while _still_open(cut):
        cut = cut[:-1]  # back out of every bracket still open
    cut = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return f"{cut.rstrip(' ,.=+-*/<>!&|')} …" if cut else text[:limit] + " …"


_CLOSE = {"(": ")", "[": "]", "{": "}"}


def _still_open(text: str) -> list[str]:
    """The brackets `text` opens and does not close, outermost first (strings ignored)."""
    stack: list[str] = []
    quote = ""
    for c in text:
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in _CLOSE:
            stack.append(c)
        elif c in ")]}" and stack:
            stack.pop()
    return stack


def _commented_code(text: str) -> bool:
    """A comment holding a line of code put aside (`G = np.zeros((N, N)) # the graph`): it
    says what the code once did, not what the lines below it do."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(
        not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Name | ast.Constant))
        for n in tree.body
    )


def _block_action(seg: list[ast.stmt], lines: list[str]) -> str:
    above = lines[seg[0].lineno - 2].strip() if seg[0].lineno >= 2 else ""
    if above.startswith("#"):
        text = above.lstrip("#").strip().rstrip(".:")
        if (
            len(text.split()) >= 2
            and 8 <= len(text) <= 140
            and not _NOTE.match(text)
            and not _commented_code(text)
        ):
            heading = text[0].upper() + text[1:]
            # a section's heading under a banner (`####...` then `# zoom-in inference:`)
            # names the section the block only begins: the block says what it does itself
            banner = lines[seg[0].lineno - 3].strip() if seg[0].lineno >= 3 else ""
            if not _BANNER.fullmatch(banner):
                return heading
            done = _code_action(seg, lines)
            return f"{heading}, first: {done[:1].lower()}{done[1:]}"
    return _code_action(seg, lines)


_BANNER = re.compile(r"#{4,}|#\s*[-=*#]{4,}\s*#?")


def _code_action(seg: list[ast.stmt], lines: list[str]) -> str:
    """A block worded by what its code does: what it writes, prints, loops over, tests or
    calls."""
    for node in seg:
        calls = [c for c in ast.walk(node) if isinstance(c, ast.Call) and not _quiet(c)]
        if not calls:
            continue
        if _only_writes(node, calls):  # `with open(...) as f: f.write(...)`, also in a loop
            inner = [c for c in calls if callee_name(c.func) != "open"]
            how = f" ({ast.unparse(inner[0].func)[:40]})" if inner else ""
            return f"Write the results to a file{how}"
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and callee_name(node.value.func) == "print"
        ):  # `print(f"Final Test: AUC {np.mean(aucs)}")`: what it prints, not its np.mean
            said = _printed(node.value)
            return f"Print the results ({said})" if said else "Print the results"
        if isinstance(node, ast.For):
            body = [c for b in node.body for c in ast.walk(b) if isinstance(c, ast.Call)]
            if any(not _quiet(c) for c in body):  # the loop by what it iterates and does
                done = _block_action(list(node.body), lines)
                if ": " in done and done.startswith(_LOOPS):  # a loop in a loop: what it does
                    done = done.split(": ", 1)[1]
                return f"{_loop_over(node)}: {done[:1].lower()}{done[1:]}"
        if isinstance(node, ast.If):
            # what the branch does, not the test's own calls (`isinstance`)
            inside = [
                c
                for b in node.body
                for c in ast.walk(b)
                if isinstance(c, ast.Call) and not _quiet(c)
            ]
            first = node.body[0]
            builds = any(callee_name(c.func)[:1].isupper() for c in inside)
            if (
                not builds  # `num_classes = 10` then `IMBALANCECIFAR10(...)`: what it builds
                and isinstance(first, ast.Assign)
                and isinstance(first.targets[0], ast.Name)
                and isinstance(first.value, ast.Constant)
            ):  # `if '600' in args.ckpt: testfile = 'data/test600.json'`: the file it picks
                return f"If {said_code(node.test)}: set {said_code(first)}"
            return f"If {said_code(node.test)}: {_call_phrase((inside or calls)[0])}"
        target = ""
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
        phrase = _call_phrase(calls[0])
        if not target:
            return phrase
        if phrase.startswith("Create the "):  # "Create the MetaNet as net"
            return f"{phrase} as {target}"
        if phrase.startswith("Call "):  # "Compute pred with net"
            return f"Compute {target} with {phrase[5:]}"
        if set(terms(target)) <= set(terms(phrase)):  # "Update config", not "... into config"
            return phrase
        return f"{phrase} into {target}"
    return "Run the block's code"


def _only_writes(node: ast.stmt, calls: list[ast.Call]) -> bool:
    """Every call of the statement opens a file or is inside a `with open(...)` that writes."""
    inside: set[int] = set()
    for w in ast.walk(node):
        if isinstance(w, ast.With) and any(
            isinstance(i.context_expr, ast.Call) and callee_name(i.context_expr.func) == "open"
            for i in w.items
        ):
            inside |= {id(c) for b in w.body for c in ast.walk(b) if isinstance(c, ast.Call)}
    return bool(inside) and all(id(c) in inside or callee_name(c.func) == "open" for c in calls)


# what a loop iterates through without changing it: `tqdm(iter(loader))` is the loader
_PASS_THROUGH = {"tqdm", "iter", "enumerate", "zip", "list", "sorted", "reversed", "trange"}


_LOOPS = ("For each ", "Loop over ", "Repeat ")


def _loop_over(loop: ast.For) -> str:
    """ "For each epoch in range(args.epochs)", "Repeat args.run times", "Loop over loader"."""
    it = loop.iter
    while isinstance(it, ast.Call) and it.args and callee_name(it.func) in _PASS_THROUGH:
        it = it.args[0]
    named = isinstance(loop.target, ast.Name) and len(loop.target.id) > 1
    counted = isinstance(it, ast.Call) and callee_name(it.func) == "range" and len(it.args) == 1
    if counted and not named and isinstance(it, ast.Call):  # `for i in range(args.run)`
        return f"Repeat {ast.unparse(it.args[0])[:40]} times"
    if named and isinstance(loop.target, ast.Name):
        return f"For each {loop.target.id} in {ast.unparse(it)[:40]}"
    return f"Loop over {ast.unparse(it)[:40]}"


def _printed(call: ast.Call) -> str:
    """The first words a print writes out: "Final Test: AUC"."""
    for arg in call.args:
        for n in ast.walk(arg):
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                text = " ".join(n.value.split()).strip(" :,=-")
                if re.search(r"[A-Za-z]{2}", text):
                    return text[:40]
    return ""


def _call_phrase(call: ast.Call) -> str:
    name = callee_name(call.func)
    if name[:1].isupper():  # a class: an object is made
        return f"Create the {name}"
    words = humanize(name)
    if not words.startswith("Call "):
        return words
    dotted = said_code(call.func)
    return f"Call {dotted}"


def _locate(src_lines: list[str], raw_lines: list[str], pos: int) -> tuple[list[int], int]:
    """The line number, in the .ipynb file, of each of a cell's source lines (searched from
    `pos`; 0 for a blank line or one not found)."""
    at: list[int] = []
    for line in src_lines:
        needle = json.dumps(line)[1:-1].strip()
        n = 0
        if needle:
            for i in range(pos, len(raw_lines)):
                if needle in raw_lines[i]:
                    n = i + 1
                    pos = i + 1
                    break
        at.append(n)
    return at, pos


def _called_names(tree: ast.Module) -> set[str]:
    return {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }


def _cell_action(tree: ast.Module) -> str:
    """What a notebook cell does, from its code: the functions it defines, else its main call
    with what it assigns ("Compute P, U with CAMUV.execute")."""
    defs = [n for n in tree.body if isinstance(n, _DEFS)]
    if defs:
        doc = doc_wording(ast.get_docstring(defs[0]) or "")
        if len(defs) == 1 and doc:
            return doc
        return f"Define {', '.join(n.name for n in defs[:3])}"
    for node in tree.body:
        value = node.value if isinstance(node, ast.Expr | ast.Assign) else None
        if not isinstance(value, ast.Call) or _quiet(value) or not callee_name(value.func):
            continue
        func = ".".join(ast.unparse(value.func).split(".")[-2:])
        if isinstance(node, ast.Assign):
            targets = ", ".join(ast.unparse(t) for t in node.targets)[:40]
            return f"Compute {targets} with {func}"
        return f"Call {func}"
    for node in tree.body:
        if isinstance(node, ast.For):
            over = ast.unparse(node.iter)[:40]
            shows = any(
                isinstance(c, ast.Call) and callee_name(c.func) in ("print", "display", "plot")
                for c in ast.walk(node)
            )
            return f"Print each item of {over}" if shows else f"Loop over {over}"
    shown = [
        n.value.args[0]
        for n in tree.body
        if isinstance(n, ast.Expr)
        and isinstance(n.value, ast.Call)
        and callee_name(n.value.func) in ("print", "display")
        and n.value.args
    ]
    if shown:
        return f"Print {ast.unparse(shown[0])[:60]}"
    return "Run the cell's code"


def _interface_only(tree: ast.Module) -> bool:
    """A cell that only asks for an API key or draws a widget: no part of the experiment."""
    names = [n.name for n in tree.body if isinstance(n, _DEFS)]
    if names and all(_INTERFACE.search(n) for n in names):
        return True
    return all(
        (isinstance(n, ast.Assign) and "environ" in ast.unparse(n.targets[0]))
        or isinstance(n, ast.Import | ast.ImportFrom)
        for n in tree.body
    )


def _title(text: str) -> str:
    """A markdown line that names what follows ("Data generation", "Meta-World"), not a
    sentence of explanation ("Please note that the sample size ...")."""
    text = text.strip().rstrip(":")
    words = text.split()
    if not 1 <= len(words) <= 6 or re.search(r"[.!?;]\s|[.!?]$|[$<>{}]", text):
        return ""
    return text
