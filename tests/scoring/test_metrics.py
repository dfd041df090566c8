"""The scoring core (``scoring/metrics.py``): unit metrics by hand, policies and strata, cut groups, tables served by
content, per-row group counts and the CI against independent computations, every ``--limit``/``--offset`` cut, and
``--repeats k`` (every repeat read and scored, with per-group stability; issue 23)."""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import replace
from itertools import islice
from types import SimpleNamespace

import pytest

from temporal_tasks.api.spec import Metric, Strata
from temporal_tasks.base.run_state import STATE
from temporal_tasks.benchmarks.timeblind import ROLES
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.cli import demo_responses
from temporal_tasks.data.fixtures import demo_tasks
from temporal_tasks.harness.task_configs import resolve_function
from temporal_tasks.scoring.aggregations import functions
from temporal_tasks.scoring.bootstrap import bootstrap_ci
from temporal_tasks.scoring.metrics import ci, complete_groups, group_counts, question_rate, reset_tables, score, scored
from temporal_tasks.scoring.payloads import NO_ANSWER, make_payload
from temporal_tasks.scoring.table import (
    INVALID,
    majority,
)
from temporal_tasks.tools.rescore import task_config, task_metrics
from tests.helpers.payloads import TRIAL_ANSWERS, TRIAL_ROLES, ab_doc, trial_payloads, unit_accuracy
from tests.helpers.repeats import SMALL, K, small_timeblind_docs, three, vote


def invalid_rate(payloads) -> float:
    reset_tables()
    return question_rate(payloads, INVALID)


def test_hand_computed_unit_metrics():
    groups = trial_payloads(TRIAL_ANSWERS)
    # trials right: 4 + 3 + 2 = 9 of 12
    assert unit_accuracy(groups, "each") == pytest.approx(100 * 9 / 12)
    # question units (q0: v0,v1; q1: v0,v1): g0 2, g1 1 (q1), g2 1 (q0) -> 4 of 6
    assert unit_accuracy(groups, [("q0_v0", "q0_v1"), ("q1_v0", "q1_v1")]) == pytest.approx(100 * 4 / 6)
    # video units (v0: q0,q1; v1: q0,q1): g0 2, g1 1 (v0), g2 0 -> 3 of 6
    assert unit_accuracy(groups, [("q0_v0", "q1_v0"), ("q0_v1", "q1_v1")]) == pytest.approx(50.0)
    assert unit_accuracy(groups, [TRIAL_ROLES]) == pytest.approx(100 / 3)
    assert unit_accuracy(groups, "all") == pytest.approx(100 / 3)
    assert invalid_rate(groups) == pytest.approx(100 / 12)


