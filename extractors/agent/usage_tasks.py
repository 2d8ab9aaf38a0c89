"""Repo-usage tasks ("How can you ...?", EXP-Bench's mode A) drafted from documented commands.

A README command such as `python evaluate.py --checkpoint runs/x --split test` is the authors'
own statement of something the repository can do. The prose around it (its heading, the
sentence before the block) and the script's docstring and flag help say what it is for; the
docs around it say what it writes. That is enough to draft a usage task whose setup is grounded
in the code: the entry point and the modules that implement it, steps traced through the
entry point with file:line references, and instructions that never name the masked script.
Everything is derived from the mined index and the checkout: no model, deterministic.
"""

from __future__ import annotations

import ast
import posixpath
import re
from pathlib import Path

from expcurate.records import (
    REF_RE,
    STEP_RE,
    DesignComplexity,
    DocCommand,
    EntryPoint,
    Evidence,
    RepoIndex,
    Setup,
    TaskDraft,
    ToolCall,
)
from extractors.repo import RepoPathError, RepoSearch, path_tokens, stem, terms
from extractors.repo.commands import (
    PathResolver,
    doc_order,
    parse_command,
    python_entry,
    run_from,
    sets_up,
)

from .gist import Gists
from .policy import scrub
from .query import build_query
from .steps import Step, StepTracer

_SETUP_PROSE = re.compile(r"(?i)\b(?:pip|conda|install|download|git clone|wget|docker)\b")
_INCIDENTAL_FLAG = re.compile(
    r"^--?(?:out|output|outdir|output[-_]dir|save[-_]dir|log[-_]?\w*|seed|gpus?|gpu[-_]ids?"
    r"|device|cuda|workers|num[-_]workers|verbose|debug|local[-_]rank|port|master[-_]\w+|launcher"
    r"|nproc[-_]per[-_]node|nnodes|node[-_]rank)$",
    re.I,
)
_OUTPUT_FLAG = re.compile(r"^--?(?:out|output|outdir|output[-_]dir|save[-_]\w+|\w*[-_]log)$", re.I)
_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:log|csv|json|jsonl|npy|npz|png|pdf|"
                   r"txt|pt|pth|ckpt|pkl|tsv|h5|yaml|md))(?![\w/])")  # fmt: skip
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_RST_RULE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_METRICS = (
    "accuracy", "top-1", "top-5", "mse", "mae", "rmse", "f1", "bleu", "rouge", "auc", "auroc",
    "psnr", "ssim", "miou", "perplexity", "loss", "nmi", "ari", "recall", "precision",
    "fid", "success rate", "reward", "throughput", "latency", "flops", "mAP",
)  # fmt: skip
_VERBS = frozenset(
    str.split(
        """train evaluate eval test run reproduce compute generate plot visualize visualise
    fine-tune finetune preprocess build convert export extract sample infer predict benchmark
    measure launch start analyze analyse compare save print create make aggregate collect
    summarize summarise render serve estimate calculate fit optimize tune search pretrain
    pre-train score validate check inspect load simulate solve draw produce report"""
    )
)
MAX_SOURCE = 5
MAX_STEPS = 8


def usage_tasks(index: RepoIndex, root: Path, *, limit: int = 10) -> list[tuple[TaskDraft, Setup]]:
    """Up to `limit` usage tasks, one per distinct documented command (target + flags).

    Commands are taken in doc order, the top-level README first; a second command for the same
    script only comes after every documented script has one, so a small limit still covers the
    repository's entry points.
    """
    search = RepoSearch(Path(root), index)
    tracer = StepTracer(index, search)
    entries = {e.path: e for e in index.entry_points}
    resolver = PathResolver(f.path for f in index.files if not f.skipped)
    picked: list[tuple[DocCommand, list[tuple[str, str]]]] = []
    seen: set[tuple[str, frozenset[str]]] = set()
    later: list[tuple[DocCommand, list[tuple[str, str]]]] = []
    targets: set[str] = set()
    for cmd in sorted(_documented(index), key=doc_order):
        flags = parse_command(cmd.text, resolver, posixpath.dirname(cmd.doc)).flags
        key = (cmd.runs[0], frozenset(n for n, _ in flags))
        if key in seen:
            continue
        seen.add(key)
        (later if cmd.runs[0] in targets else picked).append((cmd, flags))
        targets.add(cmd.runs[0])
    chosen = (picked + later)[: max(limit, 0)]
    chosen.sort(key=lambda cf: doc_order(cf[0]))
    out: list[tuple[TaskDraft, Setup]] = []
    for cmd, flags in chosen:
        drafted = _draft(cmd, flags, index, search, tracer, entries)
        if drafted is not None:
            out.append(drafted)
    return out


