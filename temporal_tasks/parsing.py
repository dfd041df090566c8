"""Answer parsers: a robust mode for real models and an official mode per benchmark scorer.

Every parser maps a raw model answer to a label (``"yes"``/``"no"`` or a capital letter) or to
``None`` when the answer cannot be read. ``None`` always counts as wrong and is reported in the
``invalid_rate`` metric. Parsers never raise, whatever the input.

The mode comes from ``TEMPORAL_TASKS_PARSER`` (``robust``, the default, or ``official``).

The robust mode reads an answer the way a careful reviewer would, knowing the question's
options (their labels, full texts and names). The rules, in order:

1. ``<think>…</think>`` blocks are dropped, and so is the text before the last ``Answer:`` /
   ``Final answer:`` / ``The answer is`` / ``答案：`` marker.
2. An explicit choice wins: a bare label (``B``, ``b.``, ``(A)``, ``**A**``, ``Yes``, ``no.``), a
   label introduced by "answer is", "Answer:", "Option", "choose", or a label followed by ``.``,
   ``)``, ``:``, ``,`` or a line break at the start. Two different explicit labels are unreadable.
   Then a lone capital letter elsewhere ("I think B"). For Yes/No every standalone "yes" and every
   "no" that is not a determiner ("no idea", "there is no doubt") counts; both counted is unreadable.
3. Otherwise an answer holding the full text of exactly one option (ignoring case, spaces,
   punctuation and a leading article) or one of its names ("the second segment") means that
   option; when one matched option text contains the other, the longer wins.
4. "A"/"a" followed by a space and a word is the English article, never option A.
5. An answer that asserts both options (or both yes and no), a hedge ("not sure", "no idea",
   "cannot tell", "neither", "both", ...), a refusal or an empty answer is unreadable.

Options reach the parser either as the docs' list of ``{"label", "text", "names"}`` dicts or in
the compact form :func:`option_keys` returns, which payloads carry so that ``rescore`` can
re-read an answer without the dataset (each option phrase is kept as its word count and a short
digest, so long captions do not bloat ``--log_samples`` files).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ENV_PARSER = "TEMPORAL_TASKS_PARSER"
MODES = ("robust", "official")

OfficialFn = Callable[[str], "str | None"]


@dataclass(frozen=True)
class OptionPhrases:
    """Compiled options: per phrase ``(label, word count, digest)``; what the robust rule 3 needs."""

    phrases: tuple[tuple[str, int, str], ...] = ()

    @property
    def lengths(self) -> tuple[int, ...]:
        """The distinct phrase lengths in words (windows to slide over an answer)."""
        return tuple(sorted({n for _label, n, _d in self.phrases}))


NO_OPTIONS = OptionPhrases()
RobustFn = Callable[[str, OptionPhrases], "str | None"]


@dataclass(frozen=True)
class Parser:
    """A named answer rule with its robust (option-aware) and official variants."""

    name: str
    labels: tuple[str, ...]
    robust: RobustFn
    official: OfficialFn

    def parse(self, text: object, mode: str | None = None, options: Any = None) -> str | None:
        """Parse ``text`` in ``mode`` (default: the mode in force); ``options`` inform ``robust`` only. Never raises."""
        use = mode or parser_mode()
        if text is None:
            text = ""
        elif not isinstance(text, str):
            text = str(text)
        try:
            if use == "official":
                label = self.official(text)
            else:
                label = self.robust(text, compile_options(options))
        except Exception:  # a parser bug must never kill a long GPU run; count it as invalid
            return None
        return label if label in self.labels else None

    def read_both(self, text: object, options: Any = None) -> tuple[str | None, str | None]:
        """``(robust, official)`` readings of one answer (options compiled once)."""
        compiled = compile_options(options)
        return self.parse(text, "robust", compiled), self.parse(text, "official")


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


# --------------------------------------------------------------------------- options

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Lowercased words of ``text`` (NFKC; punctuation, spaces and underscores are separators)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _digest(ws: Sequence[str]) -> str:
    return hashlib.blake2b(" ".join(ws).encode("utf-8"), digest_size=8).hexdigest()


def option(label: str, text: str = "", names: Sequence[str] = ()) -> dict:
    """One option in the docs' schema: ``{"label", "text", "names"}`` (JSON-able, the same keys for every doc)."""
    return {"label": str(label), "text": str(text or ""), "names": [str(n) for n in names]}


YES_NO_OPTIONS = (option("yes", "Yes"), option("no", "No"))


_ARTICLES = frozenset(("a", "an", "the"))


def option_keys(options: Sequence[Mapping[str, Any]] | None) -> list[list]:
    """The compact, JSON-able form of ``options`` that payloads carry: ``[[label, words, digest], ...]``.

    A leading article is dropped from each phrase, so "The man is waving" still echoes the
    caption "a man is waving".
    """
    out: list[list] = []
    for opt in options or ():
        label = str(opt.get("label", ""))
        for phrase in (opt.get("text") or "", *(opt.get("names") or ())):
            ws = words(str(phrase))
            if len(ws) > 1 and ws[0] in _ARTICLES:
                ws = ws[1:]
            if ws and label:
                out.append([label, len(ws), _digest(ws)])
    return out


def compile_options(options: Any) -> OptionPhrases:
    """:class:`OptionPhrases` from the docs' option dicts, their :func:`option_keys`, or ``None``."""
    if isinstance(options, OptionPhrases):
        return options
    if not options:
        return NO_OPTIONS
    items = list(options)
    if isinstance(items[0], Mapping):
        items = option_keys(items)
    phrases = []
    for item in items:
        if isinstance(item, list | tuple) and len(item) == 3:
            label, n, digest = item
            if isinstance(n, int) and n > 0:
                phrases.append((str(label), n, str(digest)))
    return OptionPhrases(tuple(phrases))


