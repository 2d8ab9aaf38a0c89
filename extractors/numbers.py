"""Numbers as papers print them, and whether one is grounded in another text.

Used by the drafting heuristic (to pick values), the validators (every number in an expected
outcome must appear in the paper) and the leakage scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# 81.2, -0.35, 1,234, 12.5%, 1.2M, .95 ; not inside names like "ResNet50", "v2" or "GPT-3.5".
_TOKEN_RE = re.compile(
    r"(?<![\w.])(?<![A-Za-z]-)[-−]?(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?:[%kKMBGT×x])?(?![\w])"
)


def find_numbers(text: str) -> list[str]:
    """Numeric tokens in `text`, in order, as written (without the unit suffix)."""
    out = []
    for m in _TOKEN_RE.finditer(text):
        tok = m.group(0).replace("−", "-").rstrip("%kKMBGT×x").replace(",", "")
        if tok in ("", "-", "."):
            continue
        out.append(tok)
    return out


# A magnitude printed after a table's number: "4.2M" parameters, "13G" of storage, "7B".
MAGNITUDE = {"K": 1e3, "M": 1e6, "G": 1e9, "B": 1e9, "T": 1e12}


def to_float(token: str) -> float | None:
    """The value of a number token; "13G" and "4.2M" (a table cell's magnitude kept on it)
    are scaled, so that 13G > 16.8M."""
    text = token.replace(",", "").replace("−", "-").strip()
    scale = MAGNITUDE.get(text[-1:], 1.0) if len(text) > 1 else 1.0
    try:
        return float(text[:-1] if scale != 1.0 else text) * scale
    except ValueError:
        return None


def is_trivial(token: str) -> bool:
    """Small integers (section numbers, counts like '3 datasets') say nothing about results."""
    value = to_float(token)
    return value is not None and "." not in token and abs(value) <= 10


def decimals(token: str) -> int:
    return len(token.split(".", 1)[1]) if "." in token else 0


class NumberBag:
    """The numbers of a document, for 'does this value appear there (up to rounding)?'."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.tokens: set[str] = set()
        self.values: list[float] = []
        for text in texts:
            for tok in find_numbers(text):
                self.tokens.add(tok)
                value = to_float(tok)
                if value is not None:
                    self.values.append(value)
        self.values.sort()

    def contains(self, token: str) -> bool:
        token = token.replace("−", "-").replace(",", "")
        if token in self.tokens:
            return True
        value = to_float(token)
        if value is None:
            return False
        # Rounding tolerance: half a unit of the token's last printed digit, and percents
        # written as fractions (0.812 vs 81.2).
        tol = 0.5 * 10 ** (-decimals(token)) + 1e-9
        return any(self._near(value * scale, tol * scale) for scale in (1.0, 0.01, 100.0))

    def _near(self, value: float, tol: float) -> bool:
        import bisect

        i = bisect.bisect_left(self.values, value - tol)
        return i < len(self.values) and self.values[i] <= value + tol