def _documented(index: RepoIndex) -> list[DocCommand]:
    """Doc commands that run a repository file and are not install or download steps."""
    out = []
    for c in index.commands:
        if not c.runs or c.doc.endswith(".ipynb"):
            continue
        if sets_up(c):  # installs and downloads: not something a paper's user "does"
            continue
        out.append(c)
    return out


# ---------------------------------------------------------------- doc context


def _context(search: RepoSearch, cmd: DocCommand) -> tuple[str, str, list[str], str]:
    """(heading, sentence before the block, section text after the command, table-row text)."""
    try:
        lines = search.text(cmd.doc).splitlines()
    except (OSError, RepoPathError):
        return "", "", [], ""
    i = min(max(cmd.line - 1, 0), len(lines) - 1) if lines else 0
    row = lines[i].strip() if lines and lines[i].strip().startswith("|") else ""
    heading = ""
    for j in range(i, -1, -1):
        m = _HEADING.match(lines[j])
        if m:
            heading = m.group(1).strip()
            break
        if (
            j < i
            and j + 1 < len(lines)
            and _RST_RULE.match(lines[j + 1])
            and not _FENCE.match(lines[j + 1])
            and lines[j].strip()
        ):
            heading = lines[j].strip()
            break
    # the start of the block the command sits in, then the prose just above it
    start = i
    fence = False
    for j in range(i - 1, -1, -1):
        if _FENCE.match(lines[j]):
            start, fence = j, True
            break
        if not lines[j].strip() or _HEADING.match(lines[j]):
            break
    sentence = ""
    if fence or not row:
        prose: list[str] = []
        for j in range(start - 1, -1, -1):
            text = lines[j].strip()
            if not text:
                if prose:
                    break
                continue
            if _HEADING.match(lines[j]) or _FENCE.match(lines[j]) or _RST_RULE.match(text):
                break
            prose.insert(0, text)
        para = " ".join(prose)
        parts = re.split(r"(?<=[.!?])\s+", para)
        sentence = parts[-1] if parts else ""
    after: list[str] = []
    for j in range(i + 1, len(lines)):
        if _HEADING.match(lines[j]):
            break
        after.append(lines[j])
    return heading, sentence, after, row


def _clean(text: str) -> str:
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"\*\*?([^*]+)\*\*?", r"\1", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    return " ".join(text.split()).strip(" :;,-")


def _purpose(text: str) -> str:
    """What a sentence says to do, as a verb phrase, or "".

    `Train one model ...:` -> "train one model ..."; `To evaluate the model, run:` ->
    "evaluate the model"; a bare "Run:" says nothing, and a sentence not led by a verb is not
    a purpose.
    """
    text = _clean(text)
    m = re.match(r"(?i)^(?:in order\s+)?to\s+(.+?)(?:,\s*(?:you|we|one|simply|just|run|use|type|"
                 r"execute|please)\b.*|\s*[:,]?\s*(?:run|use|execute)\s*)?$", text)  # fmt: skip
    if m:
        text = m.group(1).strip(" :,")
    if not text:
        return ""
    first = text.split()[0].lower().strip(",.")
    base = first[:-1] if first.endswith("s") and first[:-1] in _VERBS else first
    if base not in _VERBS or _SETUP_PROSE.search(text):
        return ""
    rest = text[len(first) :].strip()
    phrase = f"{base} {rest}".strip().rstrip(".")
    return phrase if len(phrase.split()) >= 2 else ""


def _row_purpose(row: str, cmd: DocCommand) -> str:
    """A "| Table 2 (ablation) | `bash x.sh` | ... |" row: reproduce what its first cell names."""
    if not row:
        return ""
    for cell in (c.strip() for c in row.strip("|").split("|")):
        text = _clean(cell)
        if text and cmd.text not in text and not _FILE.fullmatch(text) and "`" not in cell:
            return _purpose(text) or f"reproduce {text}"
    return ""


def _docstring(search: RepoSearch, tracer: StepTracer, path: str) -> str:
    """First line of a Python module's docstring, or a script's first comment line."""
    if path.endswith(".py"):
        tree = tracer.tree(path)
        doc = (ast.get_docstring(tree) or "") if tree else ""
        return doc.strip().splitlines()[0] if doc.strip() else ""
    try:
        head = search.text(path).splitlines()[:6]
    except (OSError, RepoPathError):
        return ""
    for line in head:
        if line.startswith("#") and not line.startswith("#!"):
            text = line.lstrip("# ").strip()
            if len(text) >= 8:
                return re.sub(r"^[^:]{0,40}\):\s*|^[^:(]{0,40}:\s*", "", text) or text
    return ""