@pytest.mark.parametrize("mode", ["official", "robust"])
def test_official_read_first_by_hand(mode, monkeypatch):
    """``official_read_first``: in the official reading a unit is right only when the loop got to it, no empty answer
    reached in the units read before (read in order, each while the ones before are right); the group stays in
    the denominator. The robust reading is not touched."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    first, later = ("t0", "t1"), ("v0", "v1")
    groups = {  # gold B everywhere; (t0, t1, v0, v1)
        "g0": ("B", "", "B", "B"),  # t0 right, so t1 is read: empty raises -> v lost
        "g1": ("", "B", "B", "B"),  # t0 empty raises -> v lost
        "g2": ("A", "", "B", "B"),  # t0 wrong: t1 never read -> v kept
        "g3": ("(B)", "", "B", "B"),  # t0 unreadable (officially), not empty: as g2
        "g4": ("B", "B", "B", ""),  # an empty answer in the unit itself: just wrong
        "g5": ("B", "B", "B", "B"),  # all right
    }
    payloads = [
        make_payload(ab_doc(g, role, 4), answer)
        for g, answers in groups.items()
        for role, answer in zip((*first, *later), answers, strict=True)
    ]
    random.Random(3).shuffle(payloads)
    reset_tables()
    got = score(payloads, Metric((later,), official_read_first=(first,)), label="t", key="m").value
    # v right in g0, g1, g2, g3, g5; officially g0 and g1 lose it, and still count in the denominator
    assert got == pytest.approx(100 * (5 if mode == "robust" else 3) / 6)
    reset_tables()
    assert score(payloads, Metric((later,)), label="t", key="m").value == pytest.approx(100 * 5 / 6)


@pytest.mark.parametrize("mode", ["official", "robust"])
def test_official_missing_policies_by_hand(mode, monkeypatch):
    """``official_missing`` in the official reading: ``not_counted`` leaves a missing question out (and a group with
    none answered), ``void_group`` makes a group with one missing all wrong and leaves out a group with none
    answered, ``as_empty`` reads it as an empty answer; the robust reading always reads it as empty. Shuffled."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    roles = ("r0", "r1", "r2", "r3")
    groups = {  # gold B everywhere; None: no answer at all (NO_ANSWER)
        "g0": ("B", None, "B", "B"),  # the others right
        "g1": ("B", None, "A", "B"),  # one of the others wrong
        "g2": (None, None, None, None),  # nothing answered
        "g3": ("B", "B", "B", "B"),  # all right
        "g4": ("B", "", "B", "B"),  # an empty answer (not missing)
    }
    payloads = [
        make_payload(ab_doc(g, role, 4), NO_ANSWER if answer is None else answer)
        for g, answers in groups.items()
        for role, answer in zip(roles, answers, strict=True)
    ]
    assert sum(bool(p.get("answer_missing")) for p in payloads) == 6
    assert all(p["answer_empty"] and p["pred"] is None for p in payloads if p.get("answer_missing"))
    random.Random(5).shuffle(payloads)

    def value(units, missing) -> float:
        reset_tables()
        return score(payloads, Metric(units, official_missing=missing), label="t", key="m").value

    pairs = (("r0", "r1"), ("r2", "r3"))
    if mode == "robust":  # missing = empty everywhere: trials right 3 + 2 + 0 + 4 + 3 = 12 of 20
        for missing in ("as_empty", "not_counted", "void_group"):
            assert value("each", missing) == pytest.approx(60.0)
            assert value("all", missing) == pytest.approx(20.0)  # g3 only
        return
    assert value("each", "as_empty") == pytest.approx(60.0)
    assert value("each", "not_counted") == pytest.approx(100 * 12 / 14)  # 3/3 + 2/3 + 4/4 + 3/4, g2 out
    assert value("all", "not_counted") == pytest.approx(100 * 2 / 4)  # g0, g3 right of g0 g1 g3 g4
    assert value("each", "void_group") == pytest.approx(100 * 7 / 16)  # g0, g1 all wrong; g2 out; 4 + 3
    assert value(pairs, "void_group") == pytest.approx(100 * 3 / 8)  # g3 both pairs, g4 (r2, r3)
    assert value(pairs, "as_empty") == pytest.approx(100 * 4 / 10)  # g0 (r2, r3), g3 both, g4 (r2, r3)
    with pytest.raises(ValueError, match="official_missing"):
        Metric("each", official_missing="drop")  # type: ignore[arg-type]


def test_official_missing_with_repeats_by_hand(monkeypatch):
    """``--repeats 3``: a missing question has no answer in any repeat; each repeat is scored with the rule."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    answers = {"g0": ("B", None, "B", "B"), "g1": ("B",) * 4}  # each given answer is B, B, A over the repeats
    payloads = [
        make_payload(ab_doc(g, role, 4), [NO_ANSWER] * 3 if a is None else [a, a, "A"])
        for g, given in answers.items()
        for role, a in zip(("r0", "r1", "r2", "r3"), given, strict=True)
    ]
    random.Random(2).shuffle(payloads)
    reset_tables()
    void = score(payloads, Metric("each", official_missing="void_group"), label="t", key="m")
    # per repeat: g0 0 of 4 (void), g1 4, 4, 0 of 4 -> 50, 50, 0; majority B: g1 right -> 50
    assert (void.value, void.consensus_accuracy) == pytest.approx((100 / 3, 50.0))
    reset_tables()
    out = score(payloads, Metric("each", official_missing="not_counted"), label="t", key="m")
    # per repeat: 7 of 7, 7 of 7, 0 of 7 -> mean 66.7; majority all right
    assert (out.value, out.consensus_accuracy) == pytest.approx((200 / 3, 100.0))


@pytest.mark.parametrize("missing", ["as_empty", "not_counted", "void_group"])
def test_official_missing_leaves_a_cut_group_out(missing, monkeypatch):
    """A group cut by --limit (a member never evaluated) is left out under every missing-answer rule, even when one
    of its evaluated members has no answer; the complete groups score as alone."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    roles = ("r0", "r1", "r2", "r3")
    whole = [make_payload(ab_doc("g0", r, 4), "B") for r in roles]
    cut = [make_payload(ab_doc("g1", r, 4), NO_ANSWER if r == "r1" else "A") for r in roles[:3]]
    payloads = whole + cut
    random.Random(9).shuffle(payloads)
    reset_tables()
    assert score(payloads, Metric("each", official_missing=missing), label="t", key="m").value == 100.0
    reset_tables()
    assert score(payloads, Metric((roles,), official_missing=missing), label="t", key="m").value == 100.0


