"""Repository mining: resolve_repo, mine_repo and the confined search tools, on real git repos."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import git
import pytest
from repo_fixture import TRAIN, build_demo_repo, committed_index, write

from expcurate.records import RepoIndex, Severity, Status
from extractors.repo import RepoLoadError, RepoPathError, RepoSearch, mine_repo, resolve_repo

SMALL_LIMIT = 2000  # bytes: makes data/huge.txt "too large" without writing megabytes


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RepoIndex]:
    base = tmp_path_factory.mktemp("demo")
    root = build_demo_repo(base / "repo", outside=base / "outside")
    return root, mine_repo(root, "abc", max_file_bytes=SMALL_LIMIT)


def _file(index: RepoIndex, path: str):
    rec = index.file(path)
    assert rec is not None, f"{path} missing from the inventory"
    return rec


# ---------------------------------------------------------------- inventory


def test_inventory_lists_text_files_with_language_size_and_lines(demo) -> None:
    _, index = demo
    rec = _file(index, "train.py")
    assert (rec.language, rec.skipped) == ("python", "")
    assert rec.lines == TRAIN.count("\n") and rec.size == len(TRAIN.encode())
    assert _file(index, "scripts/run_cifar.sh").language == "shell"
    assert _file(index, "configs/cifar.yaml").language == "yaml"


def test_inventory_records_every_unreadable_file_with_its_reason(demo) -> None:
    _, index = demo
    assert _file(index, "data/weights.dat").skipped == "binary"
    assert _file(index, "data/huge.txt").skipped.startswith("too large")
    assert _file(index, "checkpoints/model.pt").skipped == "git-lfs pointer"
    assert _file(index, "leak.txt").skipped == "symlink outside repository"
    assert _file(index, "train_link.py").skipped == "symlink inside repository"
    assert _file(index, "legacy/old.py").skipped == ""  # read, but not parseable (see below)


def test_non_utf8_text_is_read_as_latin1_and_noted(demo) -> None:
    _, index = demo
    assert _file(index, "docs/latin1.txt").skipped == ""
    notes = [e for e in index.errors if e.file == "docs/latin1.txt"]
    assert notes and notes[0].severity == Severity.info and "latin-1" in notes[0].message


def test_vendored_and_git_directories_are_not_indexed_but_reported(demo) -> None:
    _, index = demo
    paths = [f.path for f in index.files]
    assert not [p for p in paths if p.startswith((".git/", "node_modules/", ".venv/"))]
    reported = {e.file for e in index.errors if e.category == "skipped_dir"}
    assert {"node_modules", ".venv"} <= reported


def test_python2_file_is_a_warning_and_mining_still_succeeds(demo) -> None:
    _, index = demo
    warn = [e for e in index.errors if e.file == "legacy/old.py"]
    assert warn and warn[0].severity == Severity.warning
    assert index.status == Status.succeeded


def test_too_many_files_stops_with_an_error_that_says_how_to_fix(tmp_path: Path) -> None:
    for i in range(12):
        write(tmp_path, f"m{i:02d}.py", "x = 1\n")
    index = mine_repo(tmp_path, max_files=5)
    assert len(index.files) == 5
    assert index.status == Status.partial
    assert any("max_files" in e.message for e in index.errors)


# ---------------------------------------------------------------- entry points, commands


def test_argparse_flags_have_defaults_help_and_lines(demo) -> None:
    root, index = demo
    entry = next(e for e in index.entry_points if e.path == "train.py")
    assert entry.kind == "argparse" and entry.runnable
    lines = (root / "train.py").read_text().splitlines()
    assert lines[entry.line - 1].startswith('if __name__ == "__main__"')
    flags = {f.name: f for f in entry.flags}
    assert flags["--lr"].default == "0.001" and flags["--lr"].help == "learning rate"
    assert flags["--no_gate"].default == "False"
    assert "--lr" in lines[flags["--lr"].line - 1]


def test_click_hydra_and_fire_entry_points_are_recognised(demo) -> None:
    _, index = demo
    kinds = {e.path: e.kind for e in index.entry_points}
    assert kinds["gm/cli.py"] == "click"
    assert kinds["apps/hydra_app.py"] == "hydra"
    assert kinds["apps/fire_app.py"] == "fire"
    assert kinds["apps/typer_app.py"] == "typer"
    typer_app = next(e for e in index.entry_points if e.path == "apps/typer_app.py")
    assert [(f.name, f.default) for f in typer_app.flags] == [("--format", "onnx")]
    cli = next(e for e in index.entry_points if e.path == "gm/cli.py")
    assert [(f.name, f.default) for f in cli.flags] == [("--depth", "12")]


def test_launch_scripts_link_to_the_python_files_they_run(demo) -> None:
    _, index = demo
    scripts = {e.path: e for e in index.entry_points if e.kind == "shell"}
    cifar = scripts["scripts/run_cifar.sh"]
    assert cifar.calls == ["train.py"]
    flags = {f.name: f.default for f in cifar.flags}
    assert flags["--dataset"] == "cifar10"  # $dataset expanded from the script's variable
    assert flags["--lr"] == "0.001"
    assert scripts["scripts/run_imagenet.sh"].calls == ["train.py"]  # after cd $(dirname $0)/..
    assert index.file_refs["scripts/run_cifar.sh"] == ["configs/cifar.yaml"]


def test_readme_commands_are_found_in_fences_prompts_indents_and_inline_code(demo) -> None:
    _, index = demo
    by_line = {c.line: c for c in index.commands if c.doc == "README.md"}
    assert by_line[6].runs == ["train.py"] and by_line[6].text.startswith("python train.py")
    assert by_line[11].runs == ["scripts/run_imagenet.sh"]
    assert by_line[15].runs == ["gm/cli.py"]  # CUDA_VISIBLE_DEVICES=0 python -m gm.cli
    assert by_line[17].runs == ["train.py"]  # inline `torchrun ... train.py`
    assert len(by_line) == 4
    rst = [c for c in index.commands if c.doc == "docs/usage.rst"]
    assert [(c.line, c.runs) for c in rst] == [(6, ["train.py"])]  # 3-space literal block


def test_configs_are_flattened_to_dotted_keys(demo) -> None:
    _, index = demo
    configs = {c.path: c.values for c in index.configs}
    assert configs["configs/cifar.yaml"]["optimizer.lr"] == "0.001"
    assert configs["configs/cifar.yaml"]["schedule.1"] == "300"
    assert configs["configs/base.json"]["data.splits.0"] == "0.8"
    py = configs["configs/gatemix_cfg.py"]
    assert py["model.depth"] == "12" and py["model.gate.kind"] == "sigmoid"
    assert "train.py" not in configs


def test_result_and_log_files_keep_their_numbers(demo) -> None:
    _, index = demo
    results = {r.path: r.numbers for r in index.results}
    assert results["results/cifar.csv"] == ["91.2", "88.7"]
    assert "78.4" in results["logs/imagenet.log"]


def test_import_graph_resolves_the_repos_own_modules(demo) -> None:
    _, index = demo
    assert index.imports["train.py"] == ["gm/data.py", "gm/model.py"]
    assert "gm/cli.py" not in index.imports  # imports only click


def test_mining_a_5000_file_repository_takes_seconds(tmp_path: Path) -> None:
    body = "import os\n\n\ndef f(x):\n    return x + 1\n" * 8
    for i in range(5000):
        write(
            tmp_path, f"pkg{i % 50}/mod{i}.py", f"from pkg{(i + 1) % 50} import mod{i + 1}\n{body}"
        )
    start = time.perf_counter()
    index = mine_repo(tmp_path)
    elapsed = time.perf_counter() - start
    assert len(index.files) == 5000
    assert elapsed < 15, f"mining 5000 files took {elapsed:.1f}s"


# ---------------------------------------------------------------- resolve_repo


def test_plain_folder_is_snapshotted_with_a_stable_commit(tmp_path: Path) -> None:
    src = tmp_path / "folder"
    write(src, "a.py", "print(1)\n")
    clones = tmp_path / "clones"
    work1, sha1 = resolve_repo(str(src), None, clones)
    work2, sha2 = resolve_repo(str(src), None, clones)
    assert sha1 == sha2 and len(sha1) == 40 and work1 == work2
    assert (work1 / "a.py").read_text() == "print(1)\n"
    write(src, "a.py", "print(2)\n")
    _, sha3 = resolve_repo(str(src), None, clones)
    assert sha3 != sha1
    assert not (src / ".git").exists()  # the caller's folder is left alone


def test_local_git_repo_is_pinned_without_touching_the_callers_checkout(tmp_path: Path) -> None:
    src = tmp_path / "src"
    repo = git.Repo.init(src)
    write(src, "a.py", "v = 1\n")
    repo.git.add("-A")
    repo.git.execute(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"])
    first = repo.head.commit.hexsha
    write(src, "a.py", "v = 2\n")
    repo.git.execute(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two"])
    work, sha = resolve_repo(str(src), first[:8], tmp_path / "clones")
    assert sha == first
    assert (work / "a.py").read_text() == "v = 1\n"
    assert git.Repo(work).head.is_detached
    assert (src / "a.py").read_text() == "v = 2\n"
    with pytest.raises(RepoLoadError, match="not in"):
        resolve_repo(str(src), "deadbeef", tmp_path / "clones")


def test_missing_path_fails_with_a_one_line_message(tmp_path: Path) -> None:
    with pytest.raises(RepoLoadError) as err:
        resolve_repo(str(tmp_path / "nope"), None, tmp_path / "clones")
    assert "does not exist" in str(err.value) and "\n" not in str(err.value)


def test_file_url_is_cloned_once_and_reused(tmp_path: Path) -> None:
    src = tmp_path / "src"
    repo = git.Repo.init(src)
    write(src, "train.py", "print('hi')\n")
    repo.git.add("-A")
    repo.git.execute(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"])
    bare = tmp_path / "bare.git"
    git.Repo.clone_from(str(src), bare, bare=True)
    url = bare.resolve().as_uri()
    clones = tmp_path / "clones"
    work, sha = resolve_repo(url, None, clones)
    assert sha == repo.head.commit.hexsha and (work / "train.py").exists()
    shutil.rmtree(bare)  # a second resolve must not need the remote
    work2, sha2 = resolve_repo(url, sha, clones)
    assert (work2, sha2) == (work, sha)
    with pytest.raises(RepoLoadError, match="could not fetch"):
        resolve_repo(url, "0" * 40, clones)


def test_unresolvable_url_fails_fast_without_traceback_text(tmp_path: Path) -> None:
    start = time.perf_counter()
    with pytest.raises(RepoLoadError) as err:
        resolve_repo("https://invalid.invalid/x.git", None, tmp_path / "clones")
    assert time.perf_counter() - start < 30
    message = str(err.value)
    assert message.startswith("could not clone https://invalid.invalid/x.git")
    assert "Traceback" not in message and "\n" not in message
    left = [p for p in (tmp_path / "clones").iterdir() if p.suffix != ".lock"]
    assert not left  # no half-made cache entry (a lock file is none)


def test_unsupported_url_scheme_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RepoLoadError, match="unsupported git URL scheme"):
        resolve_repo("ext::sh -c touch% /tmp/pwned", None, tmp_path)


# ---------------------------------------------------------------- search tools


@pytest.fixture(scope="module")
def tools(demo) -> RepoSearch:
    root, index = demo
    return RepoSearch(root, index)


@pytest.mark.parametrize(
    "path", ["../outside/secret.txt", "/etc/passwd", "leak.txt", ".git/config", "gm/../../x"]
)
def test_tools_refuse_paths_that_leave_the_repository(tools: RepoSearch, path: str) -> None:
    with pytest.raises(RepoPathError):
        tools.read(path)
    with pytest.raises(RepoPathError):
        tools.outline(path)


def test_a_pattern_that_backtracks_without_end_fails_instead_of_hanging(tmp_path: Path) -> None:
    """A model's regex runs under a time limit: catastrophic backtracking ends the search with
    a RepoPathError the agent reports back, and an ordinary pattern still finds its lines."""
    (tmp_path / "train.py").write_text("x = 1\n" + "a" * 40 + "\n")
    search = RepoSearch(tmp_path, mine_repo(tmp_path))
    with pytest.raises(RepoPathError, match="took longer than"):
        search.grep(r"(a|aa)+c", seconds=0.2)
    # The patterns that hung Python's re on this kind of line now simply find nothing.
    assert search.grep(r"(\w+\s?)*$!") == [] and search.grep(r"(.*.*)*zzz") == []
    assert search.grep(r"x\s*=\s*\d") == [("train.py", 1, "x = 1")]


def test_grep_reads_a_notebooks_cells_not_its_outputs(tmp_path: Path) -> None:
    """A plot's base64 output holds any short pattern by chance; grep finds the cell's line,
    at its line in the .ipynb file, and nothing in the outputs."""
    cells = [
        {"cell_type": "code", "source": ["lbf_results = load('LBF')\n"],
         "outputs": [{"data": {"image/png": "iVBORw0KGgoLBFxyzLBF", "text/plain": ["LBF 3"]}}]},
    ]  # fmt: skip
    (tmp_path / "analysis.ipynb").write_text(json.dumps({"cells": cells}, indent=1))
    search = RepoSearch(tmp_path, mine_repo(tmp_path))
    hits = search.grep("LBF")
    assert [(p, line) for p, _, line in hits] == [("analysis.ipynb", "lbf_results = load('LBF')")]
    number = hits[0][1]
    assert "lbf_results" in (tmp_path / "analysis.ipynb").read_text().splitlines()[number - 1]


def test_tools_refuse_unreadable_files_with_the_reason(tools: RepoSearch) -> None:
    with pytest.raises(RepoPathError, match="binary"):
        tools.read("data/weights.dat")


def test_read_returns_the_requested_lines(tools: RepoSearch) -> None:
    assert (
        tools.read("gm/data.py", 1, 2)
        == 'def load_data(name):\n    """Load an image dataset by name."""'
    )


def test_grep_finds_lines_and_treats_a_bad_regex_literally(tools: RepoSearch) -> None:
    hits = tools.grep(r"def build_model", max_hits=5)
    assert hits == [("gm/model.py", 18, "def build_model(gate=True):")]
    assert tools.grep("[unclosed", max_hits=5) == []
    assert len(tools.grep("import", max_hits=2)) == 2


def test_outline_gives_classes_and_functions_with_line_ranges(tools: RepoSearch) -> None:
    items = tools.outline("gm/model.py")
    assert ("class", "GateMix", 4, 15) in items
    assert ("method", "GateMix.step", 11, 12) in items
    assert ("function", "build_model", 18, 20) in items
    assert ("heading", "GateMix", 1, 17) in tools.outline("README.md")


def test_search_ranks_files_by_bm25_over_paths_and_text(tools: RepoSearch) -> None:
    ranked = [p for p, _ in tools.search("gated mixing block GateMix model", k=3)]
    assert ranked[0] == "gm/model.py"
    scores = [s for _, s in tools.search("cosine schedule AdamW", k=5)]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    assert tools.search("zzzunknownword", k=5) == []


def test_a_notebook_whose_outputs_run_past_the_index_limit_is_searched_by_its_cells(
    tmp_path: Path,
) -> None:
    """A demo notebook with its output images inline (base64, 700 kB at MogaNet's
    demo.ipynb) is indexed by its cells' sources: cut before the cells were read, it was
    indexed as broken JSON, image data and all, and its words ranked it nowhere."""
    import json

    image = "iVBORw0KGgo" * 60_000  # a PNG output, longer than the index reads of any file
    notebook = {
        "cells": [
            {"cell_type": "code", "source": ["show(picture)\n"], "outputs": [
                {"data": {"image/png": image}, "output_type": "display_data"}]},
            {"cell_type": "code", "source": ["model = zebrafish_classifier(pretrained=True)\n"]},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    write(tmp_path, "demo.ipynb", json.dumps(notebook))
    write(tmp_path, "train.py", "print('train the classifier')\n")
    search = RepoSearch(tmp_path, committed_index(tmp_path, {}))
    assert search.document_frequency("zebrafish_classifier") == 1
    assert search.search("zebrafish classifier pretrained", k=1)[0][0] == "demo.ipynb"
    assert search.document_frequency("iVBORw0KGgo") == 0  # outputs are not what it says


def test_commands_in_blockquotes_and_commented_continuations_are_mined(tmp_path: Path) -> None:
    """`> python train.py` in a README and a `\\` line ending in a `# note` are still commands."""
    (tmp_path / "train.py").write_text("if __name__ == '__main__':\n    pass\n")
    (tmp_path / "run.py").write_text("if __name__ == '__main__':\n    pass\n")
    (tmp_path / "README.md").write_text(
        "# X\n\nTrain:\n\n> python train.py --lr 0.1\n\n"
        "```bash\npython run.py \\\n  --a 1 \\  # the a flag\n  --b 2\n```\n"
    )
    commands = {c.text: c for c in mine_repo(tmp_path).commands}
    assert commands["python train.py --lr 0.1"].runs == ["train.py"]
    assert commands["python run.py --a 1 --b 2"].line == 8


def test_repository_code_with_invalid_escapes_parses_without_printing_warnings() -> None:
    import warnings

    from extractors.repo.pysource import analyze_python

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning leaking out fails the test
        code = "import argparse\n" + r'PATTERN = "\d+"' + "\nN = 1if True else 2\n"
        info = analyze_python("old.py", code)
    assert not info.error and [i.module for i in info.imports] == ["argparse"]


def test_papers_sharing_a_folder_snapshot_it_once_and_keep_each_others_checkout(
    tmp_path: Path,
) -> None:
    """Two processes resolving the same plain folder at once (a parallel batch): both get the
    same commit, and the second does not replace the checkout the first is reading."""
    import subprocess
    import sys

    folder = tmp_path / "code"
    folder.mkdir()
    (folder / "train.py").write_text("print('train')\n")
    clones = tmp_path / "clones"
    script = (
        "import sys; from extractors.repo import resolve_repo;"
        "root, sha = resolve_repo(sys.argv[1], None, sys.argv[2]); print(sha)"
    )
    root = Path(__file__).resolve().parents[2]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(folder), str(clones)],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    shas = {p.communicate(timeout=120)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(shas) == 1
    sha = shas.pop()
    folders = sorted(p.name for p in clones.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert len(folders) == 2 and folders[1] == f"{folders[0]}@{sha[:12]}"  # repo, worktree
    checkout = clones / folders[1]
    marker = checkout / "reader-was-here.txt"
    marker.write_text("x")  # an untracked file, which the next resolve cleans
    again = resolve_repo(str(folder), None, clones)
    assert again == (checkout, sha) and not marker.exists()
    # The folder changes: a new snapshot beside the first, which stays readable.
    (folder / "train.py").write_text("print('train, changed')\n")
    root2, sha2 = resolve_repo(str(folder), None, clones)
    assert sha2 != sha and root2 != checkout
    assert (checkout / "train.py").read_text() == "print('train')\n"
    assert (root2 / "train.py").read_text() == "print('train, changed')\n"
    import git

    from extractors.repo.carry import CodeDiff

    assert "train.py" in CodeDiff(git.Repo(root2), sha, sha2).changes  # both commits kept


def test_documented_commands_after_any_shell_prompt_are_found(tmp_path: Path) -> None:
    readme = """# Demo

