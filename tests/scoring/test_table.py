"""The payload table (``scoring/table.py``): row flags, the majority of repeats, duplicates and role clashes."""

from __future__ import annotations

import random

import pytest

from temporal_tasks.base.run_state import STATE
from temporal_tasks.scoring.metrics import reset_tables, scored
from temporal_tasks.scoring.table import (
    CORRECT,
    DISAGREE,
    EMPTY,
    ERRORS_SHIFT,
    INVALID,
    READINGS,
    REPEATS,
    TRUNCATED,
    majority,
    reading_flags,
    row_flags,
)
from tests.helpers.payloads import TRIAL_ANSWERS, trial_payloads, unit_accuracy


def test_majority_tie_is_unreadable():
    assert majority(["yes", "no"]) is None and majority(["yes", "no", "no"]) == "no"
    assert majority([None, None, "yes"]) is None and majority(["A", "A", None, None]) is None


def test_repeated_answer_is_ignored_but_conflicting_roles_raise():
    payloads = trial_payloads(TRIAL_ANSWERS)
    reset_tables()
    assert scored([*payloads, payloads[0]]).table.duplicates == 1
    assert unit_accuracy([*payloads, payloads[0]], "each") == unit_accuracy(payloads, "each")
    clash = dict(payloads[1], question_id="other")
    reset_tables()
    with pytest.raises(ValueError, match="both claim role"):
        scored([*payloads, clash])
    # a repeated answer in a list made of an earlier list's columns (a category key's) counts once too
    reset_tables()
    again = dict(payloads[0])
    assert scored([*payloads, again]).table.duplicates == 1
    sub = scored([payloads[0], again, *payloads[1:4]])
    assert (
        sub.columns is STATE.tables[0].columns and sub.table.duplicates == 1 and sub.table.complete.tolist() == [True]
    )


def _vote(preds: list) -> object:
    """The majority by hand: the value with strictly the most votes, else None."""
    votes = {}
    for x in preds:
        votes[x] = votes.get(x, 0) + 1
    best = max(votes.values())
    winners = [x for x, n in votes.items() if n == best]
    return winners[0] if len(winners) == 1 else None


@pytest.mark.parametrize("k", [2, 3, 5])
def test_repeat_readings_match_majority_per_payload(k):
    rng = random.Random(k)
    items = []
    for i in range(2000):
        preds = [rng.choice("ABC") if rng.random() < 0.8 else None for _ in range(k)]
        reps = [
            {"pred": pred, "correct": rng.choice([True, False, 1, None]), "truncated": rng.random() < 0.2,
             "pred_robust": pred, "pred_official": pred if rng.random() < 0.7 else "Z"}
            for pred in preds
        ]  # fmt: skip
        if rng.random() < 0.1:
            del reps[0]["correct"]
        if rng.random() < 0.1:
            del reps[-1]["pred_official"]
        items.append({"group_id": f"g{i}", "role": "q", "group_size": 1, "pred": preds[0], "correct": False,
                      "repeats": reps, "gold": rng.choice(["A", "B"])})  # fmt: skip
    reset_tables()
    table = scored(items).table
    assert table.repeats == k
    for i, p in enumerate(items):
        preds = [r.get("pred") for r in p["repeats"]]
        winner = _vote(preds)
        assert majority(preds) == winner
        assert table.correct[i, :k].tolist() == [bool(r.get("correct")) for r in p["repeats"]]
        assert table.invalid[i, :k].tolist() == [x is None for x in preds]
        assert bool(table.invalid[i, k]) == (winner is None)
        assert bool(table.correct[i, k]) == (winner is not None and winner == p["gold"])
        for r, reading in enumerate(p["repeats"]):
            flags = table.reading_flags[i, r]
            both = "pred_robust" in reading and "pred_official" in reading
            assert bool(flags & TRUNCATED) == reading["truncated"]
            assert bool(flags & READINGS) == both
            assert bool(flags & DISAGREE) == (both and reading["pred_robust"] != reading["pred_official"])
    assert (
        table.invalid[:, k].any()
        and table.correct[:, k].any()
        and not (table.correct[:, k] & table.invalid[:, k]).any()
    )


def test_row_flags_by_hand():
    base = {"pred": "A", "correct": True}
    assert row_flags(base) == CORRECT
    assert row_flags({"pred": None, "correct": False}) == INVALID
    assert row_flags({**base, "truncated": True, "repeats": [], "parser_errors": 3}) == (
        CORRECT | TRUNCATED | REPEATS | 3 << ERRORS_SHIFT
    )
    assert row_flags({**base, "pred_robust": "A", "pred_official": "A"}) == CORRECT | READINGS
    assert row_flags({**base, "pred_robust": "A", "pred_official": None}) == CORRECT | READINGS | DISAGREE
    assert row_flags({**base, "pred_robust": "A"}) == CORRECT  # one reading: not counted for disagreement
    assert row_flags({"pred": "", "correct": 1}) == CORRECT  # truthiness, as bool() of each
    assert row_flags({"pred": None, "correct": False, "answer_empty": True}) == INVALID | EMPTY
    assert reading_flags({"pred": None, "answer_empty": True}) == INVALID | EMPTY
    assert reading_flags({"pred": None}) == INVALID  # a reading without the field (older samples): not empty
    with pytest.raises(KeyError):
        row_flags({"pred": "A"})
