"""The code side: a mined repository index, and the setup agent's tool calls."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from expcurate.records.results import StageResult


class RepoFile(BaseModel):
    path: str
    language: str = ""
    size: int = 0
    lines: int = 0
    skipped: str = ""  # why the file's content was not read ("binary", "too large", ...)


class CliFlag(BaseModel):
    name: str
    default: str = ""
    help: str = ""
    line: int = 0
    aliases: list[str] = Field(default_factory=list)  # other spellings: --ds for --dataset
    switch: bool = False  # given bare (store_true, is_flag); `type=bool` options take a value


class EntryPoint(BaseModel):
    """A file that can be run: `if __name__ == "__main__"` or a CLI parser."""

    path: str
    # main | script (top-level code) | argparse | click | typer | hydra | fire | absl | shell
    kind: str = "main"
    flags: list[CliFlag] = Field(default_factory=list)
    line: int = 0  # line of the main guard / parser
    calls: list[str] = Field(default_factory=list)  # repo files a launch script runs
    # False for a module that only defines a parser (imported by the real script).
    runnable: bool = True
    # where `flags` are defined when not in this file: the parser module a program without
    # options of its own imports (`main.py` reading `config.py`'s `init_args`)
    parser: str = ""
    # options beyond `flags` are accepted: a framework adds its own to the parser
    # (`pl.Trainer.add_argparse_args(parser)`) or the program keeps unknown ones
    # (`parse_known_args`)
    open_options: bool = False
    # files the program opens at paths built from its options, as templates whose fields are
    # the options' names (`config/{pattern}/{dataset}.yaml`), when the repository has such
    opens: list[str] = Field(default_factory=list)


class DocCommand(BaseModel):
    """A command written in a README or doc: what it runs and where it is written."""

    text: str
    doc: str
    line: int
    runs: list[str] = Field(default_factory=list)


class ConfigFile(BaseModel):
    path: str
    values: dict[str, str] = Field(default_factory=dict)


class ResultFile(BaseModel):
    path: str
    numbers: list[str] = Field(default_factory=list)


class RepoIndex(StageResult):
    root: str = ""
    commit: str = ""
    files: list[RepoFile] = Field(default_factory=list)
    commands: list[DocCommand] = Field(default_factory=list)
    entry_points: list[EntryPoint] = Field(default_factory=list)
    configs: list[ConfigFile] = Field(default_factory=list)
    results: list[ResultFile] = Field(default_factory=list)
    imports: dict[str, list[str]] = Field(default_factory=dict)
    # file -> repo files it names (config paths in string literals, flag values, commands)
    file_refs: dict[str, list[str]] = Field(default_factory=dict)

    def file(self, path: str) -> RepoFile | None:
        for f in self.files:
            if f.path == path:
                return f
        return None


class ToolCall(BaseModel):
    """One step of the setup agent, kept for the reviewer."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: str = ""
