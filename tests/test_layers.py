"""The house rules of docs/architecture.md, checked on the code's own imports.

Every import counts, including those inside functions and under `TYPE_CHECKING`: a lazy import
that runs up a layer is still a dependency that runs up a layer.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("expcurate", "extractors", "flows", "validation_ui")

# (module prefix, layer, rank): a module may import its own layer's modules and any layer of
# lower rank. Two layers of one rank are neighbours that must not know each other. The first
# matching prefix wins.
LAYERS: tuple[tuple[str, str, int], ...] = (
    ("expcurate.records", "records", 0),
    ("expcurate.settings", "records", 0),
    ("extractors", "extractors", 1),
    ("expcurate.store", "store", 1),
    ("expcurate.curation", "curation", 2),
    ("flows", "flows", 3),
    ("expcurate.cli", "cli", 4),
    ("expcurate.__main__", "cli", 4),
    ("validation_ui", "validation_ui", 4),
    ("expcurate", "records", 0),  # the package root holds nothing of its own
)


def layer_of(module: str) -> tuple[str, int] | None:
    for prefix, name, rank in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return name, rank
    return None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every project module `path` imports, at any depth of its code."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            # `from pkg import mod` imports the submodule when there is one
            for alias in node.names:
                found.add(f"{target}.{alias.name}")
    return {m for m in found if m.split(".")[0] in PACKAGES and _exists(m)}


def _exists(module: str) -> bool:
    base = ROOT.joinpath(*module.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def project_modules() -> dict[str, Path]:
    return {
        module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
    }


def test_every_module_has_a_layer() -> None:
    """A new top-level package or core module must be given its place in the table first."""
    homeless = [m for m in project_modules() if layer_of(m) is None]
    assert homeless == []


def test_no_import_runs_up_a_layer() -> None:
    """Records sit at the ground; extractors and the store above them, side by side and
    unaware of each other; curation above both; flows above curation; the CLI and the review
    app at the top. An import may only point down, or stay inside its own layer."""
    wrong = []
    for module, path in sorted(project_modules().items()):
        mine = layer_of(module)
        assert mine is not None
        for target in sorted(imports_of(path)):
            theirs = layer_of(target)
            assert theirs is not None
            if theirs[0] != mine[0] and theirs[1] >= mine[1]:
                wrong.append(f"{module} ({mine[0]}) imports {target} ({theirs[0]})")
    assert wrong == []


def test_no_import_loops() -> None:
    """No module reaches itself through its imports (a loop means neither can be read alone)."""
    modules = project_modules()
    graph = {m: {t for t in imports_of(p) if t in modules and t != m} for m, p in modules.items()}
    # A package's __init__ handing on its submodules' names is how a package shows its face;
    # the submodules importing their siblings through the package is what makes a loop.
    loops: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                loops.append([*trail[trail.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    loops = [loop for loop in loops if not _through_own_init(loop)]
    assert loops == []


def _through_own_init(loop: list[str]) -> bool:
    """A loop that only closes through a package's own __init__ importing its children."""
    return any(b.startswith(a + ".") or a.startswith(b + ".") for a, b in itertools.pairwise(loop))


@pytest.mark.parametrize(
    ("importer", "target", "allowed"),
    [
        ("extractors.tasks.heuristic", "expcurate.records", True),
        ("extractors.tasks.heuristic", "expcurate.store", False),
        ("expcurate.store.db", "extractors.validate", False),
        ("expcurate.curation.pipeline", "extractors.paper", True),
        ("expcurate.records", "expcurate.curation.review", False),
        ("expcurate.store.db", "expcurate.records", True),
        ("validation_ui.logic", "expcurate.cli.common", False),
        ("flows.curate", "expcurate.cli", False),
        ("expcurate.cli.papers", "flows.curate", True),
    ],
)
def test_the_rule_itself(importer: str, target: str, allowed: bool) -> None:
    """The table says what it means: a guard that allowed everything would pass the test above."""
    mine, theirs = layer_of(importer), layer_of(target)
    assert mine is not None and theirs is not None
    assert (theirs[0] == mine[0] or theirs[1] < mine[1]) is allowed
