"""Mine a checked-out repository into a `RepoIndex`: one pass over the files, then linking.

The pass reads each file once and keeps only what the index needs (entry points, raw imports,
doc and script text); linking happens after the walk, when the full file list is known, so a
README command or an import can be resolved to any file of the repository.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from pathlib import Path

from expcurate.records import ConfigFile, EntryPoint, RepoIndex, ResultFile, Severity, Status

from .commands import (
    PathResolver,
    doc_commands,
    documented_choices,
    notebook_commands,
    shell_entry,
)
from .configs import config_options, is_config_file, is_result_file, numbers_in, parse_config
from .files import looks_like_data, notebook_lines, walk
from .pysource import (
    MAX_TESTED,
    ImportRef,
    analyze_python,
    notebook_imports,
    with_files,
    with_listed,
    with_tested,
)

STAGE = "mine"
DOC_LANGS = ("markdown", "rst", "text")


def mine_repo(
    root: Path, commit: str = "", *, max_file_bytes: int = 1_000_000, max_files: int = 50_000
) -> RepoIndex:
    """Inventory, commands, entry points, configs, results and import graph of `root`."""
    root = Path(root)
    index = RepoIndex(root=str(root), commit=commit)
    if not root.is_dir():
        index.status = Status.failed
        index.add_error(STAGE, "missing_repo", f"{root} is not a directory; resolve the repo first")
        return index
    skipped_dirs: list[str] = []
    docs: list[tuple[str, str]] = []
    scripts: list[tuple[str, str]] = []
    notebooks: list[tuple[str, list[tuple[int, str]]]] = []
    raw_imports: dict[str, list[ImportRef]] = {}
    py_strings: dict[str, list[str]] = {}
    config_flags: list[tuple[EntryPoint, str, int]] = []
    tested: dict[str, dict[str, list[str]]] = {}
    patterns: dict[str, list[tuple[str, tuple[str, ...], str]]] = {}  # by program: built paths
    for sf in walk(
        root, max_file_bytes=max_file_bytes, max_files=max_files, skipped_dirs=skipped_dirs
    ):
        rec = sf.record
        index.files.append(rec)
        if sf.text is None:
            continue
        if sf.note:
            index.add_error(STAGE, "encoding", sf.note, severity=Severity.info, file=rec.path)
        if rec.language == "python":
            info = analyze_python(rec.path, sf.text)
            if info.error:
                index.add_error(
                    STAGE, "python_syntax", info.error, severity=Severity.warning, file=rec.path
                )
            if info.entry:
                index.entry_points.append(info.entry)
                if info.flags_from:
                    config_flags.append((info.entry, *info.flags_from))
            if info.imports:
                raw_imports[rec.path] = info.imports
            if info.paths:
                py_strings[rec.path] = info.paths
            if info.tested:
                tested[rec.path] = info.tested
            if info.path_patterns and info.entry:
                patterns[rec.path] = info.path_patterns
            if info.config:
                index.configs.append(ConfigFile(path=rec.path, values=info.config))
        elif rec.language == "shell":
            scripts.append((rec.path, sf.text))
        elif rec.language == "notebook":
            notebooks.append((rec.path, notebook_lines(sf.text)))
            # what its cells import: the keys those modules read are the notebook's to set
            if imported := notebook_imports([text for _, text in notebooks[-1][1]]):
                raw_imports[rec.path] = imported
        elif (
            rec.language in DOC_LANGS
            and not is_result_file(rec.path)
            and not looks_like_data(rec.path, sf.text)
        ):
            docs.append((rec.path, sf.text))
        if is_result_file(rec.path):
            index.results.append(ResultFile(path=rec.path, numbers=numbers_in(sf.text)))
        elif is_config_file(rec.path):
            values, problem = parse_config(rec.path, sf.text)
            if problem:
                index.add_error(
                    STAGE, "config_parse", problem, severity=Severity.warning, file=rec.path
                )
            index.configs.append(ConfigFile(path=rec.path, values=values))
    if len(index.files) >= max_files:
        index.add_error(
            STAGE,
            "too_many_files",
            f"stopped after {max_files} files; raise max_files to index the rest",
        )
    for d in skipped_dirs:
        index.add_error(
            STAGE,
            "skipped_dir",
            f"vendored or generated directory {d} not indexed",
            severity=Severity.info,
            file=d,
        )
    _note_skipped(index)
    resolver = PathResolver(f.path for f in index.files if not f.skipped)
    refs: dict[str, list[str]] = {}
    for path, text in docs:
        index.commands.extend(doc_commands(path, text, resolver, refs))
    for path, lines in notebooks:
        index.commands.extend(notebook_commands(path, lines, resolver, refs))
    for path, text in scripts:
        entry, mentions = shell_entry(path, text, resolver)
        index.entry_points.append(entry)
        if mentions:
            refs.setdefault(path, []).extend(mentions)
    for path, strings in py_strings.items():
        here = posixpath.dirname(path)
        for s in strings:
            hit = resolver.file(s, [here, ""])
            if hit and hit != path:
                refs.setdefault(path, []).append(hit)
    index.file_refs = {p: list(dict.fromkeys(v)) for p, v in sorted(refs.items()) if v}
    index.entry_points.sort(key=lambda e: e.path)
    index.imports = _import_graph(raw_imports, resolver)
    for entry, name, line in config_flags:
        _add_config_options(root, entry, name, line, resolver)
    _borrow_parsers(index)
    _values_tested_elsewhere(index, tested)
    _values_files_name(index, patterns)
    _values_docs_list(index)
    return index


def _values_docs_list(index: RepoIndex) -> None:
    """Note the choices a documented command lists for a program's option (README:
    `python3 inference.py --model {gpt-3.5, gpt-4, gemini-pro}`), as `(values its docs list:
    [...])` in the option's help, when its parser declares no choices."""
    entries = {e.path: e for e in index.entry_points}
    for c in index.commands:
        listed = documented_choices(c.text)
        for run in c.runs if listed else []:
            e = entries.get(run)
            if e is None:
                continue
            e.flags = [with_listed(f, listed.get(f.name, [])) for f in e.flags]


