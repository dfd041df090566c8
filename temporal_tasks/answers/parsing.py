"""Answer parsers: a robust mode for real models and an official mode per benchmark scorer.

Every parser maps a raw model answer to a label (``"yes"``/``"no"`` or a capital letter) or to
``None`` when the answer cannot be read. ``None`` always counts as wrong and is reported in the
``invalid_rate`` metric. :meth:`Parser.parse` never raises: an exception of a rule is a bug of
ours, counted apart (:func:`parser_errors`) and logged once, and the answer reads as unreadable.

The mode in force is the settings' (``TEMPORAL_TASKS_PARSER``: ``robust``, the default, or ``official``;
:func:`temporal_tasks.base.settings.answer_reading`).

The robust mode reads an answer the way a careful reviewer would, knowing the question's
options (their labels, full texts and names). The rules, in order:

0. ``<think>…</think>`` blocks are dropped; an opened block that never closes was cut off by
   ``max_new_tokens``: unreadable (see :mod:`temporal_tasks.answers.answer_text`).
1. The model's explicit answer container wins (``<answer>…</answer>``, ``<|begin_of_box|>…``,
   ``\\boxed{…}``, ``**Answer:**`` / ``Final answer:`` lines; the innermost, then the last one):
   only its content is read. Without one, the text after the last ``Answer:`` / ``Final answer:`` /
   ``The answer is`` / ``答案：`` marker.
2. An explicit choice wins: a bare label (``B``, ``b.``, ``(A)``, ``**A**``, ``Yes``, ``no.``), a
   label introduced by "answer is", "Answer:", "Option", "choose", or a label followed by ``.``,
   ``)``, ``:``, ``,`` or a line break at the start. Two different explicit labels are unreadable.
   Then a lone capital letter elsewhere ("I think B"). For Yes/No every "yes" or "no" that ends or
   opens a clause counts, by one rule for both words (a determiner, "no idea", never does); both
   counted is unreadable. Swapping an answer's options swaps its reading (the label-swap law).
3. Otherwise an answer holding the full text of exactly one option (ignoring case, spaces,
   punctuation and a leading article) or one of its names ("the second segment") means that
   option; when one matched option text contains the other, the longer wins.
4. "A"/"a" followed by a space and a word is the English article, never option A.
5. An answer that asserts both options (or both yes and no), a hedge ("not sure", "no idea",
   "cannot tell", "neither", "both", ...), a refusal or an empty answer is unreadable.

Options reach the parser either as the docs' list of ``{"label", "text", "names"}`` dicts or in
the compact form payloads carry (:mod:`temporal_tasks.answers.options`). This module holds the parser registry
(:func:`register_parser`, :func:`get_parser`) and the robust rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from temporal_tasks.answers.answer_text import (  # noqa: F401 - re-exported: the rules 0-1 every robust parser starts with
    _WORD,
    answer_part,
    clean_answer,
    explicit_answer,
    final_part,
    reasoning_text,
    truncated_thinking,
    words,
)
from temporal_tasks.answers.official_rules import official_first_char  # noqa: F401 - re-exported: an official rule
from temporal_tasks.answers.options import NO_OPTIONS, OptionPhrases, compile_options, find_options, single_option
from temporal_tasks.api.registry import registered
from temporal_tasks.base.log import logger
from temporal_tasks.base.run_state import STATE, lock
from temporal_tasks.base.settings import answer_reading

OfficialFn = Callable[[str], "str | None"]
RobustFn = Callable[[str, OptionPhrases], "str | None"]


@dataclass(frozen=True)
class Parser:
    """A named answer rule with its robust (option-aware) and official variants."""

    name: str
    labels: tuple[str, ...]
    robust: RobustFn
    official: OfficialFn

    def parse(self, text: object, mode: str | None = None, options: Any = None) -> str | None:
        """Parse ``text`` in ``mode`` (default: the mode in force); ``options`` inform ``robust`` only. Never raises.

        A parser exception is a bug in this package, not a bad answer: it is counted apart
        (:func:`parser_errors`), its first traceback is logged once, and the answer reads as unreadable
        so that a long GPU run still finishes.
        """
        return self._read(_as_text(text), mode or answer_reading(), options)[0]

    def read_all(self, text: object, options: Any = None) -> Readings:
        """Both readings of one answer, and how many of the two raised (a parser bug, see :meth:`parse`)."""
        text = _as_text(text)
        robust, bad_robust = self._read(text, "robust", compile_options(options))
        official, bad_official = self._read(text, "official", None)
        return Readings(robust, official, bad_robust + bad_official)

    def _read(self, text: str, mode: str, options: Any) -> tuple[str | None, int]:
        try:
            label = self.official(text) if mode == "official" else self.robust(text, compile_options(options))
        except Exception:  # a parser bug must never kill a long GPU run; counted and logged, not hidden
            _record_parser_error(self.name, mode, text)
            return None, 1
        return (label if label in self.labels else None), 0


class Readings(NamedTuple):
    """An answer's robust and official readings, and the number of parser exceptions behind them."""

    robust: str | None
    official: str | None
    errors: int


