"""The ways a model call can fail, split by what the curator should do about each.

`PrerequisiteError` is configuration (a missing or rejected key, an unknown model): nothing
will work until it is fixed, so the stage fails with the fix in the message. `LLMError` is
one answer we could not use: the caller records it and goes on with the next piece of work.
`LLMUnavailable` is a provider that stays unreachable or rate-limited after the retries, and
`BudgetExceeded` the paper's spending cap: both mean "stop now and keep what was drafted".
"""

from __future__ import annotations


class PrerequisiteError(RuntimeError):
    """The model cannot be used as configured; the message says how to fix it."""


class LLMError(RuntimeError):
    """A model call gave no usable answer (garbage after the repairs, a rejected request)."""


class LLMUnavailable(LLMError):
    """The provider kept failing with transient errors (429, timeouts, connection) past the retries."""


class BudgetExceeded(RuntimeError):
    """The summed cost of this client's calls reached its budget (EXPCURATE_BUDGET_USD).

    Not an `LLMError`: code that records per-item failures and goes on must not swallow it.
    """
