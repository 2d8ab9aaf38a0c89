"""GateMix: gated token mixing for long-horizon time-series forecasting."""

from gatemix.data import DATASETS, load_splits
from gatemix.metrics import mae, mse
from gatemix.model import GateMix, GateMixConfig
from gatemix.optim import Adam

__all__ = ["DATASETS", "Adam", "GateMix", "GateMixConfig", "load_splits", "mae", "mse"]
__version__ = "0.3.1"
