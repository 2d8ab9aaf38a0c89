"""A library's methods run through its tests: the run of a test module says the call the
test makes of what it is named after, to make on the task's data. Each repository is built
with git in tmp_path and mined for real."""

from __future__ import annotations

import ast
from pathlib import Path

from repo_fixture import recovered_setup

from expcurate.records import DesignComplexity, TaskDraft
from extractors.agent.library_calls import (
    compared_values,
    library_call,
    named_after,
    picked_values,
)

PC = '''"""The PC algorithm: a skeleton by conditional independence tests, then orientations."""


def pc(data, alpha, indep_test):
    """Run the PC algorithm on the data and return the causal graph."""
    return {"alpha": alpha, "test": indep_test, "n": len(data)}
'''

CIT = '''"""Conditional independence tests."""


def fisherz(data, x, y, s):
    """Fisher's z test of partial correlation."""
    return 0.5
'''

TEST_PC = """import unittest

import numpy as np

from graphs.search.PC import pc
from graphs.utils.cit import fisherz


class TestPC(unittest.TestCase):
    def test_oracle(self):
        graph = pc([], 0.05, fisherz)
        self.assertEqual(graph["n"], 0)

    def test_linear(self):
        data = np.loadtxt("tests/data/linear_10.txt", skiprows=1)
        graph = pc(data, 0.05, fisherz)
        self.assertEqual(graph["alpha"], 0.05)
"""

TEST_ANM = """import unittest

from graphs.search.ANM import ANM


class TestANM(unittest.TestCase):
    anm = ANM()

    def test_direction(self):
        x = [1, 2, 3]
        forward, backward = self.anm.cause_or_effect(x, x)
        self.assertTrue(forward > backward)
"""

ANM = '''class ANM:
    """The additive noise model: which of two variables causes the other."""

    def cause_or_effect(self, x, y):
        return 0.9, 0.1
'''


def _repository_module(dotted: str) -> bool:
    return dotted.startswith("graphs.")


def test_a_test_module_names_the_call_it_makes_of_what_it_tests() -> None:
    """TestPC.py tests `pc`: its call on data it reads from a file, before the oracle call
    on an empty list; TestANM.py tests the class ANM: the object, then its method, with
    where the method's input is made."""
    assert named_after("tests/TestPC.py") == "PC"
    assert named_after("tests/test_custom_ci.py") == "custom_ci"
    found = library_call("tests/TestPC.py", ast.parse(TEST_PC), _repository_module)
    assert found is not None
    assert found.note() == (
        "this runs the test's own data: for the task's, call pc as tests/TestPC.py:16 does, "
        "`graph = pc(data, 0.05, fisherz)`, imported from graphs.search.PC (the test makes "
        "its input at :15: `data = np.loadtxt('tests/data/linear_10.txt', skiprows=1)`)"
    )
    found = library_call("tests/TestANM.py", ast.parse(TEST_ANM), _repository_module)
    assert found is not None
    assert found.note() == (
        "this runs the test's own data: for the task's, call ANM as tests/TestANM.py:7 does, "
        "`anm = ANM()`, then `forward, backward = self.anm.cause_or_effect(x, x)` (:11), "
        "imported from graphs.search.ANM (the test makes its input at :10: `x = [1, 2, 3]`)"
    )
    # a name imported from elsewhere than the repository is no library call of it
    assert library_call("tests/TestPC.py", ast.parse(TEST_PC), lambda m: False) is None


def test_a_libraries_test_run_says_the_call_to_make_on_the_tasks_data(tmp_path: Path) -> None:
    files = {
        "README.md": "# graphs\n\nCausal discovery in Python.\n\n```bash\npip install graphs\n```\n",
        "graphs/__init__.py": "",
        "graphs/search/__init__.py": "",
        "graphs/search/PC.py": PC,
        "graphs/utils/__init__.py": "",
        "graphs/utils/cit.py": CIT,
        "tests/__init__.py": "",
        "tests/TestPC.py": TEST_PC,
    }
    task = TaskDraft(
        question="Does the PC algorithm with Fisher's z test recover the causal graph of "
        "linear Gaussian data?",
        method="Run the PC algorithm with the fisherz test at alpha 0.05 and compare the graph.",
        design_complexity=DesignComplexity(
            independent_variables={"algorithm": ["PC algorithm"]},
            dependent_variables={"metric": ["structural Hamming distance"]},
        ),
    )
    usage = recovered_setup(tmp_path / "lib", files, task).usage_instructions
    assert (
        "`python -m pytest tests/TestPC.py` (this runs the test's own data: for the task's, "
        "call pc as tests/TestPC.py:16 does, `graph = pc(data, 0.05, fisherz)`, imported from "
        "graphs.search.PC"
    ) in usage, usage


