"""Rules 0-1 of the robust reading: what part of a raw answer is read.

Reasoning blocks are dropped (an unclosed one means the model was cut off while thinking), the
model's explicit answer container wins (``<answer>``, ``<|begin_of_box|>``, ``\\boxed{}``, answer
lines), then the text after the last final-answer marker; tags, markdown and LaTeX wrappers are
never words of the answer. :mod:`temporal_tasks.answers.parsing` applies its option-aware rules to the result.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Lowercased words of ``text`` (NFKC; punctuation, spaces and underscores are separators)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


# <think>…</think> (Qwen3, GLM, DeepSeek), <thinking>, and Kimi-VL's ◁think▷…◁/think▷.
_THINK_BLOCK = re.compile(r"(?:<think(?:ing)?>|◁think▷).*?(?:</think(?:ing)?>|◁/think▷)", re.S | re.I)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>|◁/think▷", re.I)
_THINK_OPEN = re.compile(r"<think(?:ing)?>|◁think▷", re.I)
_SPECIAL_TOKEN = re.compile(r"<\|[^|<>]{0,40}\|>")
# Wrappers that are never words of the answer: XML-like tags (<answer>, </b>), LaTeX commands (\boxed,
# \text, \textbf) with their braces, and math dollars.
_TAG = re.compile(r"</?[A-Za-z][\w:-]{0,30}\s*/?>")
_LATEX = re.compile(r"\\[A-Za-z]+\*?|[{}$]")
_MARKDOWN = re.compile(r"[*_`#>~]+")
_SPACES = re.compile(r"[^\S\n]+")
_NEWLINES = re.compile(r"\s*\n\s*")
# Rule 1: a final-answer marker; what follows the last one is the answer (答案 = "answer").
_FINAL_MARKER = re.compile(r"(?i:\b(?:final\s+answer|answer)\b\s*(?:is\b\s*:?|[:=\-]))|答案\s*(?:是|为)?\s*:?")


def reasoning_text(text: str) -> tuple[str, bool]:
    """``(what follows the reasoning, cut off)`` for a raw answer (NFKC).

    Closed ``<think>…</think>`` blocks are dropped, and a stray closing tag ends the reasoning (chat
    templates that open the block in the prompt). An opened block that never closes means the
    model was cut off while thinking (``max_new_tokens``): there is no final answer, so the text is
    empty and ``cut off`` is true.
    """
    text = unicodedata.normalize("NFKC", text)
    text = _THINK_BLOCK.sub(" ", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:  # a stray closing tag: the answer is what follows the reasoning
        text = text[closes[-1].end() :]
    if _THINK_OPEN.search(text) is not None:
        return "", True
    return text, False


def truncated_thinking(text: object) -> bool:
    """True when ``text`` opens a ``<think>`` block and never closes it: the answer was cut off while reasoning."""
    if not isinstance(text, str) or ("<" not in text and "◁" not in text):
        return False
    return reasoning_text(text)[1]


# --------------------------------------------------------------------------- answer containers

_ANSWER_TAG = re.compile(r"<answer>(.*?)(?:</answer>|\Z)", re.S | re.I)
_BOX_TOKEN = re.compile(r"<\|begin_of_box\|>(.*?)(?:<\|end_of_box\|>|\Z)", re.S)
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
# "**Answer:** …", "Final answer: …", and "Answer: …" opening a line; the answer is the rest of that line
# (or, when the marker ends its line, the next non-empty line).
_ANSWER_LINE = re.compile(
    r"(?im)(?:^[ \t]*(?:[*_]{1,2}[ \t]*)?answer|(?:[*_]{1,2}[ \t]*)answer|\bfinal[ \t]+answer)"
    r"[ \t]*(?:[*_]{1,2})?[ \t]*[:：][ \t]*(?:[*_]{1,2})?"
)


@dataclass(frozen=True)
class _Container:
    start: int
    end: int
    inner_start: int
    inner_end: int


def _braced(text: str, open_brace: int) -> int:
    """Index just past the brace closing the one at ``open_brace`` (or the end of the text when it never closes)."""
    depth = 0
    for i in range(open_brace, len(text)):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _containers(text: str) -> list[_Container]:
    found = []
    for pattern in (_ANSWER_TAG, _BOX_TOKEN):
        for m in pattern.finditer(text):
            found.append(_Container(m.start(), m.end(), m.start(1), m.end(1)))
    for m in _BOXED.finditer(text):
        end = _braced(text, m.end() - 1)
        inner_end = end - 1 if end <= len(text) and text[end - 1 : end] == "}" else end
        found.append(_Container(m.start(), end, m.end(), inner_end))
    for m in _ANSWER_LINE.finditer(text):
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        inner_start = m.end()
        if not _WORD.search(text, inner_start, line_end):  # the marker ends its line: the answer is below
            nxt = re.compile(r"\S[^\n]*").search(text, line_end)
            if nxt is not None:
                inner_start, line_end = nxt.start(), nxt.end()
        found.append(_Container(m.start(), line_end, inner_start, line_end))
    return found


def explicit_answer(text: str) -> str | None:
    """The content of the model's explicit final-answer container in ``text``, or ``None`` if it states none.

    Containers: ``<answer>…</answer>``, ``<|begin_of_box|>…<|end_of_box|>``, ``\\boxed{…}`` (any nesting,
    ``\\boxed{\\text{…}}`` included), and ``**Answer:** …`` / ``Final answer: …`` / a line opening with
    ``Answer:``. A container holding another one gives way to it (a box inside ``<answer>`` is the answer);
    among the rest the last one wins. A container with no word in it does not count.
    """
    if "<" not in text and "\\" not in text and not re.search(r"(?i)answer", text):
        return None  # fast path: most short answers hold no container
    found = [c for c in _containers(text) if _WORD.search(_wrappers_out(text[c.inner_start : c.inner_end]))]
    if not found:
        return None
    innermost = [
        c for c in found
        if not any(o is not c and c.inner_start <= o.start and o.end <= c.inner_end for o in found)
    ]  # fmt: skip
    last = max(innermost, key=lambda c: (c.start, -c.end))
    return text[last.inner_start : last.inner_end]


def _wrappers_out(text: str) -> str:
    text = _SPECIAL_TOKEN.sub(" ", text)
    text = _TAG.sub(" ", text)
    return _LATEX.sub(" ", text)


def clean_answer(text: str) -> str:
    """Normalise an answer for robust parsing: NFKC, no reasoning blocks, no tags, LaTeX or markdown wrappers."""
    text, _cut = reasoning_text(text)
    text = _wrappers_out(text)
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


def answer_part(text: str) -> str:
    """Rules 0-1: the part of a raw answer the robust rules read, cleaned.

    An opened, never closed ``<think>`` block leaves nothing (cut off while reasoning). Otherwise the
    content of the explicit answer container (:func:`explicit_answer`) when there is one, else the text
    after the last final-answer marker, else the whole answer.
    """
    body, cut = reasoning_text(text)
    if cut:
        return ""
    inner = explicit_answer(body)
    if inner is not None:
        return final_part(clean_answer(inner))
    return final_part(clean_answer(body))