```bash
~$ python3 run.py --model gpt-4
user@box:~/demo$ bash go.sh
(venv) $ python run.py --model small
```
"""
    index = committed_index(
        tmp_path,
        {
            "README.md": readme,
            "run.py": "import argparse\nif __name__ == '__main__':\n    print(1)\n",
            "go.sh": "python run.py\n",
        },
    )
    found = [(c.line, c.runs, c.text) for c in index.commands if c.doc == "README.md"]
    assert found == [
        (4, ["run.py"], "python3 run.py --model gpt-4"),
        (5, ["go.sh"], "bash go.sh"),
        (6, ["run.py"], "python run.py --model small"),
    ]


def test_documented_commands_run_at_a_lower_priority_are_found(tmp_path: Path) -> None:
    """`nice` (with or without its niceness) runs the program after it."""
    readme = """# Demo

```bash
nice python run.py --model gpt-4
CUDA_VISIBLE_DEVICES=0 nice -n 10 python run.py --model small
nohup nice -5 bash go.sh
```
"""
    index = committed_index(
        tmp_path,
        {
            "readme.md": readme,
            "run.py": "import argparse\nif __name__ == '__main__':\n    print(1)\n",
            "go.sh": "python run.py\n",
        },
    )
    found = [(c.line, c.runs) for c in index.commands if c.doc == "readme.md"]
    assert found == [(4, ["run.py"]), (5, ["run.py"]), (6, ["go.sh"])]


def test_options_a_program_adds_from_its_config_files_keys_are_its_options(
    tmp_path: Path,
) -> None:
    """`for k, v in load("conf/base.yaml").items(): parser.add_argument(f"--{k}", default=v)`:
    the file's top-level keys are the options, its values the defaults, and a comment listing
    alternatives the values they take; a file linked from outside the checkout is not read."""
    write(
        tmp_path,
        "conf/base.yaml",
        "# run\nseed: 7\nbackbone: vgg11  # vgg11 / vgg16 / vit\nsched:\n  lr: 0.1\n",
    )
    loop = (
        "import argparse\n"
        "import yaml\n"
        "\n"
        "\n"
        "def load(path):\n"
        "    return yaml.safe_load(open(path))\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"  # 10
        "    parser.add_argument('--out', default='runs')\n"
        "    {name} = load('{config}')\n"
        "    for key, value in {name}.items():\n"
        "        parser.add_argument('--' + key, default=value, type=type(value))\n"
        "    print(parser.parse_args())\n"
    )
    write(tmp_path, "train.py", loop.replace("{name}", "cfg").replace("{config}", "conf/base.yaml"))
    write(tmp_path, "bare.py", loop.replace("{name}", "c").replace("{config}", "conf/base.yaml"))
    (tmp_path / "bare.py").write_text(
        (tmp_path / "bare.py").read_text().replace("    parser.add_argument('--out'", "    #")
    )
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text("secret: 1\n")
    (tmp_path / "conf" / "leak.yaml").symlink_to(outside)
    write(tmp_path, "leak.py", loop.replace("{name}", "cfg").replace("{config}", "conf/leak.yaml"))
    entries = {e.path: e for e in mine_repo(tmp_path).entry_points}

    train = entries["train.py"]
    flags = {f.name: f for f in train.flags}
    assert set(flags) == {"--out", "--seed", "--backbone"}  # a nested key is no option
    assert flags["--seed"].default == "7"
    assert "(values its comment lists: ['vgg11', 'vgg16', 'vit'])" in flags["--backbone"].help
    assert flags["--backbone"].line == 14  # beside its own options: where the loop adds them
    # a program whose options all come from the file cites them there
    bare = entries["bare.py"]
    assert bare.parser == "conf/base.yaml"
    assert {f.name: f.line for f in bare.flags} == {"--seed": 2, "--backbone": 3}
    assert {f.name for f in entries["leak.py"].flags} == {"--out"}


def test_an_options_values_are_those_the_modules_its_program_imports_test(tmp_path: Path) -> None:
    """`--train_mode` defined in config.py takes the values `match self.config.train_mode:`
    tests in the trainer main.py imports, and those an `==` tests one import further; a
    module the program never imports says nothing about it."""
    write(
        tmp_path,
        "config.py",
        "import argparse\n\n\ndef init_args():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--train_mode', type=str, default='base')\n    return p.parse_args()\n",
    )
    write(
        tmp_path,
        "main.py",
        "from config import init_args\nfrom src.trainer import Trainer\n\n"
        "if __name__ == '__main__':\n    Trainer(init_args()).fit()\n",
    )
    write(tmp_path, "src/__init__.py", "")
    write(
        tmp_path,
        "src/trainer.py",
        "from src.data import Data\n\n\nclass Trainer:\n    def __init__(self, config):\n"
        "        self.config = config\n\n    def fit(self):\n"
        "        match self.config.train_mode:\n            case 'base':\n                pass\n"
        "            case 'full' | 'lora':\n                Data(self.config)\n",
    )
    write(
        tmp_path,
        "src/data.py",
        "class Data:\n    def __init__(self, config):\n"
        "        self.tiny = config.train_mode == 'tiny'\n",
    )
    write(tmp_path, "tools/other.py", "def f(c):\n    return c.train_mode == 'never'\n")
    entries = {e.path: e for e in mine_repo(tmp_path).entry_points}
    (flag,) = entries["main.py"].flags
    assert flag.help == "(values the code tests: ['base', 'full', 'lora', 'tiny'])"


def test_a_program_takes_the_options_of_a_parser_its_package_re_exports(tmp_path: Path) -> None:
    """`from simvp.utils import create_parser`, where simvp/utils/__init__.py imports it from
    its parser module: the program takes that parser's options, from a sub-project folder."""
    write(
        tmp_path,
        "video/simvp/utils/parser.py",
        "import argparse\n\n\ndef create_parser():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--lr', type=float, default=1e-3)\n    return p\n",
    )
    write(tmp_path, "video/simvp/utils/misc.py", "def seed(n):\n    return n\n")
    write(
        tmp_path,
        "video/simvp/utils/__init__.py",
        "from .parser import create_parser\nfrom .misc import seed\n",
    )
    write(tmp_path, "video/simvp/__init__.py", "")
    write(
        tmp_path,
        "video/tools/train.py",
        "from simvp.utils import create_parser\n\n"
        "if __name__ == '__main__':\n    print(create_parser().parse_args().lr)\n",
    )
    entries = {e.path: e for e in mine_repo(tmp_path).entry_points}
    assert [f.name for f in entries["video/tools/train.py"].flags] == ["--lr"]
    assert entries["video/tools/train.py"].parser == "video/simvp/utils/parser.py"