# ---------------------------------------------------------------- drafting


def _draft(
    cmd: DocCommand,
    flags: list[tuple[str, str]],
    index: RepoIndex,
    search: RepoSearch,
    tracer: StepTracer,
    entries: dict[str, EntryPoint],
) -> tuple[TaskDraft, Setup] | None:
    target = cmd.runs[0]
    entry = entries.get(target)
    program = python_entry(target, entries)
    heading, sentence, after, row = _context(search, cmd)
    doc_line = _docstring(search, tracer, target)
    purpose = (
        _row_purpose(row, cmd)
        or _purpose(sentence)
        or _purpose(doc_line)
        or (_purpose(_docstring(search, tracer, program)) if program else "")
        or _purpose(heading)
    )
    if not purpose:
        label = _clean(heading)
        if not label or "`" in heading or _SETUP_PROSE.search(label):
            label = "documented workflow"
        purpose = f"run the {label.lower()} of this repository"
    helps = _flag_help(program, entries) | _flag_help(target, entries)
    matter = [(n, v) for n, v in flags if not _INCIDENTAL_FLAG.match(n)]
    # a launch script's own settings (`--task_name imputation`) say what the command does
    in_script = [
        (f.name, f.default)
        for f in (entry.flags if entry is not None and entry.kind == "shell" else [])
        if f.name.startswith("-") and not _INCIDENTAL_FLAG.match(f.name)
    ]
    switches = [
        f"{n} ({helps[n]})" if helps.get(n) and len(helps[n]) <= 80 else n
        for n, v in matter
        if v == "True"
    ]
    question = f"How can you {purpose}" + (
        f", with the switch {' and '.join(switches[:3])}" if switches else ""
    )
    question = question.rstrip(" .") + "?"
    usage = run_from(cmd, {f.path for f in index.files})
    method = _method(cmd, target, program, matter or in_script, helps, entry)
    outputs, metrics = _outputs(cmd, flags, after, row, doc_line, sentence, index)
    expected = _expected(outputs, metrics)
    design = DesignComplexity(
        constant_variables={"mode": "A"},
        independent_variables={n: v for n, v in matter},
        dependent_variables={m: "as printed by the command" for m in metrics}
        | {f: "written by the command" for f in outputs},
    )
    draft = TaskDraft(
        key=f"usage:{cmd.doc}:{cmd.line}",
        question=question,
        method=method,
        expected_outcome=expected,
        subsection_source=f"{cmd.doc}: {heading}" if heading else cmd.doc,
        design_complexity=design,
        evidence=[Evidence(kind="text", label=f"{cmd.doc}:{cmd.line}")],
    )
    hint = " ".join([cmd.text, question, *(f"{n} {v}" for n, v in matter or in_script)])
    setup = _setup(draft, cmd, target, program, usage, hint, index, search, tracer, entries)
    return draft, setup


def _flag_help(path: str | None, entries: dict[str, EntryPoint]) -> dict[str, str]:
    e = entries.get(path or "")
    return {f.name: f.help for f in e.flags} if e and e.kind != "shell" else {}


def _method(
    cmd: DocCommand,
    target: str,
    program: str | None,
    matter: list[tuple[str, str]],
    helps: dict[str, str],
    entry: EntryPoint | None,
) -> str:
    text = cmd.text.rstrip(" \\")
    parts = [f"Run the documented command `{text}` ({cmd.doc}, line {cmd.line})."]
    if entry is not None and entry.kind == "shell" and entry.calls:
        parts.append(f"{target} launches {', '.join(entry.calls[:3])}.")
    described = []
    for name, value in matter[:8]:
        help_text = helps.get(name, "")
        shown = name if value == "True" else f"{name} {value}"
        if help_text and not help_text.startswith("("):
            help_text = f"({help_text})"
        described.append(f"{shown} {help_text}".strip())
    if described:
        parts.append("The settings that matter: " + "; ".join(described) + ".")
    elif program and program != target:
        parts.append(f"It runs {program} with the script's own settings.")
    return " ".join(parts)


