"""Train GateMix on one benchmark and keep the checkpoint with the best validation MSE.

Example:
    python train.py --config configs/etth1.yaml --seed 2021 --out runs/etth1_s2021
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import yaml
from gatemix.data import iterate_windows, load_splits
from gatemix.metrics import mae, mse
from gatemix.model import GateMix, GateMixConfig
from gatemix.optim import Adam


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", type=str, default=None, help="YAML file with defaults")
    p.add_argument("--dataset", type=str, default="etth1", help="etth1|ettm1|weather|electricity")
    p.add_argument("--data-root", type=str, default="data", help="folder with the CSV files")
    p.add_argument("--lookback", type=int, default=336, help="look-back window L")
    p.add_argument("--horizon", type=int, default=96, help="forecast horizon H")
    p.add_argument("--patch-len", type=int, default=16, help="patch length P")
    p.add_argument("--stride", type=int, default=8, help="patch stride S")
    p.add_argument("--n-blocks", type=int, default=3, help="number of mixing blocks K")
    p.add_argument("--d-model", type=int, default=128, help="hidden width D")
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--gate-temperature", type=float, default=1.0, help="gate temperature tau")
    p.add_argument("--no-gate", action="store_true", help="ablation: ungated token mixing")
    p.add_argument("--no-channel-mix", action="store_true", help="ablation: drop feature MLP")
    p.add_argument("--no-patch", action="store_true", help="ablation: one token per step")
    p.add_argument("--learn-temperature", action="store_true", help="learn tau per model")
    p.add_argument("--lr", type=float, default=0.001, help="Adam learning rate")
    p.add_argument("--weight-decay", type=float, default=0.0001)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--patience", type=int, default=5, help="early-stopping patience (epochs)")
    p.add_argument("--seed", type=int, default=2021)
    p.add_argument("--out", type=str, default="runs/default", help="checkpoint folder")
    return p


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command line beats the YAML config, which beats the built-in defaults."""
    parser = build_parser()
    args, _ = parser.parse_known_args(argv)
    if args.config:
        with open(args.config) as fh:
            values = yaml.safe_load(fh) or {}
        parser.set_defaults(**{k.replace("-", "_"): v for k, v in values.items()})
    return parser.parse_args(argv)


def model_config(args: argparse.Namespace) -> GateMixConfig:
    return GateMixConfig(
        lookback=args.lookback,
        horizon=args.horizon,
        patch_len=args.patch_len,
        stride=args.stride,
        n_blocks=args.n_blocks,
        d_model=args.d_model,
        dropout=args.dropout,
        gate_temperature=args.gate_temperature,
        use_gate=not args.no_gate,
        use_channel_mix=not args.no_channel_mix,
        use_patching=not args.no_patch,
        learn_temperature=args.learn_temperature,
    )


def evaluate_split(model: GateMix, series: np.ndarray, args: argparse.Namespace) -> dict:
    preds, targets = [], []
    for x, y in iterate_windows(series, args.lookback, args.horizon, args.batch_size):
        preds.append(model.forward(x, train=False))
        targets.append(y)
    pred, target = np.concatenate(preds), np.concatenate(targets)
    return {"mse": mse(pred, target), "mae": mae(pred, target)}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    rng = np.random.default_rng(args.seed)
    train, val, _ = load_splits(args.dataset, args.data_root, args.lookback)
    cfg = model_config(args)
    model = GateMix(cfg, seed=args.seed)
    optim = Adam(model.trainable(), lr=args.lr, weight_decay=args.weight_decay)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    best, bad_epochs, history = float("inf"), 0, []
    for epoch in range(1, args.epochs + 1):
        start, losses = time.perf_counter(), []
        for x, y in iterate_windows(
            train, args.lookback, args.horizon, args.batch_size, shuffle=True, rng=rng
        ):
            pred = model.forward(x, train=True)
            losses.append(mse(pred, y))
            optim.step(model.backward(2.0 * (pred - y) / pred.size))
        val_metrics = evaluate_split(model, val, args)
        history.append(
            {
                "epoch": epoch,
                "train_mse": float(np.mean(losses)),
                "val_mse": val_metrics["mse"],
                "seconds": time.perf_counter() - start,
            }
        )
        print(json.dumps(history[-1]))
        if val_metrics["mse"] < best:
            best, bad_epochs = val_metrics["mse"], 0
            np.savez(out / "model.npz", **model.state_dict())
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                print(f"early stop at epoch {epoch}: no improvement for {args.patience} epochs")
                break

    meta = {"args": vars(args), "model": asdict(cfg), "best_val_mse": best, "history": history}
    (out / "run.json").write_text(json.dumps(meta, indent=2))


if __name__ == "__main__":
    main()
