"""TimeBlind's answer parsers: its official ``extract_answer`` regex cascade, and our robust readings."""

from __future__ import annotations

import re
import unicodedata

from temporal_tasks.harness.kit import Parser, make_robust_letter, register_parser, robust_yes_no

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


YES_NO = register_parser(Parser("timeblind_yes_no", ("yes", "no"), robust_yes_no, official_timeblind_yes_no))
MC = register_parser(Parser("timeblind_mc", ("A", "B"), make_robust_letter("AB"), official_timeblind_mc))
