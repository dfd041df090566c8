"""A question's options: their schema in the docs, the compact form payloads carry, and finding them in answers.

The docs list a question's options as ``{"label", "text", "names"}`` dicts (:func:`option`; Yes/No questions
:data:`YES_NO_OPTIONS`; options laid out one per line in a prompt: :func:`line_options`). Payloads carry them in
the compact form :func:`option_keys` returns, so that ``rescore`` re-reads an answer without the dataset (each
option phrase kept as its word count and a short digest, so long captions do not bloat ``--log_samples`` files).
:func:`compile_options` turns either form into the :class:`OptionPhrases` the robust parsers
(:mod:`temporal_tasks.answers.parsing`, rule 3) look for in an answer with :func:`find_options`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from temporal_tasks.answers.answer_text import words
from temporal_tasks.api.contracts import Option

__all__ = [
    "NO_OPTIONS",
    "YES_NO_OPTIONS",
    "OptionPhrases",
    "compile_options",
    "find_options",
    "line_options",
    "option",
    "option_keys",
    "single_option",
]


@dataclass(frozen=True)
class OptionPhrases:
    """Compiled options: per phrase ``(label, word count, digest)``; what the robust rule 3 needs."""

    phrases: tuple[tuple[str, int, str], ...] = ()

    @property
    def lengths(self) -> tuple[int, ...]:
        """The distinct phrase lengths in words (windows to slide over an answer)."""
        return tuple(sorted({n for _label, n, _d in self.phrases}))


NO_OPTIONS = OptionPhrases()


def _digest(ws: Sequence[str]) -> str:
    return hashlib.blake2b(" ".join(ws).encode("utf-8"), digest_size=8).hexdigest()


def option(label: str, text: str = "", names: Sequence[str] = ()) -> Option:
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


def find_options(ws: Sequence[str], options: OptionPhrases) -> dict[str, list[tuple[int, int]]]:
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


def single_option(found: dict[str, list[tuple[int, int]]]) -> str | None:
    """The one option the matches name; a match lying inside another label's longer match does not count."""
    spans = [(label, s, e) for label, ss in found.items() for s, e in ss]

    def inside(label: str, s: int, e: int) -> bool:
        return any(o != label and os_ <= s and e <= oe and (oe - os_) > (e - s) for o, os_, oe in spans)

    labels = {label for label, s, e in spans if not inside(label, s, e)}
    return labels.pop() if len(labels) == 1 else None


# --------------------------------------------------------------------------- options laid out in prompts

_LINE_OPTION = re.compile(r"(?m)^[ \t]*([A-Z])[.)][ \t]+(\S.*?)[ \t]*$")


def line_options(question: str, letters: str = "AB") -> list[Option] | None:
    """Options laid out one per line as ``A. text`` / ``B. text`` (Vinoground, TemporalBench); ``None`` if absent."""
    found: dict[str, str] = {}
    for m in _LINE_OPTION.finditer(question):
        if m.group(1) in letters and m.group(1) not in found:
            found[m.group(1)] = m.group(2)
    if set(found) != set(letters):
        return None
    return [option(label, found[label]) for label in letters]
