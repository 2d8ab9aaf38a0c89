"""Number grounding: what counts as 'this number appears in the paper'."""

from extractors.numbers import NumberBag, find_numbers, is_trivial


def test_find_numbers_reads_paper_notation() -> None:
    text = "MSE 0.412 (±0.003), 12.5% fewer, 1,234 samples, lr 1e-3, ResNet50, −3.2"
    assert find_numbers(text) == ["0.412", "0.003", "12.5", "1234", "1e-3", "-3.2"]


def test_grounding_tolerates_rounding_and_percent_forms() -> None:
    bag = NumberBag(["accuracy 81.23", "ratio 0.412"])
    assert bag.contains("81.2")  # rounded
    assert bag.contains("41.2")  # 0.412 as a percent
    assert not bag.contains("81.3")
    assert not bag.contains("82")


def test_small_integers_are_trivial() -> None:
    assert is_trivial("3") and not is_trivial("3.0") and not is_trivial("128")
