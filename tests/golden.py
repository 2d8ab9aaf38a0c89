"""Golden files: compare with a stored JSON, or rewrite it when regenerating on purpose.

Regenerate with `EXPCURATE_REGENERATE_GOLDEN=1 make test`, review the diff, then run the tests
again without it: `test_golden_switch_is_off` fails while the switch is on, so a regenerated
run can never pass CI by itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
REGENERATE = os.environ.get("EXPCURATE_REGENERATE_GOLDEN") == "1"


def check_golden(name: str, data: Any) -> None:
    path = GOLDEN_DIR / name
    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if REGENERATE:
        path.write_text(text)
        return
    assert path.is_file(), f"{path} missing; regenerate with EXPCURATE_REGENERATE_GOLDEN=1"
    expected = json.loads(path.read_text())
    assert json.loads(text) == expected, f"{name} differs from its golden file"
