"""Packaging: masked starter repositories, EXP-Bench releases, and reading EXP-Bench files."""

from extractors.package.export import (
    ReleasePaper,
    ReleaseUnreadable,
    read_release,
    write_release,
)
from extractors.package.mask import (
    MaskedRepo,
    MaskError,
    MaskPatches,
    build_masked_repo,
    mask_patches,
)

__all__ = [
    "MaskError",
    "MaskPatches",
    "MaskedRepo",
    "ReleasePaper",
    "ReleaseUnreadable",
    "build_masked_repo",
    "mask_patches",
    "read_release",
    "write_release",
]
