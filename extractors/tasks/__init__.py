"""Draft one task per experiment the paper reports.

`heuristic` (the offline default) reads the paper's structure; any other model name goes
through the LLM layer (`extractors.llm`) with the prompts in `prompts/`.
"""

from __future__ import annotations

from pathlib import Path

from expcurate.records import DraftSet, ParsedPaper, Status
from expcurate.settings import Settings, get_settings
from extractors.tasks import heuristic

PROMPT_VERSION = "tasks-heuristic-11"  # 2: a table repeating another one's question is one task;
# 3: the rows a kept question names stay arms beside the finding's rows; 4: a caption's later
# sentence saying where its experiments ran sets the data when its subject names none; 5: H@k
# (hits at k) is a measure, so a table of measure rows compares its columns; 6: rows marked
# as replacements of one row ("→LoRA") are its ablation, that row the full model; 7: 6 undone
# (a reader graded the ablation C, the comparison B: the reference row has no win rate); 8: a
# setting a caption fixes by a symbol, "(ρ = 50)", is held constant; 9: the method says which
# compared rows the paper cites as prior work ("PASCL (Wang et al. 2022)"); 10: the data a
# caption draws its samples from ("contexts from Wikicorpus") is held; 11: the method says what
# the acronyms of compared names stand for, as the paper spells them out ("ICH as
# instance-level contrastive head")


def prompt_version(model: str) -> str:
    """What a stage run records as its prompt version: it changes when the wording does."""
    if model == "heuristic":
        return PROMPT_VERSION
    from extractors.tasks.llm import prompt_version as llm_prompt_version

    return llm_prompt_version()


def draft_tasks(
    paper: ParsedPaper,
    model: str = "heuristic",
    *,
    settings: Settings | None = None,
    images_root: Path | None = None,
) -> DraftSet:
    """Draft the paper's tasks with `model`; a model that cannot be used fails the stage.

    `images_root` is the folder the paper's relative table/figure image paths start from (the
    paper's artifact folder); without it the model sees no crops.
    """
    if model == "heuristic":
        return heuristic.draft(paper)
    from extractors.llm import PrerequisiteError, make_client
    from extractors.tasks.llm import draft_with_llm

    client = None
    try:
        client = make_client(settings or get_settings(), model=model)
        assert client is not None  # model is not "heuristic"
        return draft_with_llm(paper, client, images_root=images_root)
    except PrerequisiteError as e:
        result = DraftSet(status=Status.failed)
        result.add_error("tasks", "prerequisite", str(e))
        result.status = Status.failed
        if client is not None:
            result.usage = client.usage.model_copy()
        return result


__all__ = ["PROMPT_VERSION", "draft_tasks", "prompt_version"]