def _values_files_name(
    index: RepoIndex, patterns: dict[str, list[tuple[str, tuple[str, ...], str]]]
) -> None:
    """An option with no listed or tested values takes those the repository's files name
    where the program builds a path from it: `config/2wl/Cora.yaml`, `config/2wl/USAir.yaml`
    for `f"config/{args.pattern}/{args.dataset}.yaml"` (Cora, USAir for `--dataset`; 2wl
    for `--pattern`). Two values at least: one file says nothing of the choice. The path's
    template is kept on the program (`EntryPoint.opens`) when files match it, so a command
    can be checked for the one file its values name."""
    paths = [f.path for f in index.files if not f.skipped]
    for e in index.entry_points:
        found: dict[str, list[str]] = {}
        for regex, attrs, template in patterns.get(e.path, []):
            compiled = re.compile(regex)
            matched = False
            for path in paths:
                if m := compiled.match(path):
                    matched = True
                    for attr, value in zip(attrs, m.groups(), strict=True):
                        have = found.setdefault(attr, [])
                        if value not in have and len(have) < MAX_TESTED:
                            have.append(value)
            if matched and template and template not in e.opens:
                e.opens.append(template)
        if found:
            e.flags = [
                with_files(f, sorted(v))
                if len(v := found.get(f.name.lstrip("-").replace("-", "_"), [])) >= 2
                else f
                for f in e.flags
            ]


def _borrow_parsers(index: RepoIndex) -> None:
    """A program without options of its own that imports exactly one module defining only a
    parser (`main.py` importing `config.py`, whose `init_args` builds it) accepts that parser's
    options: it takes them, with `parser` saying where they are written. A package's
    `__init__.py` it imports stands for the modules that one imports (`from simvp.utils
    import create_parser`, re-exported from simvp/utils/parser.py)."""
    entries = {e.path: e for e in index.entry_points}
    for e in index.entry_points:
        if e.flags or not e.runnable or e.kind not in ("main", "script"):
            continue
        imported = list(index.imports.get(e.path, []))
        for p in list(imported):
            if p.endswith("/__init__.py"):
                imported += [q for q in index.imports.get(p, []) if q not in imported]
        parsers = [
            entries[p]
            for p in imported
            if p in entries and entries[p].flags and not entries[p].runnable
        ]
        if len(parsers) == 1:
            e.flags = [f.model_copy() for f in parsers[0].flags]
            e.kind = parsers[0].kind
            e.parser = parsers[0].path