def test_a_readme_is_one_shell_session_across_its_code_blocks(tmp_path: Path) -> None:
    """`cd evaluate` in one block, `python evaluate.py` in the next: the program is
    evaluate/evaluate.py; a `cd` into the clone (`cd Repo`, no folder here) moves nothing."""
    main = "if __name__ == '__main__':\n    print(1)\n"
    write(tmp_path, "evaluate/generate.py", main)
    write(tmp_path, "evaluate/evaluate.py", main)
    write(tmp_path, "train.py", main)
    write(
        tmp_path,
        "README.md",
        "# Repo\n\n```\ngit clone https://example.org/Repo\ncd Repo\n```\n\n"
        "```\npython train.py\n```\n\nGenerate first:\n\n```\ncd evaluate\n"
        "python generate.py\n```\n\nThen evaluate:\n\n```\npython evaluate.py --task math\n```\n",
    )
    runs = {c.text.split()[1]: c.runs for c in mine_repo(tmp_path).commands}
    assert runs["train.py"] == ["train.py"]
    assert runs["evaluate.py"] == ["evaluate/evaluate.py"]


def test_a_documented_commands_unset_shell_variables_are_named_placeholders() -> None:
    from expcurate.records import DocCommand
    from extractors.repo.commands import run_from

    def run(text: str) -> str:
        return run_from(DocCommand(text=text, doc="README.md", line=3, runs=["test.py"]), set())

    # `$gpu-id` is `$gpu` then "-id" to a shell: one placeholder, as the authors meant it
    assert run("python test.py --dout $dout --device $gpu-id") == (
        "python test.py --dout <DOUT> --device <GPU_ID>"
    )
    assert run("python test.py --out ${OUT}/x --home $HOME/data") == (
        "python test.py --out <OUT>/x --home $HOME/data"
    )
    # what the command sets itself, or loops over, is no placeholder
    looped = "for s in 1 2; do SEED=$s python test.py --seed $SEED; done"
    assert run(looped) == looped