def test_official_read_first_needs_role_units():
    with pytest.raises(ValueError, match="official_read_first"):
        Metric("each", official_read_first=(("a", "b"),))
    assert Metric((("v0", "v1"),), official_read_first=(("t0", "t1"),)).roles() == {"t0", "t1", "v0", "v1"}


def test_invalid_drop_policy_removes_units_from_denominator():
    groups = trial_payloads(TRIAL_ANSWERS)
    # g2's q1 unit holds the empty answer: dropped, so question accuracy is 4 of 5.
    assert unit_accuracy(groups, [("q0_v0", "q0_v1"), ("q1_v0", "q1_v1")], invalid="drop") == pytest.approx(80.0)


def test_order_does_not_matter():
    payloads = trial_payloads(TRIAL_ANSWERS)
    expected = unit_accuracy(payloads, [TRIAL_ROLES])
    rng = random.Random(7)
    for _ in range(20):
        rng.shuffle(payloads)
        assert unit_accuracy(list(payloads), [TRIAL_ROLES]) == expected


def test_truncated_group_is_left_out_and_counted():
    payloads = trial_payloads({k: v for k, v in TRIAL_ANSWERS.items() if k < 6})  # --limit 6 cuts g1
    assert complete_groups(payloads) == 1
    assert scored(payloads).table.complete.tolist().count(False) == 1  # g1 left out, and counted
    assert unit_accuracy(payloads, "each") == 100.0


def test_nothing_complete_gives_nan_not_zero():
    groups = trial_payloads({0: "yes", 1: "no"})
    assert math.isnan(unit_accuracy(groups, "each"))
    assert math.isnan(invalid_rate(groups))


@pytest.mark.parametrize("answer", [None, "", "   ", "\x00\x01", "🙂" * 500, "<think>", "Maybe?"])
def test_garbage_answers_are_wrong_and_invalid(answer):
    payloads = trial_payloads({0: answer, 1: "No", 2: "no", 3: "yes"})
    assert payloads[0]["pred"] is None and payloads[0]["correct"] is False
    groups = payloads
    assert unit_accuracy(groups, "each") == 75.0
    assert invalid_rate(groups) == 25.0


# ----------------------------------------------------------------------------- the one core: policies and strata


def _pair(group: str, test: str, pos: str | None, neg: str | None, p_pos=None, p_neg=None) -> list[dict]:
    """A VELOCITI-style pair: pos gold yes, neg gold no; ``None`` = unreadable."""
    out = []
    for role, gold, pred, p in (("pos", "yes", pos, p_pos), ("neg", "no", neg, p_neg)):
        out.append({"question_id": f"{group}_{role}", "group_id": group, "role": role, "group_size": 2, "test": test,
                    "gold": gold, "pred": pred, "correct": pred == gold, "p_yes": p})  # fmt: skip
    return out


def test_strata_mean_exclusion_order_and_policies():
    items = (
        _pair("a1", "t1", "yes", "no") + _pair("a2", "t1", "yes", "yes") + _pair("a3", "t1", None, "no")  # t1
        + _pair("b1", "t2", "yes", "no") + _pair("b2", "t2", "no", "no")  # t2
        + _pair("c1", "ctl", "yes", "no")  # excluded stratum
        + _pair("cut", "t2", "yes", "no")[:1]  # a cut pair: left out everywhere
    )  # fmt: skip
    strata = Strata("test", ("t1", "t2", "ctl"), exclude=("ctl",))
    wrong = Metric((("pos", "neg"),), strata=strata)
    drop = Metric((("pos", "neg"),), invalid="drop_group", strata=strata)
    for seed in range(4):
        random.Random(seed).shuffle(items)
        reset_tables()
        # t1: 1 of 3 (the unreadable pair is wrong), t2: 1 of 2 -> mean of 33.3 and 50
        assert score(items, wrong, label="v", key="s").value == pytest.approx((100 / 3 + 50) / 2)
        # drop_group: t1's unreadable pair leaves the denominator -> 1 of 2
        assert score(items, drop, label="v", key="s").value == pytest.approx(50.0)
        t2 = [p for p in items if p["test"] == "t2"]
        assert score(t2, wrong, label="v", key="s_t2", one_stratum=True).value == 50.0
        with pytest.raises(ValueError, match="several strata"):
            score(items, wrong, label="v", key="s_one", one_stratum=True)