def _add_config_options(
    root: Path, entry: EntryPoint, name: str, line: int, resolver: PathResolver
) -> None:
    """The options a program adds from a config file's keys (`for k, v in config.items():
    parser.add_argument(f"--{k}", default=v)`), read from the file it names, relative to where
    it is run or to itself. Defined in the config: a program with no options of its own cites
    them there (`parser`), else at the line adding them."""
    path = resolver.file(name, ["", posixpath.dirname(entry.path)])
    if path is None or not is_config_file(path):
        return
    try:
        real = (root / path).resolve()
        if not real.is_relative_to(root.resolve()):
            return  # the walk kept it, but a link out of the checkout is never read
        text = real.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    own = {f.name for f in entry.flags}
    alone = not entry.flags and not entry.parser
    added = [f for f in config_options(path, text, 0 if alone else line) if f.name not in own]
    if added:
        entry.flags = [*entry.flags, *added]
        if alone:
            entry.parser = path


IMPORT_HOPS = 3  # how far into the modules a program imports its options' values are sought


def _values_tested_elsewhere(index: RepoIndex, tested: dict[str, dict[str, list[str]]]) -> None:
    """An option whose own module tests no value for it takes the values the modules the
    program imports test an attribute of its name for (`--train_mode`, defined in config.py,
    and `match self.config.train_mode: case 'full':` in src/trainers.py), the nearest first."""
    for e in index.entry_points:
        if not e.flags or not e.path.endswith(".py"):
            continue
        seen = {e.path, e.parser}
        frontier = [e.path, *([e.parser] if e.parser else [])]
        found: dict[str, list[str]] = {}
        for _ in range(IMPORT_HOPS):
            frontier = [m for p in frontier for m in index.imports.get(p, []) if m not in seen]
            seen.update(frontier)
            for module in dict.fromkeys(frontier):
                for attr, values in tested.get(module, {}).items():
                    have = found.setdefault(attr, [])
                    have += [v for v in values if v not in have][: MAX_TESTED - len(have)]
        if found:
            e.flags = [
                f if "(values the code tests" in f.help else with_tested(f, found) for f in e.flags
            ]


def _note_skipped(index: RepoIndex) -> None:
    """One info line per skip reason, so a reviewer sees at a glance what was not read."""
    reasons = Counter(f.skipped.split(" (")[0] for f in index.files if f.skipped)
    for reason, n in sorted(reasons.items()):
        index.add_error(
            STAGE, "skipped_files", f"{n} file(s) not read: {reason}", severity=Severity.info
        )


def _import_graph(raw: dict[str, list[ImportRef]], resolver: PathResolver) -> dict[str, list[str]]:
    graph: dict[str, list[str]] = {}
    for path, refs in sorted(raw.items()):
        here = posixpath.dirname(path)
        out: list[str] = []
        for ref in refs:
            for hit in _resolve_import(ref, here, resolver):
                if hit != path and hit not in out:
                    out.append(hit)
        if out:
            graph[path] = out
    return graph


def _resolve_import(ref: ImportRef, here: str, resolver: PathResolver) -> list[str]:
    """Repo files an import refers to, searched the way a script run from the repo would."""
    if ref.level:
        pkg = here
        for _ in range(ref.level - 1):
            pkg = posixpath.dirname(pkg)
        bases = [pkg]
    else:
        ancestors = []
        d = here
        while d:
            d = posixpath.dirname(d)
            ancestors.append(d)
        bases = [here, "", "src", *ancestors]
    for base in bases:
        hits: list[str] = []
        if ref.module:
            for name in ref.names:
                sub = resolver.module(f"{ref.module}.{name}", [base])
                if sub:
                    hits.append(sub)
            target = resolver.module(ref.module, [base])
        else:
            target = None
            for name in ref.names:
                sub = resolver.module(name, [base])
                if sub:
                    hits.append(sub)
        if target:
            hits.insert(0, target)
        if hits:
            return hits
    return []