GES = '''"""Greedy equivalence search with a choice of score."""


def ges(data, score_func="local_score_BIC", max_parents=None):
    if score_func == "local_score_CV_general":
        score = 1.0
    elif score_func == "local_score_marginal_general":
        score = 2.0
    elif score_func in ("local_score_BIC", "local_score_BIC_from_cov"):
        score = 3.0
    elif score_func == "local_score_BDeu":
        score = 4.0
    else:
        raise ValueError("unknown score")
    return {"score": score, "n": len(data)}
'''

TEST_GES = """import unittest

import numpy as np

from graphs.search.GES import ges


class TestGES(unittest.TestCase):
    # the standard score functions: the causal structure recovered with BIC and BDeu
    def test_ges_load_linear_with_local_score_BIC(self):
        data = np.loadtxt("tests/data/linear_10.txt", skiprows=1)
        record = ges(data, score_func="local_score_BIC")
        self.assertEqual(record["n"], 10)

    def test_ges_load_discrete_with_local_score_BDeu(self):
        data = np.loadtxt("tests/data/discrete_10.txt", skiprows=1)
        record = ges(data, score_func="local_score_BDeu")
        self.assertEqual(record["n"], 10)
"""


def test_the_strings_a_called_function_tests_its_parameter_for_are_picked_by_an_arm() -> None:
    """ges tests `score_func` for five strings: "Generalized score functions" picks the two
    its word "general" names, not all five its word "score" names; "Standard score
    functions" picks none."""
    compared = compared_values(ast.parse(GES), "ges")
    assert compared == {
        "score_func": [
            ("local_score_CV_general", 5),
            ("local_score_marginal_general", 7),
            ("local_score_BIC", 9),
            ("local_score_BIC_from_cov", 9),
            ("local_score_BDeu", 11),
        ]
    }
    assert picked_values("Generalized score functions", compared) == (
        "score_func",
        [("local_score_CV_general", 5), ("local_score_marginal_general", 7)],
    )
    assert picked_values("Standard score functions", compared) is None
    assert picked_values("BDeu score", compared) == ("score_func", [("local_score_BDeu", 11)])
    assert compared_values(ast.parse(GES), "pc") == {}


def test_an_arm_no_run_runs_is_the_library_calls_value_it_names(tmp_path: Path) -> None:
    """The runs are `python -m pytest tests/TestGES.py`; no option selects "Generalized
    score functions", but ges tests its score_func for two strings the arm's words name:
    the arm's line says to make the test's call with them, where ges tests for them."""
    files = {
        "README.md": (
            "# graphs\n\nCausal discovery in Python.\n\n```bash\npip install graphs\n```\n\n"
            "Check the searches:\n\n```bash\npython -m pytest tests/TestGES.py\n```\n"
        ),
        "graphs/__init__.py": "",
        "graphs/search/__init__.py": "",
        "graphs/search/GES.py": GES,
        "tests/__init__.py": "",
        "tests/TestGES.py": TEST_GES,
    }
    task = TaskDraft(
        question="Will changing the score function configuration (generalized score "
        "functions against standard score functions) improve the recovery of the causal "
        "structure?",
        method="Run the search with each score function and compare the recovered graphs.",
        design_complexity=DesignComplexity(
            independent_variables={
                "score function": ["Standard score functions", "Generalized score functions"]
            },
            dependent_variables={"metric": ["structural Hamming distance"]},
        ),
    )
    usage = recovered_setup(tmp_path / "ges", files, task).usage_instructions
    assert (
        "(call ges as tests/TestGES.py:12 does, with score_func='local_score_CV_general' or "
        "'local_score_marginal_general', the values ges tests it for "
        "(graphs/search/GES.py:5, :7))"
    ) in usage, usage
    standard = next(line for line in usage.splitlines() if "Run Standard score" in line)
    assert "score_func=" not in standard, usage


