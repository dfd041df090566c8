"""The label-swap law of the robust reading: swapping a two-option answer's options swaps its reading.

Yes<->No, A<->B, and each option's text or name <-> the other option's, in every template and
container. Checked over the labelled corpus (every entry) and over generated thinking-model templates
(hypothesis). An asymmetry here is a one-sided bias: it always removes the same answer (issue 20 found
"No" lost 26 times more often than "Yes").
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import temporal_tasks.benchmarks.velociti.tasks  # noqa: F401 - registers the VELOCITI parsers
from temporal_tasks.answers.options import YES_NO_OPTIONS, option
from temporal_tasks.answers.parsing import get_parser, is_article, words
from tests.helpers.answer_corpus import CORPUS, OPTIONS, PARSER
from tests.helpers.hypothesis_profiles import examples

SWAP = {"yes": "no", "no": "yes", "A": "B", "B": "A", None: None}

_YN = re.compile(r"(?i)(?<![\w'])(yes|no)(?![\w'])")
_LETTER = re.compile(r"(?<![A-Za-z0-9])([AaBb])(?![A-Za-z0-9])")
_WORD = re.compile(r"[^\W_]+")
_ARTICLES = ("a", "an", "the")


def _same_case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _swap_yes_no(text: str) -> str:
    return _YN.sub(lambda m: _same_case(SWAP[m.group(1).lower()], m.group(1)), text)


def _phrase_words(phrase: str) -> list[str]:
    ws = words(phrase)
    return ws[1:] if len(ws) > 1 and ws[0] in _ARTICLES else ws


def _swap_letters(text: str, options: list[dict]) -> str:
    """Swap option phrases (text and parallel names) and the labels A/B; an article "a" stays."""
    a, b = options
    pairs = list(zip([a["text"], *a["names"]], [b["text"], *b["names"]], strict=False))
    phrases = []  # (words, replacement)
    for pa, pb in pairs:
        wa, wb = _phrase_words(pa), _phrase_words(pb)
        if wa and wb:
            phrases += [(wa, " ".join(wb)), (wb, " ".join(wa))]
    tokens = [(m.group(0).casefold(), m.start(), m.end()) for m in _WORD.finditer(text)]
    spans = []  # (char start, char end, replacement), longest match first, no overlaps
    taken = [False] * len(tokens)
    for ws, repl in sorted(phrases, key=lambda p: -len(p[0])):
        n = len(ws)
        for i in range(len(tokens) - n + 1):
            if not any(taken[i : i + n]) and [t[0] for t in tokens[i : i + n]] == ws:
                taken[i : i + n] = [True] * n
                spans.append((tokens[i][1], tokens[i + n - 1][2], repl))
    out, pos = [], 0
    marks = sorted(spans)
    for m in _LETTER.finditer(text):
        if any(s <= m.start() < e for s, e, _r in marks):
            continue
        letter = m.group(1)
        if letter in "Aa" and is_article(text, m.end()):
            continue
        swapped = SWAP[letter.upper()]
        marks.append((m.start(), m.end(), swapped if letter.isupper() else swapped.lower()))
    for s, e, repl in sorted(marks):
        out.append(text[pos:s])
        out.append(repl)
        pos = e
    out.append(text[pos:])
    return "".join(out)


def swap_answer(text: str, options: list[dict], labels: tuple[str, ...]) -> str:
    """``text`` with its two options swapped (what the same model would write had the options been swapped)."""
    text = unicodedata.normalize("NFKC", text)
    if labels == ("yes", "no"):
        return _swap_yes_no(text)
    return _swap_letters(text, options)


CASES = [
    pytest.param(name, answer, careful, id=f"{name}:{i}")
    for name, entries in CORPUS.items()
    for i, (answer, careful, _official, _why) in enumerate(entries)
]


@pytest.mark.parametrize(("name", "answer", "careful"), CASES)
def test_swapping_the_options_swaps_the_reading_over_the_corpus(name, answer, careful):
    parser = get_parser(PARSER[name])
    options = OPTIONS[name]
    swapped = swap_answer(answer, options, parser.labels)
    assert parser.robust(swapped, _compiled(options)) == SWAP[careful], swapped


def test_the_swap_itself_swaps():
    opts = OPTIONS["vino_text_waving"]
    assert swap_answer("A man is waving", opts, ("A", "B")) == "A woman talks to a man"
    assert swap_answer("The answer is \\boxed{B}.", opts, ("A", "B")) == "The answer is \\boxed{A}."
    assert swap_answer("A because b", opts, ("A", "B")) == "B because a"
    assert swap_answer("<answer>No</answer> (not yes)", [], ("yes", "no")) == "<answer>Yes</answer> (not no)"


def _compiled(options):
    from temporal_tasks.answers.options import compile_options

    return compile_options(options)


# --------------------------------------------------------------------------- generated templates

_LABEL_SETS = {
    "yes_no": (("yes", "no"), [dict(o) for o in YES_NO_OPTIONS], ["timeblind_yes_no", "velociti_yes_no"]),
    "letters": (
        ("A", "B"),
        [option("A", "the girl waits before eating"), option("B", "the girl eats at once")],
        ["timeblind_mc", "first_char_ab", "velociti_mc"],
    ),
    "segments": (
        ("A", "B"),
        [
            option("A", "First segment (before black frame)", ["first segment", "first clip"]),
            option("B", "Second segment (after black frame)", ["second segment", "second clip"]),
        ],
        ["first_char_ab"],
    ),
}


def _say(label: str, kind: str, how: int, options: list[dict]) -> str:
    """One way of stating ``label``: the label itself, with an introduction, or the option's text/name."""
    if kind == "yes_no":
        word = {"yes": "Yes", "no": "No"}[label]
        return [word, word.lower(), word.upper(), f"{word}."][how % 4]
    opt = options["AB".index(label)]
    texts = [opt["text"], *opt["names"]]
    return [label, f"Option {label}", f"({label})", texts[how % len(texts)]][how % 4]