def test_score_gt_rule_and_row_filter():
    items = (
        _pair("a", "t", "yes", "no", 0.9, 0.2) + _pair("b", "t", "no", "no", 0.4, 0.3)  # classic right, strict not
        + _pair("c", "t", None, "no", None, 0.1) + _pair("d", "t", "yes", "yes", 0.6, 0.7)
    )  # fmt: skip
    reset_tables()
    classic = Metric((("pos", "neg"),), score_gt="p_yes")
    assert score(items, classic, label="v", key="c").value == 50.0  # a, b (c has no score, d reversed)
    # a per-category key gets whole groups; only its category's questions are units
    for p in items:
        p["category"] = "Fine Action" if p["role"] == "pos" else "other"
    reset_tables()  # the payloads changed: a new evaluation
    within = ("category", "fine_action")
    assert score(items, Metric("each"), label="v", key="r", within=within).value == 50.0  # pos right in a and d
    assert score(items, Metric("all"), label="v", key="r2", within=("category", "other")).value == 75.0


def test_a_list_is_served_by_a_table_of_equal_content_only():
    first = trial_payloads(TRIAL_ANSWERS)
    reset_tables()
    value = score(first, Metric("each"), label="t", key="k").value
    assert len(STATE.tables) == 1
    # the same payloads, or copies equal in content: the same table
    assert score([dict(p) for p in first], Metric("each"), label="t", key="k").value == value
    assert len(STATE.tables) == 1
    # the same questions answered differently: a table of their own (question ids alone do not decide)
    second = trial_payloads({**TRIAL_ANSWERS, 11: "yes"})
    assert score(second, Metric("each"), label="t", key="k").value == pytest.approx(value + 100 / 12)
    assert len(STATE.tables) == 2
    # some of a list's payloads (a category key's list): a table from that list's columns, by question id and
    # content; a list whose payloads differ in content is read on its own
    sub = [p for p in second if p["group_id"] == "g0"]
    assert score(sub, Metric("each"), label="t", key="k").value == 100.0
    assert STATE.tables[-1].columns is STATE.tables[-2].columns
    changed = [dict(p, correct=False) if p["role"] == "q0_v0" else p for p in sub]
    assert score(changed, Metric("each"), label="t", key="k").value == 75.0
    assert STATE.tables[-1].columns is not STATE.tables[-2].columns


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


# ----------------------------------------------------------------------------- every --limit / --offset cut


def _generate_tasks() -> list[str]:
    return [t for t in demo_tasks() if task_config(t).get("output_type", "generate_until") == "generate_until"]


def _task_pipeline(task: str):
    cfg = task_config(task)
    docs = list(resolve_function(cfg["process_docs"])(None))
    return docs, resolve_function(cfg["process_results"]), task_metrics(task)


def _aggregate(metrics, per_doc: list[dict]) -> dict[str, float]:
    out = {}
    for key, fn, _hib in metrics:
        items = [r[key] for r in per_doc if key in r]
        if items:
            out[key] = fn(items)
    return out


@pytest.mark.parametrize("task", _generate_tasks())
def test_every_limit_and_offset_scores_exactly_the_complete_groups(task, offline_env):
    docs, process_results, metrics = _task_pipeline(task)
    answers = {a["question_id"]: a["response"] for a in demo_responses(docs, seed=5)}
    per_doc = [process_results(d, [answers[d["question_id"]]]) for d in docs]
    n = len(docs)
    for offset in (0, 1, 3, 7):
        for limit in range(1, 51):
            picked = list(islice(range(n), offset, offset + limit))  # lmms-eval's create_iterator, one rank
            if not picked:
                continue
            got = _aggregate(metrics, [per_doc[i] for i in picked])
            for value in got.values():
                assert math.isnan(value) or -100.0 <= value <= 100.0
            # Cutting a group must be the same as never having had it: compare with the complete groups only.
            sizes: dict[str, int] = {}
            for i in picked:
                sizes[docs[i]["group_id"]] = sizes.get(docs[i]["group_id"], 0) + 1
            complete = [i for i in picked if sizes[docs[i]["group_id"]] == int(docs[i]["group_size"])]
            expected = _aggregate(metrics, [per_doc[i] for i in complete])
            for key, value in got.items():
                want = expected.get(key, math.nan)
                assert (math.isnan(value) and math.isnan(want)) or value == pytest.approx(want), (offset, limit, key)


