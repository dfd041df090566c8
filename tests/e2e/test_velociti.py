"""VELOCITI through the real lmms-eval CLI against independent transcriptions of the official rules: every task,
Yes to everything, ``--limit``."""

from __future__ import annotations

import math

import pytest

from temporal_tasks.benchmarks.velociti import fixture as fixture
from temporal_tasks.benchmarks.velociti import loader as velociti_loader
from tests.helpers.benchmarks.velociti import (
    INVALID,
    LOGPS,
    MC_INVALID,
    MC_OFFICIAL,
    MC_ROBUST,
    MC_SUBSET_OFFICIAL,
    MC_SUBSET_ROBUST,
    PROB,
    PROB_INVALID,
    PROB_SUBSET,
    STRICT_OFFICIAL,
    STRICT_ROBUST,
    SUBSET_OFFICIAL,
    SUBSET_ROBUST,
    all_answers,
    logp_table,
    mean7,
    oracle_mcq,
    oracle_metrics_py,
    oracle_strict_closed,
    write_replay,
)

# ----------------------------------------------------------------------------- real CLI

ALL_TASKS = (
    "velociti_strictvle,velociti_strictvle_subset,velociti_strictvle_prob,velociti_strictvle_prob_subset,"
    "velociti_mc,velociti_mc_subset"
)


def _check_strict(metrics: dict, expected: dict[str, float]) -> None:
    for test in velociti_loader.TESTS:
        key = f"strict_vle_{test}"
        if test in expected:
            assert metrics[key] == pytest.approx(expected[test]), key
        else:
            assert math.isnan(metrics[key]), key
    assert metrics["strict_vle"] == pytest.approx(mean7(expected))


def _check_mc(metrics: dict, expected: dict[str, tuple]) -> None:
    for test, (a, b, both) in expected.items():
        assert metrics[f"mc_a_{test}"] == pytest.approx(a)
        assert metrics[f"mc_b_{test}"] == pytest.approx(b)
        assert metrics[f"mc_both_{test}"] == pytest.approx(both)
        assert metrics[f"mc_bias_{test}"] == pytest.approx(b - a)
    a7, b7 = mean7({t: v[0] for t, v in expected.items()}), mean7({t: v[1] for t, v in expected.items()})
    assert metrics["mc_a"] == pytest.approx(a7)
    assert metrics["mc_b"] == pytest.approx(b7)
    assert metrics["mc_bias"] == pytest.approx(b7 - a7)
    assert metrics["mc_both"] == pytest.approx(mean7({t: v[2] for t, v in expected.items()}))


def _check_prob(metrics: dict, expected: dict[str, tuple] = PROB) -> None:
    for test, (strict, classic) in expected.items():
        assert metrics[f"strict_vle_{test}"] == strict
        assert metrics[f"classic_vle_{test}"] == classic
    assert metrics["strict_vle"] == pytest.approx(mean7({t: v[0] for t, v in expected.items()}))
    assert metrics["classic_vle"] == pytest.approx(mean7({t: v[1] for t, v in expected.items()}))


