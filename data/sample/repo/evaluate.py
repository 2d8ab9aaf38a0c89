"""Evaluate a trained GateMix checkpoint on the validation or test split.

Example:
    python evaluate.py --checkpoint runs/etth1_s2021 --split test \
        --append-log results/main_results.log
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from gatemix.data import iterate_windows, load_splits
from gatemix.metrics import mae, mse
from gatemix.model import GateMix, GateMixConfig


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", type=str, required=True, help="folder written by train.py")
    p.add_argument("--split", choices=["val", "test"], default="test")
    p.add_argument("--data-root", type=str, default=None, help="override the training data root")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--append-log", type=str, default=None, help="append one result line here")
    p.add_argument("--variant", type=str, default="full", help="label written to the log")
    p.add_argument(
        "--save-gates", type=str, default=None, help="save mean gate per block and token (.npy)"
    )
    return p


def main(argv: list[str] | None = None) -> dict:
    args = build_parser().parse_args(argv)
    ckpt = Path(args.checkpoint)
    meta = json.loads((ckpt / "run.json").read_text())
    train_args = meta["args"]
    cfg = GateMixConfig(**meta["model"])
    model = GateMix(cfg, seed=train_args["seed"])
    model.load_state_dict(dict(np.load(ckpt / "model.npz")))

    data_root = args.data_root or train_args["data_root"]
    _, val, test = load_splits(train_args["dataset"], data_root, cfg.lookback)
    series = test if args.split == "test" else val

    preds, targets, gates = [], [], []
    for x, y in iterate_windows(series, cfg.lookback, cfg.horizon, args.batch_size):
        preds.append(model.forward(x, train=False))
        targets.append(y)
        if cfg.use_gate:
            gates.append(np.stack(model.last_gates))
    pred, target = np.concatenate(preds), np.concatenate(targets)
    result = {
        "dataset": train_args["dataset"],
        "horizon": cfg.horizon,
        "seed": train_args["seed"],
        "variant": args.variant,
        "mse": round(mse(pred, target), 3),
        "mae": round(mae(pred, target), 3),
    }
    print(json.dumps(result))

    if args.append_log:
        line = " ".join(f"{k}={v}" for k, v in result.items())
        with open(args.append_log, "a") as fh:
            fh.write(line + "\n")
    if args.save_gates and gates:
        # (blocks, tokens): the heat map of Figure 2.
        np.save(args.save_gates, np.mean(gates, axis=0))
    return result


if __name__ == "__main__":
    main()