# ----------------------------------------------------------------------------- --repeats k (issue 23)

timeblind_agg = SimpleNamespace(**functions("timeblind"))


def _timeblind_payloads(docs: list[dict], answers: dict) -> list[dict]:
    # lmms-eval hands process_results the k answers flattened: [a1, ..., ak]
    return [timeblind.process_results(d, three(answers[d["question_id"]]))["instance_acc"] for d in docs]


@pytest.fixture
def tb_docs(offline_env) -> list[dict]:
    return small_timeblind_docs()


def test_timeblind_stability_by_hand(tb_docs):
    items = _timeblind_payloads(tb_docs, SMALL)
    assert timeblind_agg.instance_acc(items) == pytest.approx((50 + 50 + 25) / 3)
    assert timeblind_agg.instance_acc_consensus_accuracy(items) == 75.0  # majority: instances 0, 1, 2 right
    assert timeblind_agg.instance_acc_consistency_rate(items) == 25.0  # only instance 3 (never right) is stable
    assert timeblind_agg.instance_acc_repeat_sd(items) == pytest.approx(statistics.stdev([50, 50, 25]))
    assert timeblind_agg.trial_acc(items) == pytest.approx(100 * (11 + 11 + 9) / 48)
    assert timeblind_agg.invalid_rate(items) == pytest.approx(100 / 48)  # all k x 16 answers count
    yes_no = [p for p in items if "yes_no" in p["categories"]]  # instances 0 (right in r0) and 1 (in r1, r2)
    assert (
        timeblind_agg.instance_acc_yes_no(yes_no) == 50.0 and timeblind_agg.instance_acc_yes_no_repeat_sd(yes_no) == 0
    )
    assert timeblind_agg.instance_acc_yes_no_consistency_rate(yes_no) == 0.0
    low, high = timeblind_agg.instance_acc_ci_low(items), timeblind_agg.instance_acc_ci_high(items)
    assert 0 <= low <= timeblind_agg.instance_acc(items) <= high <= 100
    # shuffled payload order: the same numbers
    shuffled = items[:]
    random.Random(4).shuffle(shuffled)
    agg = timeblind_agg
    for fn in (agg.instance_acc, agg.instance_acc_consensus_accuracy, agg.instance_acc_ci_low,
               agg.instance_acc_consistency_rate, agg.instance_acc_repeat_sd):  # fmt: skip
        assert fn(shuffled) == fn(items)


def test_truncated_group_left_out_of_every_repeat(tb_docs):
    items = _timeblind_payloads(tb_docs[:-1], SMALL)  # instance 3 lost a trial (--limit)
    assert timeblind_agg.instance_acc(items) == pytest.approx(100 * (2 + 2 + 1) / 9)
    assert timeblind_agg.instance_acc_consistency_rate(items) == 0.0
    assert timeblind_agg.instance_acc_consensus_accuracy(items) == 100.0


def test_empty_answers_count_as_unreadable_in_every_repeat(tb_docs):
    answers = {d["question_id"]: ["", "Maybe", ""] for d in tb_docs}
    items = _timeblind_payloads(tb_docs, answers)
    assert timeblind_agg.invalid_rate(items) == 100.0
    assert timeblind_agg.instance_acc(items) == 0.0 and timeblind_agg.instance_acc_repeat_sd(items) == 0.0
    assert timeblind_agg.instance_acc_consistency_rate(items) == 100.0


def test_one_answer_per_question_path_unchanged(tb_docs):
    items = [timeblind.process_results(d, [SMALL[d["question_id"]][0] if isinstance(SMALL[d["question_id"]], list)
                                           else SMALL[d["question_id"]]])["instance_acc"] for d in tb_docs]  # fmt: skip
    result = score(items, Metric((ROLES,)), label="t", key="instance_acc")
    assert result.value == 50.0 and math.isnan(result.consensus_accuracy) and math.isnan(result.repeat_sd)