def test_a_documented_command_inside_a_loop_keeps_its_loop(tmp_path: Path) -> None:
    (tmp_path / "test.py").write_text("if __name__ == '__main__':\n    pass\n")
    (tmp_path / "README.md").write_text(
        "# X\n\n```\nfor dout in texture svhn\ndo\npython test.py --dout $dout \\\n"
        "  --gpu 0\ndone\npython test.py --dout lsun\n```\n"
    )
    texts = [c.text for c in mine_repo(tmp_path).commands]
    assert texts == [
        "for dout in texture svhn; do python test.py --dout $dout --gpu 0; done",
        "python test.py --dout lsun",  # after `done`: no loop of its own
    ]


def test_a_parser_a_framework_adds_options_to_accepts_options_it_does_not_list(
    tmp_path: Path,
) -> None:
    """`pl.Trainer.add_argparse_args(parser)` adds the trainer's options (`--max_epochs`), and
    `parse_known_args` keeps what it does not know: a command passing them runs."""
    from extractors.repo.commands import check_command

    parser = (
        "import argparse\nimport pytorch_lightning as pl\n\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--enc', default='def')\n"
        "{extra}"
        "    args = parser.{parse}()\n"
    )
    files = {
        "framework.py": parser.format(
            extra="    parser = pl.Trainer.add_argparse_args(parser)\n", parse="parse_args"
        ),
        "known.py": parser.format(extra="", parse="parse_known_args"),
        "closed.py": parser.format(extra="", parse="parse_args"),
    }
    index = committed_index(tmp_path, files)
    entries = {e.path: e for e in index.entry_points}
    assert [entries[p].open_options for p in files] == [True, True, False]
    known = {f.path for f in index.files}
    for path in files:
        _, unknown = check_command(f"python {path} --enc exp --max_epochs 10", known, entries)
        assert bool(unknown) == (path == "closed.py"), (path, unknown)


