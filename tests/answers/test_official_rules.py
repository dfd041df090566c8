"""The official rules several benchmarks share (``answers/official_rules.py``): the first-character rule, a response
as the official scorers read it, a probability cell, and an empty answer in an official scorer's input file."""

from __future__ import annotations

import math

import pytest

from temporal_tasks.answers.official_rules import finite_or_none, first_response, official_first_char, official_response
from temporal_tasks.answers.parsing import get_parser


@pytest.mark.parametrize(
    ("text", "label"), [("A", "A"), ("b is right", "B"), ("The answer is A", None), (" A", None), ("", None)]
)
def test_official_first_char(text, label):
    # Vinoground / TemporalBench: response[0].lower() == gt.lower(); lmms-eval strips answers first.
    assert get_parser("first_char_ab").parse(text, "official") == label


def test_the_first_character_rule_takes_its_letters_in_any_case():
    rule = official_first_char("ABCD")
    assert [rule(t) for t in ("d", "C.", "E", "", "1A")] == ["D", "C", None, None, None]


def test_a_response_as_the_official_scorers_read_it():
    assert first_response("B") == ("B", False)
    assert first_response(["A", "B"]) == ("A", True)  # a list gives its first element
    assert first_response([]) == (None, True)
    assert first_response(None) == (None, False)
    assert first_response(7) == ("7", False)


@pytest.mark.parametrize(
    ("cell", "value"),
    [(0.25, 0.25), ("0.5", 0.5), (1, 1.0), (None, None), ("", None), ("  ", None), ("n/a", None),
     (float("nan"), None), (math.inf, None), ([0.1], None)],
)  # fmt: skip
def test_a_probability_cell_is_a_finite_float_or_none(cell, value):
    assert finite_or_none(cell) == value


def test_an_empty_answer_becomes_one_space_in_an_official_input_file():
    # the official scorers index response[0]; a space is as wrong under the first-character rule
    assert official_response("") == " "
    assert official_response("B") == "B"
    assert official_first_char("AB")(official_response("")) is None
