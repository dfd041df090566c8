"""Answer parsers: a robust mode for real models and an official mode per benchmark scorer.

Every parser maps a raw model answer to a label (``"yes"``/``"no"`` or a capital letter) or to
``None`` when the answer cannot be read. ``None`` always counts as wrong and is reported in the
``invalid_rate`` metric. Parsers never raise, whatever the input.

The mode comes from ``TEMPORAL_TASKS_PARSER`` (``robust``, the default, or ``official``).
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

ENV_PARSER = "TEMPORAL_TASKS_PARSER"
MODES = ("robust", "official")

ParseFn = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Parser:
    """A named answer rule with its robust and official variants."""

    name: str
    labels: tuple[str, ...]
    robust: ParseFn
    official: ParseFn

    def parse(self, text: object, mode: str | None = None) -> str | None:
        """Parse ``text`` in ``mode`` (default: the mode in force); never raises."""
        fn = self.official if (mode or parser_mode()) == "official" else self.robust
        if text is None:
            text = ""
        elif not isinstance(text, str):
            text = str(text)
        try:
            label = fn(text)
        except Exception:  # a parser bug must never kill a long GPU run; count it as invalid
            return None
        return label if label in self.labels else None


_logged_lock = threading.Lock()
_logged_modes: set[str] = set()


def parser_mode() -> str:
    """Return the parser mode in force (``robust`` or ``official``), logging it once."""
    raw = os.environ.get(ENV_PARSER, "robust").strip().lower() or "robust"
    if raw not in MODES:
        raise ValueError(f"{ENV_PARSER}={raw!r} is not a parser mode; set it to 'robust' (default) or 'official'.")
    if raw not in _logged_modes:
        with _logged_lock:
            if raw not in _logged_modes:
                _logged_modes.add(raw)
                from temporal_tasks.log import logger

                logger.info(f"temporal-tasks: answer parser mode = {raw} (set {ENV_PARSER}=robust|official)")
    return raw


# --------------------------------------------------------------------------- cleaning

_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.I)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.I)
_SPECIAL_TOKEN = re.compile(r"<\|[^|<>]{0,40}\|>")
_MARKDOWN = re.compile(r"[*_`#>~]+")
_SPACES = re.compile(r"\s+")


def clean_answer(text: str) -> str:
    """Normalise an answer for robust parsing: NFKC, no reasoning blocks, no markdown."""
    text = unicodedata.normalize("NFKC", text)
    text = _THINK_BLOCK.sub(" ", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:  # a stray closing tag: the answer is what follows the reasoning
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened is not None:  # reasoning never closed (cut by max_new_tokens): only what came before counts
        text = text[: opened.start()]
    text = _SPECIAL_TOKEN.sub(" ", text)
    text = _MARKDOWN.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


# --------------------------------------------------------------------------- robust rules

_YN_MARKER = re.compile(r"(?i:\b(?:final answer|answer|prediction|verdict))\W{0,3}(?i:is)?\W{0,4}(?i:(yes|no))\b")
_YN_FIRST = re.compile(r"^\W*(yes|no)\b", re.I)
_YN_ANY = re.compile(r"\b(yes|no)\b", re.I)


def robust_yes_no(text: str) -> str | None:
    """Yes/No from an explicit answer marker, else the first word, else a unique yes/no word."""
    text = clean_answer(text)
    if not text:
        return None
    marked = _YN_MARKER.findall(text)
    if marked:
        return marked[-1].lower()
    first = _YN_FIRST.match(text)
    if first:
        return first.group(1).lower()
    found = {m.lower() for m in _YN_ANY.findall(text)}
    return found.pop() if len(found) == 1 else None


def _letter_rules(letters: str) -> tuple[re.Pattern, re.Pattern, re.Pattern, re.Pattern]:
    cls = f"[{letters}]"
    marker = re.compile(rf"(?i:\b(?:final answer|answer|prediction))\W{{0,3}}(?i:is)?\W{{0,4}}({cls})(?![A-Za-z0-9])")
    alone = re.compile(rf"^[\(\[\{{\"']?\s*({cls})\s*[\)\]\}}\"']?\s*[.:]?$", re.I)
    leading = re.compile(rf"^[\(\[]?({cls})(?:[\)\]\.:,]|$)")
    standalone = re.compile(rf"(?<![A-Za-z0-9])({cls})(?![A-Za-z0-9])")
    return marker, alone, leading, standalone


def make_robust_letter(letters: str = "AB") -> ParseFn:
    """Build a robust letter parser for the capital ``letters`` (e.g. ``"AB"``)."""
    marker, alone, leading, standalone = _letter_rules(letters)

    def parse(text: str) -> str | None:
        text = clean_answer(text)
        if not text:
            return None
        marked = marker.findall(text)
        if marked:
            return marked[-1].upper()
        m = alone.match(text) or leading.match(text)
        if m:
            return m.group(1).upper()
        # Only capital letters count here: the article "a" inside a sentence is not option A.
        found = set(standalone.findall(text))
        return found.pop() if len(found) == 1 else None

    return parse


# --------------------------------------------------------------------------- official rules


def official_first_char(letters: str = "AB") -> ParseFn:
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


# --------------------------------------------------------------------------- registry

PARSERS: dict[str, Parser] = {}


def register_parser(parser: Parser) -> Parser:
    """Add a parser to the registry (names are unique)."""
    if parser.name in PARSERS and PARSERS[parser.name] is not parser:
        raise ValueError(f"parser {parser.name!r} is already registered")
    PARSERS[parser.name] = parser
    return parser


def get_parser(name: str) -> Parser:
    """Look a parser up by name."""
    try:
        return PARSERS[name]
    except KeyError:
        raise KeyError(f"unknown answer parser {name!r}; known: {sorted(PARSERS)}") from None


register_parser(Parser("timeblind_yes_no", ("yes", "no"), robust_yes_no, official_timeblind_yes_no))
register_parser(Parser("timeblind_mc", ("A", "B"), make_robust_letter("AB"), official_timeblind_mc))
register_parser(Parser("first_char_ab", ("A", "B"), make_robust_letter("AB"), official_first_char("AB")))