def test_a_documented_list_of_choices_is_one_value_and_the_options_choices(
    tmp_path: Path,
) -> None:
    """README: `python3 infer.py --model {gpt-3.5, gpt-4, gemini-pro}` is one run of infer.py
    whose `--model` takes one of those; a path the prose only points at ("refer to
    `./train.py`") is no command, and the values a function compares the option's bare name
    with (`model == 'local'`, handed `args.model`) are its values too."""
    write(
        tmp_path,
        "infer.py",
        "import argparse\n\np = argparse.ArgumentParser()\n"
        "p.add_argument('--model', type=str, default='gpt-3.5')\n"
        "p.add_argument('--split', type=str, default='test')\nargs = p.parse_args()\n\n\n"
        "def answer(model, question):\n    if model == 'local':\n        return question\n"
        "    return model\n\n\nprint(answer(args.model, 'q'))\n",
    )
    write(tmp_path, "train.py", "if __name__ == '__main__':\n    print(1)\n")
    write(
        tmp_path,
        "README.md",
        "# X\n\n> To change the training, please refer to `./train.py`.\n\n"
        "```bash\n~$ python3 infer.py --model {gpt-3.5, gpt-4, gemini-pro} --split [dev | test]\n"
        "```\n",
    )
    index = mine_repo(tmp_path)
    assert [c.text for c in index.commands] == [
        "python3 infer.py --model {gpt-3.5,gpt-4,gemini-pro} --split [dev,test]"
    ]
    flags = {f.name: f.help for e in index.entry_points if e.path == "infer.py" for f in e.flags}
    assert flags["--model"] == (
        "(values the code tests: ['local']) (values its docs list: ['gpt-3.5', 'gpt-4', "
        "'gemini-pro'])"
    )
    assert flags["--split"] == "(values its docs list: ['dev', 'test'])"


