"""Packaging: write approved tasks as an EXP-Bench release."""

from extractors.package.export import ReleasePaper, write_release

__all__ = ["ReleasePaper", "write_release"]
