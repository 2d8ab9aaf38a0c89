"""Error metrics, computed on the standardised scale as in the paper (Section 4.1)."""

from __future__ import annotations

import numpy as np


def mse(pred: np.ndarray, target: np.ndarray) -> float:
    """Mean squared error over batch, horizon and channels."""
    return float(np.mean((pred - target) ** 2))


def mae(pred: np.ndarray, target: np.ndarray) -> float:
    """Mean absolute error over batch, horizon and channels."""
    return float(np.mean(np.abs(pred - target)))
