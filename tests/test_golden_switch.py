from tests.golden import REGENERATE


def test_golden_switch_is_off() -> None:
    """Golden files are only ever compared in CI, never rewritten."""
    assert not REGENERATE
