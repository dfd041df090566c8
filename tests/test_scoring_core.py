"""The numpy scoring core (issue 28, item 7): per-row group counts, lists resolved once per pass, the column-wise
majority of ``--repeats`` and the CI computed on first read, each against an independent computation."""

from __future__ import annotations

import pickle
import random
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from temporal_tasks import scoring_pass
from temporal_tasks.rows import DISAGREE, READINGS, TRUNCATED, RowPayload, majority
from temporal_tasks.run_state import STATE
from temporal_tasks.scoring import Metric, MetricResult, bootstrap_ci, group_counts, payload_table, reset_pass, score
from temporal_tasks.table import _keys_increase, factorize_runs


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
    reset_pass()
    metric = Metric(units, invalid=policy, row_field=None if category is None else "category")
    counts, complete = group_counts(payload_table(items), metric, category)
    assert sorted(map(tuple, counts.tolist())) == _by_hand(items, units, policy, category)
    assert int(complete.sum()) == len(counts) and int((~complete).sum()) == 9  # groups 3, 10, ..., 59 are cut


def test_a_list_is_reused_only_when_it_holds_the_same_payloads():
    items = _payloads(400, seed=1)
    reset_pass()
    first = score(items, Metric("each"), label="t", key="k")
    built = payload_table(items)
    assert payload_table(list(items)) is built  # lmms-eval's next key: a fresh list of the same objects
    # one payload changed at a position the fingerprint does not sample: a different payload set, scored anew
    changed = list(items)
    at = next(i for i in range(1, len(items)) if i % max(1, len(items) // 64) and items[i]["pred"] == "B")
    changed[at] = {**items[at], "pred": "A", "correct": True}
    assert scoring_pass._fingerprint(changed) == scoring_pass._fingerprint(items)
    again = score(changed, Metric("each"), label="t", key="k")
    assert payload_table(changed) is not built
    assert again.value > first.value
    # fresh dicts equal in content (a rescore): a new pass, the same numbers
    fresh = [dict(p) for p in items]
    assert score(fresh, Metric("each"), label="t", key="k") == first
    assert STATE.scoring_pass.items[0] is fresh[0]
    # a subset of the pass's payloads is found by identity
    sub = [p for p in fresh if p["group_id"] == "g0"]
    assert payload_table(sub).group_names[payload_table(sub).group].tolist() == ["g0"] * 3
    assert STATE.scoring_pass.items[0] is fresh[0]


def test_ci_is_computed_on_first_read_and_is_the_bootstrap_of_the_counts():
    items = _payloads(200, seed=2)
    reset_pass()
    result = score(items, Metric("all"), label="t", key="k")
    assert "ci_low" not in vars(result)  # not computed yet
    counts, _complete = group_counts(payload_table(items), Metric("all"))
    low, high = bootstrap_ci(counts[counts[:, 1] > 0])
    assert (result.ci_low, result.ci_high) == (low, high)
    plain = MetricResult(result.value, low, high)
    assert result == plain and plain == result and hash(result) == hash(plain)
    copied = pickle.loads(pickle.dumps(result))
    assert type(copied) is MetricResult and repr(copied) == repr(plain)  # NaN fields: compared as text


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
    for payloads in (items, [RowPayload(p) for p in items]):
        reset_pass()
        table = payload_table(payloads)
        assert table.repeats == k
        cons_correct, cons_invalid = table.consensus
        for i, p in enumerate(items):
            preds = [r.get("pred") for r in p["repeats"]]
            winner = _vote(preds)
            assert majority(preds) == winner
            assert table.repeat_correct[i].tolist() == [bool(r.get("correct")) for r in p["repeats"]]
            assert table.repeat_invalid[i].tolist() == [x is None for x in preds]
            assert bool(cons_invalid[i]) == (winner is None)
            assert bool(cons_correct[i]) == (winner is not None and winner == p["gold"])
            for r, reading in enumerate(p["repeats"]):
                view = table.for_repeat(r).flags[i]
                both = "pred_robust" in reading and "pred_official" in reading
                assert bool(view & TRUNCATED) == reading["truncated"]
                assert bool(view & READINGS) == both
                assert bool(view & DISAGREE) == (both and reading["pred_robust"] != reading["pred_official"])
        assert cons_invalid.any() and cons_correct.any() and np.asarray(cons_correct & cons_invalid).sum() == 0


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


@pytest.mark.parametrize("policy", ["wrong", "drop", "drop_group"])
@pytest.mark.parametrize(
    "metric",
    [
        Metric("each"),
        Metric("all"),
        Metric("each", row_field="category"),
        Metric("all", row_field="category"),
        Metric((("r0", "r1"), ("r2", "r3"), ("r0", "r1", "r2", "r3"))),
        Metric((("r0", "r1"), ("r2",)), row_field="category"),
        Metric((("r0", "r1"), ("r3", "r2")), rule="score_gt", score_field="score"),
    ],
)
def test_every_reading_at_once_equals_one_view_per_reading(metric, policy):
    """The --repeats reduction over (rows, k + 1) readings gives, reading by reading, the counts of the one-reading
    views (each repeat's, the majority's): every unit kind, policy, row field and rule."""
    metric = replace(metric, invalid=policy)
    for k in (2, 3, 5):
        reset_pass()
        table = payload_table(_repeat_payloads(k, k, ("r0", "r1", "r2", "r3")))
        row_value = "fine_action" if metric.row_field else None
        together, complete = group_counts(table.for_readings(), metric, row_value)
        consensus = replace(
            table.for_repeat(0),
            correct=table.consensus[0],
            invalid=table.consensus[1],
            _matrices=None,
            flags=None,
            _views={},
        )  # the majority reading's one-reading view, as for_repeat makes a repeat's
        views = [table.for_repeat(r) for r in range(k)] + [consensus]
        for r, view in enumerate(views):
            alone, complete_alone = group_counts(view, metric, row_value)
            assert together[:, r].tolist() == alone.tolist(), (k, r)
            assert complete.tolist() == complete_alone.tolist()
        assert together[:, :, 1].any()
        if metric.rule == "correct" or policy != "wrong":  # (a score rule reads one score: alike but for policies)
            assert (together != together[:, :1]).any()  # the readings differ


@pytest.mark.parametrize("seed", range(6))
def test_factorize_runs_matches_hashing_every_key(seed):
    """Runs of equal keys factorized (distinct runs by sorting, else by hashing) equal pandas' first-seen codes of
    every key: each run's code, its length, where each code first occurs and each code's key."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000))
    pool = rng.integers(-(2**40), 2**40, size=max(1, [n, 5, 2000][seed % 3]))  # distinct, few, a repeat now and then
    keys = np.repeat(rng.choice(pool, size=n), rng.integers(1, 5, size=n))[:n].astype(np.int64)
    run_codes, lengths, first, distinct = factorize_runs(keys)
    codes, uniques = pd.factorize(keys, sort=False)
    assert np.repeat(run_codes, lengths).tolist() == codes.tolist()
    assert distinct.tolist() == uniques.tolist()
    assert first.tolist() == [int(np.flatnonzero(codes == c)[0]) for c in range(len(uniques))]


@pytest.mark.parametrize("order", ["sorted", "swap_at_chunk_edge", "repeat", "shuffled"])
def test_row_keys_increase_checked_chunk_by_chunk(order):
    group, role = np.repeat(np.arange(5000, dtype=np.int32), 4), np.tile(np.arange(4, dtype=np.uint8), 5000)
    if order == "swap_at_chunk_edge":  # two rows that straddle a chunk's edge
        group[[99, 100]], role[[99, 100]] = group[[100, 99]], role[[100, 99]]
    elif order == "repeat":
        group[-1], role[-1] = group[-2], role[-2]
    elif order == "shuffled":
        at = np.random.default_rng(0).permutation(len(group))
        group, role = group[at], role[at]
    whole = group.astype(np.int64) * 4 + role
    assert _keys_increase(group, role, 4, np.int32, chunk=100) == bool((whole[1:] > whole[:-1]).all())
    assert _keys_increase(group, role, 4, np.int32, chunk=100) == (order == "sorted")