_WRAP = [
    "{x}",
    "<answer>{x}</answer>",
    "<answer><|begin_of_box|>{x}<|end_of_box|></answer>",
    "<|begin_of_box|>{x}<|end_of_box|>",
    "\\boxed{{{x}}}",
    "\\boxed{{\\text{{{x}}}}}",
    "**Answer:** {x}",
    "Final answer: {x}",
    "Final Answer: \\boxed{{{x}}}",
]
_LEAD = [
    "",
    "<think>Let me look at the frames carefully. {other_mention}</think>\n",
    "The motion changes halfway through. {other_mention}\n</think>\n\n",
    "\u25c1think\u25b7Checking the order of events.\u25c1/think\u25b7",
    "Looking at it again, the answer would be ",
    "After comparing both, ",
]
_TAIL = [
    "", ".", "!", " .",
    "\n\nThe other reading, {other_mention_short}, does not fit.",
    ". If it were the other way round, it would be {other_mention_short}, but it is not.",
]  # fmt: skip
_LINE_WRAPS = ("**Answer:** {x}", "Final answer: {x}")


@settings(max_examples=examples(ci=800, deep=800), deadline=None)
@given(
    kind=st.sampled_from(sorted(_LABEL_SETS)),
    label_index=st.integers(0, 1),
    how=st.integers(0, 11),
    wrap=st.sampled_from(_WRAP),
    lead=st.sampled_from(_LEAD),
    tail=st.sampled_from(_TAIL),
    bold=st.booleans(),
)
def test_swapping_the_options_swaps_the_reading_over_templates(kind, label_index, how, wrap, lead, tail, bold):
    labels, options, parsers = _LABEL_SETS[kind]
    label = labels[label_index]
    other = labels[1 - label_index]
    said = _say(label, kind, how, options)
    if bold:
        said = f"**{said}**"
    # The reasoning names the other option (as real reasoning does); only a container may outweigh it.
    mention = f"At first I considered {_say(other, kind, how + 1, options)}, but no." if kind != "yes_no" else ""
    if wrap == "{x}" and tail not in ("", ".", "!", " ."):
        tail = ""  # no container: a bare label followed by the other option in prose is genuinely ambiguous
    if wrap in _LINE_WRAPS and "{" in tail and not tail.startswith("\n"):
        tail = "\n\n" + tail.lstrip(". ")  # an answer line holds the rest of its line: explain on the next one
    container = wrap.format(x=said)
    text = (
        lead.format(other_mention=mention) + container + tail.format(other_mention_short=_say(other, kind, 0, options))
    )
    for name in parsers:
        parser = get_parser(name)
        compiled = _compiled(options)
        assert parser.robust(text, compiled) == label, (name, text)
        swapped = swap_answer(text, options, labels)
        assert parser.robust(swapped, compiled) == other, (name, swapped)