def _option_matches(ws: Sequence[str], options: OptionPhrases) -> dict[str, list[tuple[int, int]]]:
    """Spans (word start, end) of every option phrase found in the word list ``ws``, per label."""
    found: dict[str, list[tuple[int, int]]] = {}
    if not options.phrases:
        return found
    wanted: dict[tuple[int, str], list[str]] = {}
    for label, n, digest in options.phrases:
        wanted.setdefault((n, digest), []).append(label)
    for n in options.lengths:
        for start in range(len(ws) - n + 1):
            labels = wanted.get((n, _digest(ws[start : start + n])))
            if labels:
                for label in labels:
                    found.setdefault(label, []).append((start, start + n))
    return found


def _single_option(found: dict[str, list[tuple[int, int]]]) -> str | None:
    """The one option the matches name; a match lying inside another label's longer match does not count."""
    spans = [(label, s, e) for label, ss in found.items() for s, e in ss]

    def inside(label: str, s: int, e: int) -> bool:
        return any(o != label and os_ <= s and e <= oe and (oe - os_) > (e - s) for o, os_, oe in spans)

    labels = {label for label, s, e in spans if not inside(label, s, e)}
    return labels.pop() if len(labels) == 1 else None


# --------------------------------------------------------------------------- cleaning

_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.I)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.I)
_SPECIAL_TOKEN = re.compile(r"<\|[^|<>]{0,40}\|>")
_MARKDOWN = re.compile(r"[*_`#>~]+")
_SPACES = re.compile(r"[^\S\n]+")
_NEWLINES = re.compile(r"\s*\n\s*")
# Rule 1: a final-answer marker; what follows the last one is the answer (答案 = "answer").
_FINAL_MARKER = re.compile(r"(?i:\b(?:final\s+answer|answer)\b\s*(?:is\b\s*:?|[:=\-]))|答案\s*(?:是|为)?\s*:?")


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
    # Runs of spaces become one space; line breaks stay (a letter alone on the first line is a label).
    return _NEWLINES.sub("\n", _SPACES.sub(" ", text)).strip()


def final_part(text: str) -> str:
    """Rule 1 on a cleaned answer: the text after the last final-answer marker (if anything follows it)."""
    last = None
    for last in _FINAL_MARKER.finditer(text):  # noqa: B007 - only the last one matters
        pass
    if last is not None:
        rest = text[last.end() :].strip()
        if words(rest):
            return rest
    return text


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


def _hedged(text: str) -> bool:
    return _HEDGE.search(text) is not None


# --------------------------------------------------------------------------- robust yes/no

# "no" is an answer when it ends a clause or opens the answer before a comma/pronoun; as a
# determiner ("no idea", "there is no dog") it is not.
_YN_WORD = re.compile(r"(?i)(?<![\w'])(yes|no)(?![\w'])")
_NO_FOLLOWER = re.compile(
    r"(?i)\s*(?:$|[.,!?;:)\]\"'。，！？]|(?:and|but|or|the|it|there|this|that|he|she|they|i|because|since|as)\b)"
)


def _yes_no_assertions(text: str) -> set[str]:
    """The answers ``text`` asserts: every standalone "yes", and every "no" that is not a determiner."""
    out = set()
    for m in _YN_WORD.finditer(text):
        word = m.group(1).lower()
        if word == "yes" or _NO_FOLLOWER.match(text, m.end()):
            out.add(word)
    return out


def robust_yes_no(text: str, options: OptionPhrases = NO_OPTIONS) -> str | None:  # noqa: ARG001 - options are yes/no
    """Yes/No by the robust rules: exactly one of yes/no asserted; both or neither ("not sure") is unreadable."""
    text = final_part(clean_answer(text))
    labels = _yes_no_assertions(text)
    if len(labels) != 1:
        return None  # nothing asserted, or both yes and no ("Yes and no.", "Yes. No.")
    return labels.pop()


# --------------------------------------------------------------------------- robust letters

# Words that cannot follow the article "a": after them a lone "A" is a label ("A because ...").
_NOT_AFTER_ARTICLE = (
    "because|since|as|is|was|seems|appears|and|or|but|nor|which|fits|matches|describes|would|should|could|will|"
    "the|this|it|here|option|caption|answer|choice|segment|best|more|correctly|instead|too"
)


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
        follower=re.compile(rf"[ \t]+(?![^\W_]*(?:{_NOT_AFTER_ARTICLE})(?![^\W_]))(?:[^\W\d_]|\x00)"),
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
        text = final_part(clean_answer(text))
        if not text:
            return None
        ws, spans = _word_spans(text)
        found = _option_matches(ws, options)
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
        return _single_option(found)

    return parse


# --------------------------------------------------------------------------- official rules


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


# --------------------------------------------------------------------------- options in prompts

_LINE_OPTION = re.compile(r"(?m)^[ \t]*([A-Z])[.)][ \t]+(\S.*?)[ \t]*$")


def line_options(question: str, letters: str = "AB") -> list[dict] | None:
    """Options laid out one per line as ``A. text`` / ``B. text`` (Vinoground, TemporalBench); ``None`` if absent."""
    found: dict[str, str] = {}
    for m in _LINE_OPTION.finditer(question):
        if m.group(1) in letters and m.group(1) not in found:
            found[m.group(1)] = m.group(2)
    if set(found) != set(letters):
        return None
    return [option(label, found[label]) for label in letters]