def test_a_shell_brace_expansion_or_variable_is_no_list_of_choices() -> None:
    from extractors.repo.commands import documented_choices, joined_choices

    assert joined_choices("python x.py --out ${OUT} --k {1..3}") == (
        "python x.py --out ${OUT} --k {1..3}"
    )
    assert documented_choices("python x.py --out ${A,B} --seeds 1 2") == {}
    assert documented_choices("python x.py --data {a,b}") == {"--data": ["a", "b"]}


def test_a_sub_projects_launch_script_runs_the_program_of_its_project(tmp_path: Path) -> None:
    """`Formers/FEDformer/scripts/run_long.sh` says `python -u run.py`: the project's own
    `run.py` above the script, not the repository's top-level `run.py`; a top-level script
    still runs the top-level program."""
    program = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--seq_len')\n"
    index = committed_index(
        tmp_path,
        {
            "run.py": program,
            "scripts/top.sh": "python -u run.py --seq_len 96\n",
            "Formers/FEDformer/run.py": program,
            "Formers/FEDformer/scripts/run_long.sh": "# cd FEDformer\npython -u run.py --seq_len 96\n",
        },
    )
    calls = {e.path: e.calls for e in index.entry_points}
    assert calls["Formers/FEDformer/scripts/run_long.sh"] == ["Formers/FEDformer/run.py"]
    assert calls["scripts/top.sh"] == ["run.py"]


