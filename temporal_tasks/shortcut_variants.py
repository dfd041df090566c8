"""The shortcut variants' names and seed version: constants that the variants and the provenance record share.

A leaf module, so the provenance record can name a variant without importing the video code that builds it.
"""

from __future__ import annotations

__all__ = ["SEED_VERSION", "VARIANTS"]

SEED_VERSION = "1"  # part of every seed and cache key: bump when the frame choice or the layout changes
VARIANTS = ("blind", "single_frame", "shuffled")
