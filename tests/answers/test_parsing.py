"""The answer parsers (``answers/parsing.py``): robust extraction, the official TimeBlind cascade, the reading,
parser bugs counted, and no parser ever raising (fuzzed)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from temporal_tasks.answers.options import compile_options
from temporal_tasks.answers.parsing import PARSERS, Parser, get_parser, load_benchmark_parsers, parser_errors
from temporal_tasks.base.settings import answer_reading
from tests.helpers.hypothesis_profiles import examples

# Benchmarks register their parsers on import of their parsers module: load them all so every parser is fuzzed.
load_benchmark_parsers()

YES_NO = [
    ("Yes", "yes"),
    ("no", "no"),
    ("  No.", "no"),
    ("**Yes**", "yes"),
    ("YES, the square moves right.", "yes"),
    ("<think>maybe no... </think>Yes", "yes"),
    ("The answer is no.", "no"),
    ("Answer: Yes", "yes"),
    ("I think there is no doubt, and the final answer is yes", "yes"),
    ("", None),
    ("   ", None),
    ("I cannot tell.", None),
    ("yes and no", None),  # both asserted: a hedge, not an answer
    ("Well, yes or no, hard to say", None),  # two different standalone words, no marker
    ("<think>unfinished reasoning, yes", None),  # reasoning cut off: no answer yet
    ("Nothing moves", None),  # 'no' inside a word is not an answer
]

LETTERS = [
    ("A", "A"),
    ("b", "B"),
    ("(B)", "B"),
    ("B.", "B"),
    ("**A**", "A"),
    (" a", "A"),
    ("The answer is (B).", "B"),
    ("Answer: A", "A"),
    ("<think>Option A says left. Option B says right.</think> B", "B"),
    ("<|begin_of_box|>B<|end_of_box|>", "B"),
    ("B) The blue square appears first.", "B"),
    ("I pick B because it moves up", "B"),
    ("A person walks left. B", "B"),  # the article "A" is not option A (rule 4)
    ("a dog runs", None),  # the article is not option A
    ("", None),
    ("C", None),
]


@pytest.mark.parametrize(("text", "label"), YES_NO)
def test_robust_yes_no(text, label):
    assert get_parser("timeblind_yes_no").parse(text, "robust") == label


@pytest.mark.parametrize(("text", "label"), LETTERS)
def test_robust_letters(text, label):
    assert get_parser("timeblind_mc").parse(text, "robust") == label
    assert get_parser("first_char_ab").parse(text, "robust") == label


# The official TimeBlind `extract_answer` cascade, including its documented traps (spec §5.6).
def test_mode_from_environment(monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    assert answer_reading() == "official"
    assert get_parser("timeblind_mc").parse("I would say a") == "A"
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "robust")
    assert get_parser("timeblind_mc").parse("I would say a") is None
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "fuzzy")
    with pytest.raises(ValueError, match="robust.*official"):
        answer_reading()


_PIECES = st.sampled_from(
    ["<answer>", "</answer>", "<|begin_of_box|>", "<|end_of_box|>", "\\boxed{", "\\text{", "{", "}", "<think>",
     "</think>", "**Answer:**", "Final answer:", "\n", " ", "A", "B", "Yes", "No", "no", "a", "Option", "."]
)  # fmt: skip


@settings(max_examples=examples(ci=1_500, deep=1_500), deadline=None)
@given(
    text=st.one_of(
        st.text(),
        st.text(alphabet="AaBbYesNo <>/think*()_.:\n", max_size=80),
        st.lists(_PIECES, max_size=20).map("".join),
    )
)
def test_parsers_never_raise_and_return_valid_labels(text):
    # The raw rules, not Parser.parse: parse() catches exceptions (a bug must not kill a GPU run), so a
    # property test through it could never fail.
    for parser in PARSERS.values():
        for label in (parser.robust(text, compile_options(None)), parser.official(text)):
            assert label is None or label in parser.labels


def test_parser_bug_is_counted_and_logged_not_hidden(warnings_seen):
    from temporal_tasks.base.log import logger

    def broken(text, options):
        raise RuntimeError("boom")

    bad = Parser("broken_for_test", ("A", "B"), broken, lambda text: "A")
    errors: list[str] = []
    sink = logger.add(lambda msg: errors.append(str(msg)), level="ERROR", format="{message}")
    try:
        before = parser_errors()
        assert bad.parse("A", "robust") is None
        assert bad.parse("B", "robust") is None
        assert bad.parse("A", "official") == "A"
        assert parser_errors() == before + 2
    finally:
        logger.remove(sink)
    if before == 0:  # the first traceback of the process is logged once
        assert len(errors) == 1 and "broken_for_test" in errors[0] and "bug" in errors[0]


def test_non_string_answers_are_invalid_not_errors():
    parser = get_parser("timeblind_yes_no")
    assert parser.parse(None, "robust") is None
    assert parser.parse(123, "official") is None


# ----------------------------------------------------------------------------- 5. parser fuzzing

_ANSWERISH = st.text(alphabet="AaBbYyEeSsNnOo <>/think*()[]{}_.:,!?\n|", max_size=120)

_MARKDOWN = st.builds(lambda a, b: f"{a}**{b}**", st.text(max_size=30), st.sampled_from(["A", "B", "Yes", "No"]))

_LONG = st.builds(lambda s, k: s * k, st.text(min_size=1, max_size=20), st.integers(50, 2000))

_THINKING = st.builds(lambda a, b: f"<think>{a}</think>{b}", st.text(max_size=60), _ANSWERISH)

_CONTAINERS = st.builds(
    lambda pre, open_, inner, close, post: f"{pre}{open_}{inner}{close}{post}",
    _ANSWERISH,
    st.sampled_from(
        ["<answer>", "<|begin_of_box|>", "\\boxed{", "\\boxed{\\text{", "**Answer:** ", "Final answer: ", ""]
    ),
    _ANSWERISH,
    st.sampled_from(["</answer>", "<|end_of_box|>", "}", "}}", "\n", ""]),
    _ANSWERISH,
)


@pytest.mark.parametrize("name", sorted(PARSERS))
@pytest.mark.parametrize("mode", ["robust", "official"])
@settings(max_examples=examples(ci=1_000, deep=10_000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(), _ANSWERISH, _MARKDOWN, _LONG, _THINKING, _CONTAINERS))
def test_parsers_never_raise(name, mode, text):
    parser = PARSERS[name]
    # the raw rule: Parser.parse catches exceptions (counted as parser errors), so it could never fail here
    label = parser.robust(text, compile_options(None)) if mode == "robust" else parser.official(text)
    assert label is None or label in parser.labels
