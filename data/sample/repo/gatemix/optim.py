"""Adam with decoupled weight decay, operating on a dict of numpy parameters."""

from __future__ import annotations

import numpy as np


class Adam:
    def __init__(
        self,
        params: dict[str, np.ndarray],
        lr: float = 0.001,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0001,
    ) -> None:
        self.params = params
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self.step_count = 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, grads: dict[str, np.ndarray]) -> None:
        self.step_count += 1
        c1 = 1.0 - self.beta1**self.step_count
        c2 = 1.0 - self.beta2**self.step_count
        for name, grad in grads.items():
            p = self.params[name]
            self.m[name] = self.beta1 * self.m[name] + (1.0 - self.beta1) * grad
            self.v[name] = self.beta2 * self.v[name] + (1.0 - self.beta2) * grad**2
            update = (self.m[name] / c1) / (np.sqrt(self.v[name] / c2) + self.eps)
            if self.weight_decay and not name.startswith("log_tau"):
                update = update + self.weight_decay * p
            p -= self.lr * update