def test_a_notebooks_import_resolving_only_from_a_folder_puts_it_on_the_path(
    tmp_path: Path,
) -> None:
    """`tests/example.ipynb` imports `search.pc`, which is `graphs/search/pc.py`: run from
    its folder it would not import, so the command puts graphs/ on PYTHONPATH and says why;
    a package under src/ is what installing makes importable, and is left as it is."""
    import json

    from repo_fixture import committed_index

    from extractors.agent.notebook_arms import unresolved_import
    from extractors.repo import RepoSearch

    def notebook(line: str) -> str:
        cell = {"cell_type": "code", "metadata": {}, "source": [line, "graph = pc([], 0.05)\n"]}
        return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4}, indent=1)

    files = {
        "graphs/__init__.py": "",
        "graphs/search/__init__.py": "",
        "graphs/search/pc.py": PC,
        "src/kit/__init__.py": "",
        "tests/example.ipynb": notebook("from search.pc import pc\n"),
        "tests/installed.ipynb": notebook("from kit import pc\n"),
        "tests/third.ipynb": notebook("from numpy import pc\n"),
    }
    index = committed_index(tmp_path / "nb", files)
    search = RepoSearch(tmp_path / "nb", index)
    known = {f.path for f in index.files}
    line = next(
        i for i, x in enumerate(files["tests/example.ipynb"].splitlines(), 1) if "import" in x
    )
    assert unresolved_import("tests/example.ipynb", search, known) == (
        "graphs",
        f"its import `from search.pc import pc` (tests/example.ipynb:{line}) resolves only from "
        "graphs/: the command puts graphs on PYTHONPATH",
    )
    assert unresolved_import("tests/installed.ipynb", search, known) == ("", "")
    assert unresolved_import("tests/third.ipynb", search, known) == ("", "")
    # the notebook's run carries it
    task = TaskDraft(
        question="How do you discover a causal graph with the PC search in the example notebook?",
        method="Run the example notebook's PC search on its data.",
        design_complexity=DesignComplexity(dependent_variables={"output": ["causal graph"]}),
    )
    usage = recovered_setup(tmp_path / "run", files, task).usage_instructions
    assert (
        "`PYTHONPATH=$PWD/graphs jupyter nbconvert --to notebook --execute tests/example.ipynb` "
        "(its import `from search.pc import pc`"
    ) in usage, usage


def test_a_module_name_a_star_import_does_not_bind_is_said(tmp_path: Path) -> None:
    """`from graphs.search.PC import *` binds `pc`, not the module `PC`: the code cell's
    `PC.pc(data, 0.05)` stops with a NameError. The Markdown cell showing the same call is
    no code; a module the notebook imports by name, or binds itself, is fine."""
    import json

    from repo_fixture import committed_index

    from extractors.agent.notebook_arms import code_lines, unbound_module
    from extractors.repo import RepoSearch

    def notebook(*code: str) -> str:
        cells = [
            {"cell_type": "markdown", "metadata": {}, "source": ["`PC.pc(X, alpha)` searches.\n"]},
            {"cell_type": "code", "metadata": {}, "source": list(code)},
        ]
        return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}, indent=1)

    star = "from graphs.search.PC import *\n"
    files = {
        "graphs/__init__.py": "",
        "graphs/search/__init__.py": "",
        "graphs/search/PC.py": PC,
        "tests/star.ipynb": notebook(star, "graph = PC.pc([], 0.05)\n"),
        "tests/named.ipynb": notebook(star, "from graphs.search import PC\n", "PC.pc([], 0.05)\n"),
        "tests/direct.ipynb": notebook(star, "graph = pc([], 0.05)\n"),
    }
    index = committed_index(tmp_path / "nb", files)
    search = RepoSearch(tmp_path / "nb", index)
    known = {f.path for f in index.files}
    raw = files["tests/star.ipynb"].splitlines()
    at = {k: i for i, x in enumerate(raw, 1) for k in ("import", "graph =") if k in x}
    assert [x for _, x in code_lines(search, "tests/star.ipynb")] == [
        star.rstrip("\n"),
        "graph = PC.pc([], 0.05)",
    ]
    assert unbound_module("tests/star.ipynb", search, known) == (
        f"`PC.pc` (tests/star.ipynb:{at['graph =']}) names the module its star import `from "
        f"graphs.search.PC import *` (:{at['import']}) reads from, which that import does not "
        "bind: call `pc` itself, or import the module (`from graphs.search import PC`)"
    )
    assert unbound_module("tests/named.ipynb", search, known) == ""
    assert unbound_module("tests/direct.ipynb", search, known) == ""
