"""TimeBlind's answer rules (``benchmarks/timeblind/parsers.py``): the official scorer's cascade, byte for byte."""

from __future__ import annotations

import pytest

from temporal_tasks.answers.parsing import get_parser, load_benchmark_parsers

load_benchmark_parsers()  # TimeBlind registers its parsers when its parsers module is imported

TB_OFFICIAL_YN = [
    ("Yes", "yes"),
    ("no.", "no"),
    ("There is no indication of movement, so Yes", "no"),  # first standalone yes/no wins
    ("Final answer: yes. Actually no", "yes"),  # pattern 1 beats pattern 2
    ("Nope", None),
    ("", None),
    ("yes!", "yes"),
    ("yes,", "yes"),
    ("yesno", None),
]

TB_OFFICIAL_MC = [
    ("A", "A"),
    ("b", "B"),  # case-insensitive
    ("Yes", None),  # a yes/no answer to an MC row is invalid
    ("<think>Option A says left. Option B says right.</think> <|begin_of_box|>B<|end_of_box|>", "A"),  # pattern 2
    ("I would say a", "A"),  # the article "a" is read as option A by pattern 5
    ("(B) obviously", "B"),  # pattern 3
    ("Answer: B", "B"),  # pattern 1
    ("The answer is B.", "B"),  # pattern 5 after the keyword ('The ' before it has no letter)
    ("B. moves down", "B"),  # pattern 4
    ("a/b", None),  # slashes block pattern 5
    ("", None),
]


@pytest.mark.parametrize(("text", "label"), TB_OFFICIAL_YN)
def test_official_timeblind_yes_no(text, label):
    assert get_parser("timeblind_yes_no").parse(text, "official") == label


@pytest.mark.parametrize(("text", "label"), TB_OFFICIAL_MC)
def test_official_timeblind_mc(text, label):
    assert get_parser("timeblind_mc").parse(text, "official") == label
