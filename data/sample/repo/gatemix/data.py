"""Benchmark loading, chronological splits and sliding windows (Section 4.1).

The CSV files are expected under `--data-root` with a timestamp in the first column and one
column per variable, as distributed with the public forecasting benchmarks.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class DatasetInfo:
    filename: str
    frequency: str
    n_channels: int
    split: tuple[float, float, float]  # train / validation / test fractions


DATASETS: dict[str, DatasetInfo] = {
    "etth1": DatasetInfo("ETTh1.csv", "1h", 7, (0.6, 0.2, 0.2)),
    "ettm1": DatasetInfo("ETTm1.csv", "15min", 7, (0.6, 0.2, 0.2)),
    "weather": DatasetInfo("weather.csv", "10min", 21, (0.7, 0.1, 0.2)),
    "electricity": DatasetInfo("electricity.csv", "1h", 321, (0.7, 0.1, 0.2)),
}


def read_csv(path: Path) -> np.ndarray:
    """Read every column but the timestamp into a (time, channels) float array."""
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        next(reader)  # header
        rows = [[float(v) for v in row[1:]] for row in reader if row]
    return np.asarray(rows, dtype=np.float64)


def synthetic_series(length: int = 4000, channels: int = 7, seed: int = 0) -> np.ndarray:
    """Daily and weekly cycles plus noise; used by the smoke test in the README."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)[:, None]
    phase = rng.uniform(0, 2 * np.pi, (1, channels))
    series = np.sin(2 * np.pi * t / 24 + phase) + 0.5 * np.sin(2 * np.pi * t / 168 + phase)
    return series + 0.1 * rng.standard_normal((length, channels))


def load_splits(
    name: str, data_root: str | Path, lookback: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Standardised train/val/test arrays; val and test keep `lookback` steps of history.

    Statistics come from the training part only, so nothing about the test period leaks.
    """
    if name == "synthetic":
        series, fractions = synthetic_series(), (0.7, 0.1, 0.2)
    else:
        if name not in DATASETS:
            raise ValueError(f"unknown dataset {name!r}; choose from {sorted(DATASETS)}")
        info = DATASETS[name]
        series, fractions = read_csv(Path(data_root) / info.filename), info.split
    n = len(series)
    n_train = int(n * fractions[0])
    n_val = int(n * fractions[1])
    mean = series[:n_train].mean(axis=0)
    std = series[:n_train].std(axis=0) + 1e-8
    scaled = (series - mean) / std
    train = scaled[:n_train]
    val = scaled[n_train - lookback : n_train + n_val]
    test = scaled[n_train + n_val - lookback :]
    return train, val, test


def iterate_windows(
    series: np.ndarray,
    lookback: int,
    horizon: int,
    batch_size: int,
    shuffle: bool = False,
    rng: np.random.Generator | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield (input, target) batches of shape (batch, lookback|horizon, channels)."""
    starts = np.arange(len(series) - lookback - horizon + 1)
    if shuffle:
        (rng or np.random.default_rng()).shuffle(starts)
    for i in range(0, len(starts), batch_size):
        chunk = starts[i : i + batch_size]
        x = np.stack([series[s : s + lookback] for s in chunk])
        y = np.stack([series[s + lookback : s + lookback + horizon] for s in chunk])
        yield x, y