def test_a_long_documented_command_is_kept_whole(tmp_path: Path) -> None:
    # a training command with forty options runs far past 600 characters; cut, its last
    # options would be lost or a quoted value broken
    options = " \\\n    ".join(f"--option_{k} {k}" for k in range(40))
    readme = f"# Train\n\n```bash\ntorchrun --nproc_per_node=2 train.py \\\n    {options} \\\n    --fsdp 'full_shard auto_wrap'\n```\n"
    index = committed_index(
        tmp_path,
        {
            "README.md": readme,
            "train.py": "import argparse\nif __name__ == '__main__':\n    print(1)\n",
        },
    )
    (found,) = [c for c in index.commands if c.doc == "README.md"]
    assert len(found.text) > 600
    assert found.text.endswith("--option_39 39 --fsdp 'full_shard auto_wrap'"), found.text


def test_a_module_setting_up_its_logger_at_import_is_no_script(tmp_path: Path) -> None:
    # handlers made and attached at import time are a library's set-up, not a run
    evaluator = (
        "import logging\n\nlogger = logging.getLogger(__name__)\n"
        "handler = logging.FileHandler('log.txt')\n"
        "handler.setFormatter(logging.Formatter('%(message)s'))\n"
        "logger.addHandler(handler)\nlogger.addHandler(logging.StreamHandler())\n\n\n"
        "class Evaluator:\n    def __call__(self, scores):\n        return sum(scores)\n"
    )
    script = (
        "import logging\nlogging.basicConfig()\nrows = load('x')\nfor r in rows:\n    print(r)\n"
    )
    index = committed_index(tmp_path, {"api_evaluator.py": evaluator, "make_table.py": script})
    kinds = {e.path: e.kind for e in index.entry_points}
    assert "api_evaluator.py" not in kinds, kinds
    assert kinds["make_table.py"] == "script", kinds


