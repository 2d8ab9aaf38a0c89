"""What a launch script's invocation sets, group by group, at its own lines."""

from __future__ import annotations

from extractors.agent.arm_runs import as_script_runs
from extractors.agent.launch import flag_groups, with_setting
from extractors.agent.run import Run

SCRIPT = """seq_len=720
for pred_len in 96 192
do
  python -u run_longExp.py \\
    --random_seed 2021 \\
    --is_training 1 \\
    --root_path ./dataset/ \\
    --data_path ETTh1.csv \\
    --model PDF \\
    --seq_len $seq_len \\
    --pred_len $pred_len \\
    --e_layers 3 \\
    --n_heads 4 \\
    --d_model 16 \\
    --dropout 0.25 \\
    --fc_dropout 0.15 \\
    --train_epochs 100 \\
    --patience 10 \\
    --itr 1 --batch_size 128 --learning_rate 0.0001 >logs/x.log
done
""".splitlines()


def test_a_flag_a_line_invocation_is_cut_into_what_it_sets() -> None:
    groups = flag_groups(SCRIPT, 4, 19)
    assert groups == [
        ("the data and horizons", ["root_path", "data_path", "seq_len", "pred_len"], 7, 11),
        ("the model's architecture", ["e_layers", "n_heads", "d_model"], 12, 14),
        ("the regularization", ["dropout", "fc_dropout"], 15, 16),
        ("the training schedule", ["train_epochs", "patience", "itr", "batch_size",
                                   "learning_rate"], 17, 19),
    ]  # fmt: skip


def test_a_group_amid_another_groups_lines_is_merged_into_it() -> None:
    """The dropouts written between the architecture's options (PDF's `etth2.sh`): one
    step for both, where two would cite the same lines."""
    lines = [*SCRIPT[:13], SCRIPT[14], SCRIPT[15], SCRIPT[13], *SCRIPT[16:]]  # d_model last
    groups = flag_groups(lines, 4, 19)
    assert groups[1] == (
        "the model's architecture and the regularization",
        ["e_layers", "n_heads", "d_model", "dropout", "fc_dropout"],
        12,
        16,
    )
    assert [g[0] for g in groups] == [
        "the data and horizons",
        "the model's architecture and the regularization",
        "the training schedule",
    ]


def test_a_flag_is_grouped_by_its_own_words_not_by_parts_of_another_name() -> None:
    # `pass_rate_result_path` is where results go, not a learning rate; `reference_model` is
    # which model's answers are compared, not `d_model`; `mask_rate` is no schedule
    lines = [
        "python eval_preference.py \\",
        "    --converted_answer_path answers/ \\",
        "    --reference_model chatgpt_cot \\",
        "    --output_model gpt-4 \\",
        "    --save_path preference_results \\",
        "    --pass_rate_result_path pass_rate_results \\",
        "    --mask_rate 0.125 \\",
        "    --use_pass_rate true",
    ]
    assert flag_groups(lines, 1, 8) == [
        ("the data and horizons", ["converted_answer_path", "save_path",
                                   "pass_rate_result_path"], 2, 6),
        ("the other settings", ["reference_model", "output_model", "mask_rate",
                                "use_pass_rate"], 3, 8),
    ]  # fmt: skip


def test_the_flags_of_no_group_are_the_runs_other_settings() -> None:
    """CycleNet's scripts set `--cycle 24` and `--model_type mlp`, what tells its arms
    apart, and the steps left them out (the 39th development reader: "leaves out
    --cycle/--model_type"). Flags of no group are the run's other settings; never Python's
    own `-u`, nor how the run is launched (`--nproc_per_node`) or what kind of task it is."""
    lines = [
        "torchrun --nproc_per_node 8 --master_port 2345 run.py \\",
        "    --task_name long_term_forecast \\",
        "    --root_path ./dataset/ \\",
        "    --data_path ETTh1.csv \\",
        "    --cycle 24 \\",
        "    --model_type mlp \\",
        "    --train_epochs 30 \\",
        "    --patience 5",
    ]
    assert flag_groups(["python -u run.py \\", *lines[1:]], 1, 8) == [
        ("the data and horizons", ["root_path", "data_path"], 3, 4),
        ("the other settings", ["cycle", "model_type"], 5, 6),
        ("the training schedule", ["train_epochs", "patience"], 7, 8),
    ]
    assert flag_groups(lines, 1, 8)[1] == ("the other settings", ["cycle", "model_type"], 5, 6)


def test_an_invocation_on_a_few_lines_is_not_cut() -> None:
    lines = ["python run.py --e_layers 3 --n_heads 4 --dropout 0.1 --fc_dropout 0.2 \\", "  --lr 1"]
    assert flag_groups(lines, 1, 2) == []


def test_a_loop_split_over_runs_tuned_apart_is_swept_not_what_is_tuned() -> None:
    """`for pred_len in 96 192` with `--keep 96`, then `for pred_len in 336 720` with
    `--keep 0`: the horizons are swept; what keeps is tuned for the longer ones (its values
    are even inside the horizons' labels, 96 in "96,192" and 0 in "336,720")."""
    from expcurate.records import TaskDraft
    from extractors.agent.launch import invocation_of
    from extractors.agent.query import build_query

    first = "\n".join(SCRIPT).replace("--dropout 0.25", "--keep 96")
    later = first.replace("96 192", "336 720").replace("--keep 96", "--keep 0")
    lines = [*first.splitlines(), *later.splitlines()]
    task = TaskDraft(key="t", question="How low is the MSE of PDF on ETTh1?")
    _, _, settings, _ = invocation_of(lines, build_query(task), [])
    assert "--pred_len {96,192,336,720}" in settings, settings
    assert "--keep" not in settings, settings


def test_a_list_option_is_said_with_every_value_the_script_gives() -> None:
    """`--period 8 12 24 168 336`: the setting names the list, not its first number; a
    single value stays one, and a value with a word after it is no list."""
    from expcurate.records import TaskDraft
    from extractors.agent.launch import invocation_of
    from extractors.agent.query import build_query

    lines = [
        "python -u run.py --model PDF --period 8 12 24 168 336 \\",
        "  --patch_len 1 2 3 --e_layers 3 --des Exp",
    ]
    task = TaskDraft(key="t", question="Which period and patch length suit PDF best?")
    _, _, settings, _ = invocation_of(lines, build_query(task), [])
    assert "--period 8 12 24 168 336" in settings and "--patch_len 1 2 3" in settings, settings


def test_a_switch_the_command_gives_already_is_not_given_twice() -> None:
    # the LoRA arm's run on a script that already loads LoRA weights: its command as it is
    script = "python infer.py --model_path llama-7b --lora --lora_path weights --method dfs"
    assert with_setting(script, ["--lora"]) == script
    # a sibling's switch is dropped first, then this arm's is added
    assert with_setting(script, ["--full"], off={"--lora"}).split()[-1] == "--full"
    assert "--lora " not in with_setting(script, ["--full"], off={"--lora"})
    base = Run(script, script="scripts/infer_lora.sh", invocation=script)
    assert as_script_runs(base, ["--lora"], []) == (
        "scripts/infer_lora.sh's command with --lora, which it gives itself"
    )
