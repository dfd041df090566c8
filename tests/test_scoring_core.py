"""The numpy scoring core: per-row group counts, tables served by content, the readings of ``--repeats`` and the
CI, each against an independent computation."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from temporal_tasks.api.spec import Metric
from temporal_tasks.scoring.bootstrap import bootstrap_ci
from temporal_tasks.scoring.metrics import ci, group_counts, reset_tables, score, scored
from temporal_tasks.scoring.table import (
    CORRECT,
    DISAGREE,
    ERRORS_SHIFT,
    INVALID,
    READINGS,
    REPEATS,
    TRUNCATED,
    majority,
    row_flags,
)


def _payloads(groups: int, seed: int, size: int = 3) -> list[dict]:
    """Groups of ``size`` questions (some cut, some unreadable), a category per question, shuffled."""
    rng = random.Random(seed)
    out = []
    for g in range(groups):
        for r in range(size):
            if g % 7 == 3 and r == 0:
                continue  # a cut group: one member never evaluated
            pred = rng.choice(["A", "B", None])
            category = rng.choice(["Fine Action", "Other"])
            out.append({"question_id": f"{g}_{r}", "group_id": f"g{g}", "role": f"{g}_{r}", "group_size": size,
                        "pred": pred, "correct": pred == "A", "category": category})  # fmt: skip
    rng.shuffle(out)
    return out


def _by_hand(items: list[dict], units: str, policy: str, category: str | None) -> list[tuple[int, int]]:
    """Sorted per-group ``[right, units]`` of the complete groups, from the definitions, one group at a time."""
    groups: dict[str, list[dict]] = {}
    for p in items:
        groups.setdefault(p["group_id"], []).append(p)
    out = []
    for members in groups.values():
        if len(members) != members[0]["group_size"]:
            continue
        mine = [p for p in members if category is None or p["category"].lower().replace(" ", "_") == category]
        bad = [p for p in mine if p["pred"] is None]
        if units == "each":
            right, total = sum(p["correct"] for p in mine), len(mine) - (len(bad) if policy == "drop" else 0)
        else:
            total = int(bool(mine) and not (policy == "drop" and bad))
            right = int(total == 1 and all(p["correct"] for p in mine))
        if policy == "drop_group" and any(p["pred"] is None for p in members):
            right, total = 0, 0
        out.append((right, total))
    return sorted(out)


@pytest.mark.parametrize("units", ["each", "all"])
@pytest.mark.parametrize("policy", ["wrong", "drop", "drop_group"])
@pytest.mark.parametrize("category", [None, "fine_action"])
def test_row_counts_match_the_definitions(units, policy, category):
    items = _payloads(60, seed=len(units) + len(policy))
    reset_tables()
    within = None if category is None else ("category", category)
    table = scored(items).table
    counts = group_counts(table, Metric(units, invalid=policy), within)[:, 0]
    assert sorted(map(tuple, counts.tolist())) == _by_hand(items, units, policy, category)
    assert int(table.complete.sum()) == len(counts) and int((~table.complete).sum()) == 9  # 3, 10, ..., 59 are cut


def test_a_list_is_served_by_its_equal_and_some_of_its_payloads_by_its_columns():
    items = _payloads(400, seed=1)
    reset_tables()
    first = score(items, Metric("each"), label="t", key="k")
    built = scored(items)
    assert scored(list(items)) is built  # lmms-eval's next key: a fresh list of the same payloads
    # one payload changed anywhere: a different payload set, scored anew
    changed = list(items)
    at = next(i for i in range(len(items) // 2, len(items)) if items[i]["pred"] == "B")
    changed[at] = {**items[at], "pred": "A", "correct": True}
    again = score(changed, Metric("each"), label="t", key="k")
    assert scored(changed) is not built and again.value > first.value
    # fresh dicts equal in content (a rescore): the same table, the same numbers
    fresh = [dict(p) for p in items]
    assert scored(fresh) is built and score(fresh, Metric("each"), label="t", key="k") == first
    # some of the payloads (a category key's list): made from the columns of the list they come from, and equal
    # to a table read on its own
    for category in ("Fine Action", "Other"):
        sub = [p for p in items if p["category"] == category]
        for metric in (Metric("each"), Metric("all", invalid="drop_group")):
            reset_tables()
            whole = scored(items)
            derived = scored(sub)
            assert derived.columns is whole.columns and derived.at is not None
            reset_tables()
            alone = scored(sub)
            assert alone.at is None
            counts = [sorted(map(tuple, group_counts(t.table, metric)[:, 0].tolist())) for t in (derived, alone)]
            assert counts[0] == counts[1]


def test_ci_is_the_bootstrap_of_the_counts():
    items = _payloads(200, seed=2)
    reset_tables()
    counts = group_counts(scored(items).table, Metric("all"))[:, 0]
    assert ci(items, Metric("all")) == bootstrap_ci(counts[counts[:, 1] > 0])


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


def _repeat_payloads(seed: int, k: int, roles: tuple[str, ...]) -> list[dict]:
    """Groups of ``roles`` (some cut, shuffled) whose questions hold ``k`` readings each, with a score and a
    category, for the every-reading reduction."""
    rng = random.Random(seed)
    out = []
    for g in range(300):
        for role in roles:
            if g % 11 == 5 and role == roles[0]:
                continue  # a cut group
            preds = [rng.choice(["A", "B", None]) for _ in range(k)]
            reps = [{"pred": p, "correct": p == "A"} for p in preds]
            out.append({"question_id": f"{g}_{role}", "group_id": f"g{g}", "role": role, "group_size": len(roles),
                        "pred": preds[0], "correct": preds[0] == "A", "repeats": reps, "gold": "A",
                        "score": rng.choice([None, rng.random()]), "category": rng.choice(["Fine Action", "Other"]),
                        "kind": rng.choice(["x", "y"])})  # fmt: skip
    rng.shuffle(out)
    return out


def _one_reading(payloads: list[dict], r: int | None) -> list[dict]:
    """The payloads as one-answer payloads of reading ``r`` (None: each question's majority reading)."""
    out = []
    for p in payloads:
        one = {k: v for k, v in p.items() if k != "repeats"}
        if r is None:
            pred = majority([x["pred"] for x in p["repeats"]])
            one.update(pred=pred, correct=pred is not None and pred == p["gold"])
        else:
            one.update(p["repeats"][r])
        out.append(one)
    return out


@pytest.mark.parametrize("policy", ["wrong", "drop", "drop_group"])
@pytest.mark.parametrize(
    "metric, within",
    [
        (Metric("each"), None),
        (Metric("all"), None),
        (Metric("each"), ("category", "fine_action")),
        (Metric("all"), ("category", "fine_action")),
        (Metric((("r0", "r1"), ("r2", "r3"), ("r0", "r1", "r2", "r3"))), None),
        (Metric((("r0", "r1"), ("r2",))), ("category", "fine_action")),
        (Metric((("r0", "r1"), ("r3", "r2")), score_gt="score"), None),
    ],
)
def test_every_reading_at_once_equals_each_reading_scored_alone(metric, within, policy):
    """The --repeats reduction over (rows, k + 1) readings gives, reading by reading, the counts of the payloads
    rewritten as one-answer payloads of that reading (each repeat's, the majority's): every unit kind, policy,
    category filter and rule."""
    metric = replace(metric, invalid=policy)
    for k in (2, 3, 5):
        payloads = _repeat_payloads(k, k, ("r0", "r1", "r2", "r3"))
        reset_tables()
        together = group_counts(scored(payloads).table, metric, within)
        for r, reading in enumerate([*range(k), None]):
            reset_tables()
            alone = group_counts(scored(_one_reading(payloads, reading)).table, metric, within)
            assert together[:, r].tolist() == alone[:, 0].tolist(), (k, r)
        assert together[:, :, 1].any()
        if metric.score_gt is None or policy != "wrong":  # (a score rule reads one score: alike but for policies)
            assert (together != together[:, :1]).any()  # the readings differ


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
    with pytest.raises(KeyError):
        row_flags({"pred": "A"})
