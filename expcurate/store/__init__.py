"""Persistent state: SQL rows (`rows`), the task store (`db`), users and sign-ins (`auth`).

Everything above this layer reads and writes through `Store`; nobody else writes SQL.
"""

from expcurate.store.auth import check_password, hash_password
from expcurate.store.db import Store
from expcurate.store.errors import ConcurrentEditError, StoreError

__all__ = ["ConcurrentEditError", "Store", "StoreError", "check_password", "hash_password"]
