"""Official answer rules shared by several benchmarks (the ``official`` parser mode), byte for byte.

The first-character rule of two official scorers. A rule only one benchmark's scorer uses lives in that
benchmark's ``parsers`` module, which registers its parsers.
"""

from __future__ import annotations

from collections.abc import Callable

OfficialFn = Callable[[str], "str | None"]


def official_first_char(letters: str = "AB") -> OfficialFn:
    """Vinoground ``get_score_all.py`` / TemporalBench ``get_qa_acc.py``: the first character, any case."""

    def parse(text: str) -> str | None:
        if not text:
            return None
        first = text[0].upper()
        return first if first in letters else None

    return parse