def _as_text(text: object) -> str:
    return "" if text is None else text if isinstance(text, str) else str(text)


def _record_parser_error(name: str, mode: str, text: str) -> None:
    """Count a parser exception; log the first one's traceback (with the answer's start) once per evaluation."""
    with lock():
        STATE.parser_errors += 1
        first = STATE.parser_errors == 1
    if first:
        logger.opt(exception=True).error(
            f"temporal-tasks: the {name!r} parser ({mode}) raised on the answer {text[:200]!r}; this is a bug in "
            "temporal-tasks, not a bad answer. The answer is counted as unreadable and further errors are counted "
            "(parser_errors in the payloads); please report it with this traceback."
        )


def parser_errors() -> int:
    """How many parser exceptions this evaluation has seen (each read as unreadable; see :meth:`Parser.parse`)."""
    return STATE.parser_errors


# Rule 5: hedges and refusals. "both"/"either" only where they are about the options, so a
# caption such as "a man raises both hands" is no hedge.
_HEDGE = re.compile(
    r"(?i)\b(?:"
    r"not\s+(?:sure|certain|clear|possible\s+to|able\s+to)|unsure|uncertain|unclear|ambiguous|"
    r"no\s+(?:idea|clue|way\s+to)|hard\s+to\s+(?:say|tell)|difficult\s+to\s+(?:say|tell|determine)|"
    r"(?:cannot|can\s*not|can'?t|could\s*not|couldn'?t|unable\s+to|impossible\s+to)\s+"
    r"(?:tell|say|determine|decide|know|answer|be\s+determined|see|view|watch|access|help|assist|provide|comply)|"
    r"(?:don'?t|do\s+not|does\s+not|doesn'?t)\s+know|not\s+enough\s+information|insufficient|"
    r"i'?m\s+sorry|sorry|as\s+an\s+ai|neither|"
    r"both(?=\s*(?:$|[.!?,;:])|\s+(?:options?|captions?|answers?|choices?|segments?|clips?|videos?|of\s+them|"
    r"are|could|seem|apply|match|describe|fit|work|a\b|b\b|yes\b|first\b|second\b))|"
    r"either(?=\s+(?:one|options?|captions?|answers?|choices?|segments?|could|a\b|b\b|yes\b|first\b))|"
    r"could\s+be\s+either"
    r")"
)
_MASK = "\x00"