def test_different_repeat_counts_are_an_error(tb_docs):
    items = _timeblind_payloads(tb_docs, SMALL)
    items[0] = timeblind.process_results(tb_docs[0], ["Yes", "No"])["instance_acc"]
    with pytest.raises(ValueError, match="different numbers of repeats"):
        timeblind_agg.instance_acc(items)


ANSWER_POOL = ["A", "B", "Yes", "No", "", "(A)", "no.", "The answer is B", "maybe"]


@pytest.mark.parametrize("mode", ["robust", "official"])
@pytest.mark.parametrize(
    "task", ["timeblind_iacc", "vinoground_group", "temporalbench_short_mba", "velociti_strictvle", "velociti_mc"]
)
def test_every_key_is_the_mean_of_single_runs(task, mode, offline_env, monkeypatch):
    """Each group metric under --repeats 3 = the mean of three one-answer runs (the k = 1 path as the oracle);
    consensus = the one-answer run on the majority answers; SD = their sample SD. Every generate benchmark,
    both readings (VELOCITI's official mode drops pairs with an unreadable answer, per repeat)."""
    from temporal_tasks.harness.task_configs import resolve_function, task_config

    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    cfg = task_config(task)
    docs = list(resolve_function(cfg["process_docs"])(None))
    process = resolve_function(cfg["process_results"])
    rng = random.Random(task)
    given = {}
    for d in docs:
        gold = str(d["gold"])
        spoken = gold.capitalize() if gold in ("yes", "no") else gold
        given[d["question_id"]] = [spoken if rng.random() < 0.6 else rng.choice(ANSWER_POOL) for _ in range(K)]

    def aggregate(answer_of) -> dict[str, float]:
        reset_tables()
        items: dict[str, list] = {}
        for d in docs:
            for key, p in process(d, answer_of(d["question_id"])).items():
                items.setdefault(key, []).append(p)
        return {m["metric"]: resolve_function(m["aggregation"])(items[m["metric"]]) for m in cfg["metric_list"]
                if m["metric"] in items}  # fmt: skip

    sampled = aggregate(lambda q: given[q])
    singles = [aggregate(lambda q, r=r: [given[q][r]]) for r in range(K)]
    consensus = aggregate(lambda q: [_majority_answer(docs, q, given[q])])
    checked = 0
    for key, value in singles[0].items():
        if f"{key}_repeat_sd" not in sampled or value != value:  # a group metric: it has --repeats keys
            continue
        per_repeat = [s[key] for s in singles if s[key] == s[key]]  # a repeat with nothing to score has no value
        assert sampled[key] == pytest.approx(sum(per_repeat) / len(per_repeat), abs=1e-9), key
        sd = statistics.stdev(per_repeat) if len(per_repeat) > 1 else math.nan
        assert sampled[f"{key}_repeat_sd"] == pytest.approx(sd, abs=1e-9, nan_ok=True), key
        assert sampled[f"{key}_consensus_accuracy"] == pytest.approx(consensus[key], abs=1e-9, nan_ok=True), key
        assert 0.0 <= sampled[f"{key}_consistency_rate"] <= 100.0
        checked += 1
    assert checked >= 2
    assert sampled["invalid_rate"] == pytest.approx(sum(s["invalid_rate"] for s in singles) / K, abs=1e-9)


def _majority_answer(docs: list[dict], qid: str, answers: list[str]) -> str:
    """An answer text whose reading is the majority reading of ``answers`` ("?" when tied or unreadable: the
    majority reading is a label, no answer text, so it is never the empty answer an official scorer raises on)."""
    from temporal_tasks.answers.options import option_keys
    from temporal_tasks.answers.parsing import get_parser
    from temporal_tasks.base.settings import answer_reading

    doc = next(d for d in docs if d["question_id"] == qid)
    keys = option_keys(doc.get("options"))
    mode = answer_reading()
    readings = []
    for a in answers:
        robust, official, _errors = get_parser(doc["parser"]).read_all(a, keys)
        readings.append(official if mode == "official" else robust)
    winner = vote(readings)
    return "?" if winner is None else answers[readings.index(winner)]