def test_a_bare_script_name_the_repository_holds_once_is_that_file(tmp_path: Path) -> None:
    # a README section written from toolbench/tooleval/ says `python eval_pass_rate.py`; a
    # common name (train.py) may be another project's and stays unresolved
    readme = (
        "# Tools\n\n```bash\npython eval_pass_rate.py --save_path results\n"
        "python train.py --epochs 1\n```\n"
    )
    main = "import argparse\nif __name__ == '__main__':\n    print(1)\n"
    index = committed_index(
        tmp_path,
        {"README.md": readme, "tools/eval/eval_pass_rate.py": main, "src/train.py": main},
    )
    found = {c.text: c.runs for c in index.commands if c.doc == "README.md"}
    assert found == {
        "python eval_pass_rate.py --save_path results": ["tools/eval/eval_pass_rate.py"],
        "python train.py --epochs 1": [],
    }, found


def test_a_notebooks_imports_are_mined_past_its_magics_and_prose(tmp_path: Path) -> None:
    cells = [
        {"cell_type": "markdown", "source": ["from here on, we optimize the agent\n"]},
        {"cell_type": "code", "source": ["%pip install trace-opt\n", "!ls\n"]},
        {"cell_type": "code", "source": ["import os\n", "from opto.llm import Client\n"]},
    ]
    llm = "import os\n\n\nclass Client:\n    key = os.environ.get('OPENAI_API_KEY')\n"
    files = {
        "docs/demo.ipynb": json.dumps({"cells": cells}, indent=1),
        "opto/__init__.py": "",
        "opto/llm.py": llm,
    }
    index = committed_index(tmp_path, files)
    # the notebook imports the repository's module, wherever the notebook sits
    assert index.imports["docs/demo.ipynb"] == ["opto/llm.py"]
