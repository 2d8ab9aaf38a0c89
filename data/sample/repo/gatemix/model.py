"""GateMix model (Section 3 of the paper), written with numpy only.

Each channel is cut into patches, the patches are embedded, and a stack of mixing blocks
mixes information across patches (token mixing, modulated by an input-dependent gate) and
across hidden features (channel mixing). The forward pass caches what the backward pass
needs, so training runs without an autograd library.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class GateMixConfig:
    lookback: int = 336
    horizon: int = 96
    patch_len: int = 16
    stride: int = 8
    n_blocks: int = 3
    d_model: int = 128
    dropout: float = 0.1
    gate_temperature: float = 1.0
    use_gate: bool = True  # --no-gate: plain (ungated) token mixing
    use_channel_mix: bool = True  # --no-channel-mix: drop the feature MLP
    use_patching: bool = True  # --no-patch: one token per time step
    learn_temperature: bool = False  # --learn-temperature: tau becomes a parameter

    @property
    def token_len(self) -> int:
        return self.patch_len if self.use_patching else 1

    @property
    def n_tokens(self) -> int:
        if not self.use_patching:
            return self.lookback
        return (self.lookback - self.patch_len) // self.stride + 1


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def patchify(x: np.ndarray, patch_len: int, stride: int) -> np.ndarray:
    """(batch, lookback, channels) -> (batch, channels, tokens, patch_len)."""
    n_tokens = (x.shape[1] - patch_len) // stride + 1
    idx = np.arange(n_tokens)[:, None] * stride + np.arange(patch_len)[None, :]
    return x.transpose(0, 2, 1)[:, :, idx]


class GateMix:
    def __init__(self, cfg: GateMixConfig, seed: int = 2021) -> None:
        self.cfg = cfg
        self.rng = np.random.default_rng(seed)
        n, d, p = cfg.n_tokens, cfg.d_model, cfg.token_len
        init = self.rng.normal
        self.params: dict[str, np.ndarray] = {
            "W_emb": init(0.0, p**-0.5, (p, d)),
            "b_emb": np.zeros(d),
            "W_head": init(0.0, (n * d) ** -0.5, (n * d, cfg.horizon)),
            "b_head": np.zeros(cfg.horizon),
            "log_tau": np.array(np.log(cfg.gate_temperature)),
        }
        for k in range(cfg.n_blocks):
            self.params[f"W_tok{k}"] = init(0.0, 0.02, (n, n))
            self.params[f"W_gate{k}"] = init(0.0, d**-0.5, (d, d))
            self.params[f"b_gate{k}"] = np.zeros(d)
            self.params[f"W_ch1_{k}"] = init(0.0, d**-0.5, (d, 2 * d))
            self.params[f"W_ch2_{k}"] = init(0.0, (2 * d) ** -0.5, (2 * d, d))
        self.cache: dict[str, object] = {}
        self.last_gates: list[np.ndarray] = []

    def trainable(self) -> dict[str, np.ndarray]:
        """Parameters the optimiser updates; tau stays fixed unless it is learned."""
        return {
            k: v for k, v in self.params.items() if k != "log_tau" or self.cfg.learn_temperature
        }

    # ------------------------------------------------------------------ forward

    def forward(self, x: np.ndarray, train: bool = False) -> np.ndarray:
        """Forecast `horizon` steps from `lookback` steps; x is (batch, lookback, channels)."""
        cfg, P = self.cfg, self.params
        mean = x.mean(axis=1, keepdims=True)
        std = x.std(axis=1, keepdims=True) + 1e-5
        xn = (x - mean) / std
        tokens = patchify(xn, cfg.token_len, cfg.stride if cfg.use_patching else 1)
        h = tokens @ P["W_emb"] + P["b_emb"]
        blocks = []
        self.last_gates = []
        for k in range(cfg.n_blocks):
            h, block_cache = self._block(h, k, train)
            blocks.append(block_cache)
        b, c = h.shape[:2]
        flat = h.reshape(b, c, -1)
        out = flat @ P["W_head"] + P["b_head"]
        self.cache = {"tokens": tokens, "blocks": blocks, "flat": flat, "std": std}
        return out.transpose(0, 2, 1) * std + mean

    def _block(self, h: np.ndarray, k: int, train: bool) -> tuple[np.ndarray, dict]:
        cfg, P = self.cfg, self.params
        mixed = np.einsum("nm,bcmd->bcnd", P[f"W_tok{k}"], h)
        mask = None
        if train and cfg.dropout > 0:
            mask = (self.rng.random(mixed.shape) >= cfg.dropout) / (1.0 - cfg.dropout)
            mixed = mixed * mask
        cache: dict = {"h": h, "mixed": mixed, "mask": mask}
        if cfg.use_gate:
            # Eq. (2): the gate reads the block input and decides, per token and feature,
            # how much of the mixed context to admit.
            logits = h @ P[f"W_gate{k}"] + P[f"b_gate{k}"]
            scaled = logits * np.exp(-P["log_tau"])
            gate = sigmoid(scaled)
            h1 = h + gate * mixed
            cache.update(scaled=scaled, gate=gate)
            self.last_gates.append(gate.mean(axis=(0, 1, 3)))
        else:
            h1 = h + mixed
        cache["h1"] = h1
        if not cfg.use_channel_mix:
            return h1, cache
        z = h1 @ P[f"W_ch1_{k}"]
        r = np.maximum(z, 0.0)
        cache.update(z=z, r=r)
        return h1 + r @ P[f"W_ch2_{k}"], cache

    # ----------------------------------------------------------------- backward

    def backward(self, dy: np.ndarray) -> dict[str, np.ndarray]:
        """Gradients of the loss w.r.t. every parameter, given dL/dy_hat."""
        cfg, P, C = self.cfg, self.params, self.cache
        grads = {k: np.zeros_like(v) for k, v in P.items()}
        dout = dy.transpose(0, 2, 1) * C["std"].transpose(0, 2, 1)
        grads["W_head"] = np.einsum("bcf,bch->fh", C["flat"], dout)
        grads["b_head"] = dout.sum(axis=(0, 1))
        dh = (dout @ P["W_head"].T).reshape(C["blocks"][-1]["h1"].shape)
        for k in reversed(range(cfg.n_blocks)):
            dh = self._block_backward(dh, k, C["blocks"][k], grads)
        grads["W_emb"] = np.einsum("bcnp,bcnd->pd", C["tokens"], dh)
        grads["b_emb"] = dh.sum(axis=(0, 1, 2))
        return {k: g for k, g in grads.items() if k in self.trainable()}

    def _block_backward(self, dh2: np.ndarray, k: int, cache: dict, grads: dict) -> np.ndarray:
        cfg, P = self.cfg, self.params
        dh1 = dh2
        if cfg.use_channel_mix:
            grads[f"W_ch2_{k}"] = np.einsum("bcnk,bcnd->kd", cache["r"], dh2)
            dz = (dh2 @ P[f"W_ch2_{k}"].T) * (cache["z"] > 0)
            grads[f"W_ch1_{k}"] = np.einsum("bcnd,bcnk->dk", cache["h1"], dz)
            dh1 = dh2 + dz @ P[f"W_ch1_{k}"].T
        h, mixed = cache["h"], cache["mixed"]
        if cfg.use_gate:
            gate = cache["gate"]
            dscaled = dh1 * mixed * gate * (1.0 - gate)
            grads["log_tau"] += -np.sum(dscaled * cache["scaled"])
            dlogits = dscaled * np.exp(-P["log_tau"])
            grads[f"W_gate{k}"] = np.einsum("bcnd,bcne->de", h, dlogits)
            grads[f"b_gate{k}"] = dlogits.sum(axis=(0, 1, 2))
            dmixed = dh1 * gate
            dh = dh1 + dlogits @ P[f"W_gate{k}"].T
        else:
            dmixed, dh = dh1, dh1
        if cache["mask"] is not None:
            dmixed = dmixed * cache["mask"]
        grads[f"W_tok{k}"] = np.einsum("bcnd,bcmd->nm", dmixed, h)
        return dh + np.einsum("nm,bcnd->bcmd", P[f"W_tok{k}"], dmixed)

    # ------------------------------------------------------------------- saving

    def state_dict(self) -> dict[str, np.ndarray]:
        return {k: v.copy() for k, v in self.params.items()}

    def load_state_dict(self, state: dict[str, np.ndarray]) -> None:
        for k in self.params:
            self.params[k] = np.asarray(state[k])