def _outputs(
    cmd: DocCommand,
    flags: list[tuple[str, str]],
    after: list[str],
    row: str,
    doc_line: str,
    sentence: str,
    index: RepoIndex,
) -> tuple[list[str], list[str]]:
    """Files the docs say the command writes and metrics they say it reports (no numbers)."""
    files: list[str] = []
    for name, value in flags:
        if _OUTPUT_FLAG.match(name) and value != "True":
            files.append(value)
    m = re.search(r"(?:>>?|\btee\s+(?:-a\s+)?)\s*(\S+)", cmd.text)
    if m:
        files.append(m.group(1))
    if row:
        cells = [c for c in (x.strip() for x in row.strip("|").split("|")) if c]
        for cell in cells:
            if "`" in cell and cmd.text[:20] in cell:
                continue
            files += _FILE.findall(_clean(cell))
    # the prose right after the block often says "writes results/x.log" (a table row's
    # neighbours are other commands' rows)
    for line in [] if row else after[:8]:
        if re.search(r"\b(writ|sav|produc|output|creat|generat|log|print|report)", line, re.I):
            files += [f for f in _FILE.findall(line) if f not in cmd.text or "writ" in line]
    results = {r.path for r in index.results}
    files = [f for f in dict.fromkeys(files) if f and not f.startswith("-")]
    files = [f for f in files if f in results or "/" in f or "." in f][:5]
    text = " ".join([cmd.text, doc_line, sentence, row, *([] if row else after[:8])])
    metrics: list[str] = []
    for name in _METRICS:
        flags_ = 0 if name == "mAP" else re.I
        found = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, flags_)
        if found and found.group(0).lower() not in {m.lower() for m in metrics}:
            metrics.append(found.group(0))  # as the docs write it: mIoU, FLOPs, MSE
    return files, metrics[:4]


def _expected(outputs: list[str], metrics: list[str]) -> str:
    parts = []
    if outputs:
        parts.append("The command runs to completion and writes " + ", ".join(outputs))
    if metrics:
        shown = ", ".join(metrics)
        parts.append(("and reports " if parts else "The command runs and reports ") + shown)
    if not parts:
        return (
            "The command runs to completion without errors; the documentation does not say "
            "which files or metrics it produces."
        )
    return " ".join(parts) + "."


# ---------------------------------------------------------------- setup


def _setup(
    draft: TaskDraft,
    cmd: DocCommand,
    target: str,
    program: str | None,
    usage: str,
    hint: str,
    index: RepoIndex,
    search: RepoSearch,
    tracer: StepTracer,
    entries: dict[str, EntryPoint],
) -> Setup:
    q = build_query(draft)
    trace = [ToolCall(tool="read", args={"path": cmd.doc, "start": cmd.line, "end": cmd.line})]
    masked = [target] + ([program] if program and program != target else [])
    source = list(masked)
    # the imports that implement this command first: `--task_name imputation` -> exp_imputation
    wanted = set(terms(hint))
    imported = [
        m
        for m in index.imports.get(program or "", [])
        if m.endswith(".py") and not m.endswith("__init__.py") and m not in source
    ]
    ranked = sorted(
        imported,
        key=lambda m: (-len({stem(t) for t in path_tokens(m)} & wanted), imported.index(m)),
    )
    source += ranked[: MAX_SOURCE - len(source)]
    steps: list[Step] = []
    if target != program:
        steps += tracer.shell_steps(target, entries.get(target))
    if program:
        e = entries.get(program)
        trace.append(ToolCall(tool="outline", args={"path": program}))
        steps += tracer.python_steps(program, e, q)
    steps = [s for s in steps if _valid(search, s)][: MAX_STEPS - 1]
    steps = Gists(tracer).worded(steps)
    requirements = [s.render(f"Step {k}") for k, s in enumerate(steps, start=1)]
    if steps:
        last = next((s for s in steps if s.path == program), steps[0])
        ep = entries.get(program or target)
        line = ep.line if ep and ep.line else last.start
        final = Step("Run the documented command and check what it writes", last.path, line, line)
        if not _valid(search, final):
            final = Step(final.action, last.path, last.start, last.end)
        requirements.append(final.render("Final Step"))
    assert all(STEP_RE.match(r) and REF_RE.search(r) for r in requirements), requirements
    reuse = [s for s in source if s not in masked]
    instructions = [
        "Write the program this task asks for; the script that did it has been removed.",
        f"Question: {draft.question}",
        f"Expected: {draft.expected_outcome}",
    ]
    settings = list(draft.design_complexity.independent_variables)
    if settings:
        instructions.append("Accept these command-line options: " + ", ".join(settings) + ".")
    if reuse:
        instructions.append("You may reuse the existing modules " + ", ".join(reuse) + ".")
    return Setup(
        source=source,
        masked_source=masked,
        usage_instructions=usage,
        requirements=requirements,
        agent_instructions=scrub(" \n".join(instructions), masked),
        trace=trace,
    )


def _valid(search: RepoSearch, step: Step) -> bool:
    try:
        n = len(search.text(step.path).splitlines())
    except (OSError, RepoPathError):
        return False
    return 1 <= step.start <= step.end <= n and " " not in step.path and "(" not in step.path
