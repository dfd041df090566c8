"""Official answer rules shared by several benchmarks (the ``official`` reading), byte for byte, and how the
official pipelines' answer files hold a response (for ``import``).

The first-character rule of two official scorers. A rule only one benchmark's scorer uses lives in that
benchmark's ``parsers`` module, which registers its parsers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

OfficialFn = Callable[[str], "str | None"]


def official_first_char(letters: str = "AB") -> OfficialFn:
    """Vinoground ``get_score_all.py`` / TemporalBench ``get_qa_acc.py``: the first character, any case."""

    def parse(text: str) -> str | None:
        if not text:
            return None
        first = text[0].upper()
        return first if first in letters else None

    return parse


def first_response(value: object) -> tuple[str | None, bool]:
    """A response as the official scorers read it (a list gives its first element): ``(text or None, was a list)``."""
    was_list = isinstance(value, list)
    if isinstance(value, list):
        value = value[0] if value else None
    text = value if value is None or isinstance(value, str) else str(value)
    return text, was_list


def finite_or_none(value: Any) -> float | None:
    """A probability cell as a float, or None when empty or not a finite number (an undefined score)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def official_response(answer: str) -> str:
    """The raw answer for TemporalBench's scorer's input file, except that an empty one becomes a single space.

    ``get_qa_acc.py`` takes ``response[0]`` outside any ``try``: an empty string raises IndexError and the
    script stops with no number. A space is just as wrong under the first-character rule, so the file
    scores what our official reading does (an empty answer is wrong). (Vinoground's export writes an empty
    answer as it is: ``get_score_all.py`` skips the rest of the pair, and so does our official reading.)
    """
    return answer if answer else " "
