"""The official scorers' answer rules, byte for byte (the ``official`` parser mode).

Vinoground ``get_score_all.py`` and TemporalBench ``get_qa_acc.py``: the first character; TimeBlind
``extract_answer``: its regex cascade. VELOCITI's rules live with its loader (``velociti.py``).
"""

from __future__ import annotations

import re
import unicodedata
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


# TimeBlind `extract_answer` (official utils.py): NFKC, collapsed whitespace, first match wins.
_TB_YN = [
    re.compile(r"(?i)(?:final(?: answer)?|answer|prediction)\s*[:：]\s*(yes|no)\b"),
    re.compile(r"(?i)\b(yes|no)\b(?=[\s\.\,\!\?\)]|$)"),
]
_TB_MC = [
    re.compile(r"(?i)(?:final(?: answer)?|answer|prediction)\s*[:：]\s*([AB])\b"),
    re.compile(r"(?i)(?:option|choice)\s*[:：]?\s*([AB])\b"),
    re.compile(r"(?i)[\(\[\{]\s*([AB])\s*[\)\]\}]"),
    re.compile(r"(?i)\b([AB])\s*[\.\)]\b"),
]
_TB_MC_LAST = re.compile(r"(?i)(?<![A-Za-z0-9/])([AB])(?![A-Za-z0-9/])")
_TB_KEYWORD = re.compile(r"(?i)\b(final(?: answer)?|answer|prediction)\b")


def _timeblind_normalise(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def official_timeblind_yes_no(text: str) -> str | None:
    """TimeBlind's official yes/no regex cascade."""
    text = _timeblind_normalise(text)
    if not text:
        return None
    for pattern in _TB_YN:
        m = pattern.search(text)
        if m:
            return m.group(1).lower()
    return None


def official_timeblind_mc(text: str) -> str | None:
    """TimeBlind's official A/B regex cascade, including the before/after-keyword fallback."""
    text = _timeblind_normalise(text)
    if not text:
        return None
    for pattern in _TB_MC:
        m = pattern.search(text)
        if m:
            return m.group(1).upper()
    keyword = _TB_KEYWORD.search(text)
    pieces = [text[: keyword.start()], text[keyword.end() :], text] if keyword else [text]
    for piece in pieces:
        m = _TB_MC_LAST.search(piece)
        if m:
            return m.group(1).upper()
    return None