@pytest.mark.parametrize("mode", ["robust", "official"])
def test_cli_all_tasks(lmms_eval, tmp_path, mode):
    replay = write_replay(tmp_path / "replay.jsonl", all_answers(), LOGPS)
    run = lmms_eval(ALL_TASKS, responses=replay, env={"TEMPORAL_TASKS_PARSER": mode})
    strict = run.metrics("velociti_strictvle")
    _check_strict(strict, STRICT_ROBUST if mode == "robust" else STRICT_OFFICIAL)
    assert strict["invalid_rate"] == pytest.approx(INVALID[mode])
    _check_strict(run.metrics("velociti_strictvle_subset"), SUBSET_ROBUST if mode == "robust" else SUBSET_OFFICIAL)
    mc = run.metrics("velociti_mc")
    _check_mc(mc, MC_ROBUST if mode == "robust" else MC_OFFICIAL)
    assert mc["invalid_rate"] == pytest.approx(MC_INVALID[mode])
    _check_prob(run.metrics("velociti_strictvle_prob"))  # the reading does not touch probabilities
    assert run.metrics("velociti_strictvle_prob")["invalid_rate"] == pytest.approx(PROB_INVALID)
    _check_prob(run.metrics("velociti_strictvle_prob_subset"), PROB_SUBSET)
    assert PROB_SUBSET == {
        t: (v["strict_vle"], v["classic_vle"])
        for t, v in oracle_metrics_py({q: logp_table(x) or {} for q, x in LOGPS.items()}, list(range(8))).items()
    }
    mc_subset = run.metrics("velociti_mc_subset")
    _check_mc(mc_subset, MC_SUBSET_ROBUST if mode == "robust" else MC_SUBSET_OFFICIAL)
    if mode == "official":
        assert math.isnan(mc_subset["mc_a_action_manner"])
        oracle = oracle_mcq(all_answers(), list(range(8)))
        assert {t: (v["mc_a"], v["mc_b"], v["mc_both"]) for t, v in oracle.items()} == MC_SUBSET_OFFICIAL
    for task, key in (("velociti_strictvle", "strict_vle"), ("velociti_strictvle_prob", "classic_vle"),
                      ("velociti_strictvle_prob", "strict_vle"), ("velociti_mc", "mc_both")):  # fmt: skip
        m = run.metrics(task)
        assert m[f"{key}_ci_low"] <= m[key] <= m[f"{key}_ci_high"], (task, key)
    if mode == "official":
        rows = list(range(16))
        closed = oracle_strict_closed(all_answers(), rows)
        assert {t: strict[f"strict_vle_{t}"] for t in closed} == pytest.approx(closed)
        assert strict["strict_vle"] == pytest.approx(mean7(closed))
        subset = oracle_strict_closed(all_answers(), list(range(8)))
        assert run.metrics("velociti_strictvle_subset")["strict_vle"] == pytest.approx(mean7(subset))
        for test, v in oracle_mcq(all_answers(), rows).items():
            assert (mc[f"mc_a_{test}"], mc[f"mc_b_{test}"], mc[f"mc_both_{test}"]) == pytest.approx(
                (v["mc_a"], v["mc_b"], v["mc_both"])
            )
        prob = run.metrics("velociti_strictvle_prob")
        for test, v in oracle_metrics_py({q: logp_table(x) or {} for q, x in LOGPS.items()}, rows).items():
            assert (prob[f"strict_vle_{test}"], prob[f"classic_vle_{test}"]) == (v["strict_vle"], v["classic_vle"])
    # the samples keep the raw answer, the ids and, for the probability task, the probabilities
    by_qid = {s["strict_vle"]["question_id"]: s["strict_vle"] for s in run.samples["velociti_strictvle"]}
    assert by_qid["3_neg"]["answer"] == "Nothing like that happens" and by_qid["9_neg"]["answer"] == ""
    probs = {s["strict_vle"]["question_id"]: s["strict_vle"] for s in run.samples["velociti_strictvle_prob"]}
    assert probs["8_pos"]["p_yes"] == 0.5 and probs["3_pos"]["p_yes"] == 1.0 and probs["11_pos"]["p_yes"] is None


def test_cli_yes_to_everything(lmms_eval, tmp_path):
    """Always 'Yes' (and always 'A'; the same P(Yes) everywhere): StrictVLE 0, ClassicVLE 0 by ties."""
    answers = {f"{r}_{role}": "Yes" for r in range(16) for role in ("pos", "neg")}
    answers |= {f"{r}_mc_{o}": "A" for r in range(16) for o in ("posA", "posB")}
    logps = {f"{r}_{role}": (-0.2, -1.8) for r in range(16) for role in ("pos", "neg")}
    replay = write_replay(tmp_path / "yes.jsonl", answers, logps)
    run = lmms_eval(ALL_TASKS, responses=replay, env={"TEMPORAL_TASKS_PARSER": "official"})
    for task in ("velociti_strictvle", "velociti_strictvle_subset", "velociti_strictvle_prob_subset"):
        m = run.metrics(task)
        assert m["strict_vle"] == 0.0 and all(m[f"strict_vle_{t}"] == 0.0 for t in velociti_loader.TESTS)
        assert m["invalid_rate"] == 0.0
    assert run.metrics("velociti_strictvle_prob_subset")["classic_vle"] == 0.0
    prob = run.metrics("velociti_strictvle_prob")
    assert prob["strict_vle"] == 0.0 and prob["classic_vle"] == 0.0  # e+ == e-: ties are wrong
    assert all(prob[f"classic_vle_{t}"] == 0.0 for t in velociti_loader.TESTS)
    mc = run.metrics("velociti_mc")
    assert (mc["mc_a"], mc["mc_b"], mc["mc_bias"], mc["mc_both"]) == (100.0, 0.0, -100.0, 0.0)
    assert (mc["mc_both_ci_low"], mc["mc_both_ci_high"]) == (0.0, 0.0)
    assert (prob["classic_vle_ci_low"], prob["classic_vle_ci_high"]) == (0.0, 0.0)


def test_cli_limit_leaves_out_cut_pairs(lmms_eval, tmp_path):
    replay = write_replay(tmp_path / "r.jsonl", all_answers(), LOGPS)
    run = lmms_eval("velociti_strictvle,velociti_mc", responses=replay, args=["--limit", "5"])
    strict = run.metrics("velociti_strictvle")
    # docs 0..4 = rows 0 (control, right) and 1 (agent_random, right) complete; row 2 has only its C+ question.
    assert strict["strict_vle_control"] == 100.0 and strict["strict_vle_agent_random"] == 100.0
    assert strict["strict_vle"] == 100.0  # the only non-control test scored
    assert "strict_vle_agent_bind" not in strict or math.isnan(strict["strict_vle_agent_bind"])
    assert "incomplete group" in run.output
    mc = run.metrics("velociti_mc")
    assert mc["mc_a_control"] == 100.0 and mc["mc_b_control"] == 100.0 and mc["mc_both"] == 100.0
