"""VELOCITI's parsers (``benchmarks/velociti/parsers.py``): the official closed-model Yes/No and first-token rules,
and the robust readings never raising."""

from __future__ import annotations

import pytest

from temporal_tasks.benchmarks.velociti import fixture as fixture
from temporal_tasks.benchmarks.velociti import loader as velociti_loader
from tests.helpers.benchmarks.velociti import (
    oracle_closed_yes_no,
)

# ----------------------------------------------------------------------------- parsers


@pytest.mark.parametrize(
    ("text", "label"),
    [("Yes", "yes"), ("No.", "no"), ("Yes, but No", None), ("Nothing", "no"), ("None of it", "no"),
     ("yes", None), ("NO", None), ("", None), ("Certainly Yes!", "yes")],
)  # fmt: skip
def test_official_yes_no_is_the_case_sensitive_substring_rule(text, label):
    assert velociti_loader.YES_NO.parse(text, "official") == label
    expect = {"Yes": "yes", "No": "no", "error": None}[oracle_closed_yes_no(text)]
    assert label == expect


@pytest.mark.parametrize(
    ("text", "label"),
    [("A", "A"), ("B is right", "B"), ("  B\n", "B"), ("A)", None), ("A.", None), ("(A)", None), ("a", None),
     ("", None), ("   ", None), ("C", None)],
)  # fmt: skip
def test_official_mc_first_token(text, label):
    assert velociti_loader.MC.parse(text, "official") == label


def test_robust_parsers_never_raise():
    for text in [None, "", "\x00", "<think>", "Yes" * 1000, 42]:
        velociti_loader.YES_NO.parse(text, "robust")
        velociti_loader.MC.parse(text, "robust")
    assert velociti_loader.YES_NO.parse("**Yes**", "robust") == "yes"
    assert velociti_loader.MC.parse("(B)", "robust") == "B"