def _word_spans(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """Lowercased words of an (already NFKC) answer and their character spans."""
    ws, spans = [], []
    for m in _WORD.finditer(text):
        ws.append(m.group(0).casefold())
        spans.append(m.span())
    return ws, spans


def _masked(text: str, spans: list[tuple[int, int]], found: dict[str, list[tuple[int, int]]]) -> str:
    """``text`` with every matched option phrase replaced by a placeholder (hedges inside captions do not count)."""
    if not found:
        return text
    cut = sorted((spans[s][0], spans[e - 1][1]) for ss in found.values() for s, e in ss)
    out, pos = [], 0
    for a, b in cut:
        if b <= pos:
            continue
        out.append(text[pos : max(a, pos)])
        out.append(_MASK)
        pos = b
    out.append(text[pos:])
    return "".join(out)


# "both" as the object of weighing the options ("after comparing both, ...") is no hedge.
_WEIGHING_BOTH = re.compile(
    r"(?i)\b(?:compar\w*|consider\w*|look\w*\s+at|review\w*|examin\w*|weigh\w*|between)\s+both\b"
)


def _hedged(text: str) -> bool:
    return _HEDGE.search(_WEIGHING_BOTH.sub(" ", text)) is not None


# --------------------------------------------------------------------------- robust yes/no

# "yes"/"no" is an answer when it ends a clause or opens one before a comma, a pronoun or a conjunction; as a
# determiner ("no idea", "there is no dog") it is not. The rule is the same for both words, so that swapping
# yes and no in an answer always swaps its reading (the label-swap law).
_YN_WORD = re.compile(r"(?i)(?<![\w'])(yes|no)(?![\w'])")
_YN_FOLLOWER = re.compile(
    r"(?i)[^\S\n]*(?:$|\n|[.,!?;:)\]}\"'»”’。，！？、…\-–—|/<*]|"
    r"(?:and|but|or|nor|so|the|it|its|there|this|that|these|those|he|she|they|we|you|his|her|their|i|because|since|"
    r"as|definitely|absolutely|certainly|indeed|of\s+course)(?![\w']))"
)


def _yes_no_assertions(text: str) -> set[str]:
    """The answers ``text`` asserts: every "yes" or "no" that ends a clause or opens one (not a determiner)."""
    return {m.group(1).lower() for m in _YN_WORD.finditer(text) if _YN_FOLLOWER.match(text, m.end())}


def robust_yes_no(text: str, options: OptionPhrases = NO_OPTIONS) -> str | None:  # noqa: ARG001 - options are yes/no
    """Yes/No by the robust rules: exactly one of yes/no asserted; both or neither ("not sure") is unreadable."""
    text = answer_part(text)
    labels = _yes_no_assertions(text)
    if len(labels) != 1:
        return None  # nothing asserted, or both yes and no ("Yes and no.", "Yes. No.")
    return labels.pop()


# --------------------------------------------------------------------------- robust letters

# Words that cannot follow the article "a": after them a lone "A" is a label ("A because ...").
_NOT_AFTER_ARTICLE = (
    "because|since|as|is|was|seems|appears|and|or|but|nor|which|fits|matches|describes|would|should|could|will|"
    "the|this|it|here|option|caption|answer|choice|segment|best|more|correctly|instead|too|"
    "are|were|has|have|had|does|did|can|may|might|must|also|only|then|so|seem|appear|look"
)


# What makes a leading "A"/"a" the article: a space, then a word (or \x00, a masked option text).
_ARTICLE_FOLLOWER = re.compile(rf"[ \t]+(?![^\W_]*(?:{_NOT_AFTER_ARTICLE})(?![^\W_]))(?:[^\W\d_]|\x00)")


def is_article(text: str, end: int) -> bool:
    """Rule 4: is the "A"/"a" that ends at ``end`` in ``text`` the English article (a space and a word follow)?"""
    return _ARTICLE_FOLLOWER.match(text, end) is not None


@dataclass(frozen=True)
class _LetterRules:
    bare: re.Pattern
    intro: re.Pattern
    leading: re.Pattern
    weak: re.Pattern
    both: re.Pattern
    follower: re.Pattern  # what makes a leading "A"/"a" the article; \x00 (a masked option text) is a word


def _letter_rules(letters: str) -> _LetterRules:
    cls = f"[{letters}{letters.lower()}]"
    end = r"(?![^\W_])"
    return _LetterRules(
        bare=re.compile(rf"^(?:option|choice|answer)?\s*[\(\[\{{\"'“]?\s*({cls})\s*[\)\]\}}\"'”]?\s*[.:!。]?$", re.I),
        intro=re.compile(
            rf"(?i:\b(?:answer\s+is|answer\s*[:=]|option|choice|choose|chose|select|selected|pick|picked|go\s+with|"
            rf"correct\s+(?:one|option|caption|answer|choice)\s+is|best\s+(?:option|caption|answer|choice)\s+is))"
            rf"\s*:?\s*[\(\[]?\s*({cls}){end}"
        ),
        leading=re.compile(rf"^[\(\[]?({cls})(?:[ \t]*[\)\]\.:,\n]|\s*$)"),
        weak=re.compile(rf"(?<![^\W_])([{letters}]){end}"),
        both=re.compile(rf"(?i)(?<![^\W_])({cls})\s*(?:,|and|or|nor|&|/|\+)\s*(?:option\s*)?({cls}){end}"),
        follower=_ARTICLE_FOLLOWER,
    )


def make_robust_letter(letters: str = "AB") -> RobustFn:
    """Build the robust, option-aware parser for the capital ``letters`` (e.g. ``"AB"``)."""
    rules = _letter_rules(letters)

    def is_article(text: str, m: re.Match, group: int = 1) -> bool:
        # Rule 4: "A"/"a" followed by a space and a word is the English article.
        return m.group(group) in "Aa" and rules.follower.match(text, m.end(group)) is not None

    def labels_of(pattern: re.Pattern, text: str) -> set[str]:
        return {m.group(1).upper() for m in pattern.finditer(text) if not is_article(text, m)}

    def parse(text: str, options: OptionPhrases = NO_OPTIONS) -> str | None:
        text = answer_part(text)
        if not text:
            return None
        ws, spans = _word_spans(text)
        found = find_options(ws, options)
        masked = _masked(text, spans, found)
        if any(
            m.group(1).upper() != m.group(2).upper() and not is_article(masked, m, 2)
            for m in rules.both.finditer(masked)
        ):
            return None  # "A or B", "A and B": both options asserted
        m = rules.bare.match(text)
        if m and not is_article(text, m):
            return m.group(1).upper()
        strong = labels_of(rules.intro, masked)
        m = rules.leading.match(text)
        if m and not is_article(text, m):
            strong.add(m.group(1).upper())
        if strong:
            return strong.pop() if len(strong) == 1 else None  # two different explicit labels: unreadable
        # A lone capital letter elsewhere ("Both fit, but A", "I think B") is still the model's choice.
        weak = labels_of(rules.weak, masked)
        if weak:
            return weak.pop() if len(weak) == 1 else None
        if _hedged(masked):
            return None  # "not sure whether a man is waving", refusals
        return single_option(found)

    return parse


# --------------------------------------------------------------------------- registry

PARSERS: dict[str, Parser] = {}


def register_parser(parser: Parser) -> Parser:
    """Add a parser to the registry (names are unique)."""
    if parser.name in PARSERS and PARSERS[parser.name] is not parser:
        raise ValueError(f"parser {parser.name!r} is already registered")
    PARSERS[parser.name] = parser
    return parser


def get_parser(name: str) -> Parser:
    """Look a parser up by name (a benchmark's parsers are registered by its ``parsers`` module, loaded here)."""
    if name not in PARSERS:
        load_benchmark_parsers()
    try:
        return PARSERS[name]
    except KeyError:
        raise KeyError(f"unknown answer parser {name!r}; known: {sorted(PARSERS)}") from None


def load_benchmark_parsers() -> None:
    """Import every registered benchmark's ``parsers`` module (each registers its parsers on import)."""
    for spec in registered().values():
        if spec.parsers:
            spec.resolve(spec.parsers)


register_parser(Parser("first_char_ab", ("A", "B"), make_robust_letter("AB"), official_first_char("AB")))
