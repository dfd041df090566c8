"""VELOCITI's task functions (``benchmarks/velociti/tasks.py``): e(V,C) from losses, the YAMLs' metric keys, and
the StrictVLE, MC and probability aggregations against independent transcriptions of the official rules."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import pytest

from temporal_tasks.benchmarks.velociti import fixture as fixture
from temporal_tasks.benchmarks.velociti import loader as velociti_loader
from temporal_tasks.benchmarks.velociti import tasks as velociti
from temporal_tasks.scoring.aggregations import functions
from tests.helpers.benchmarks.velociti import (
    INVALID,
    LOGPS,
    MC_ANSWERS,
    MC_INVALID,
    MC_OFFICIAL,
    MC_ROBUST,
    PROB,
    PROB_INVALID,
    STRICT_ANSWERS,
    STRICT_OFFICIAL,
    STRICT_ROBUST,
    logp_table,
    mean7,
    official_mcq,
    oracle_mcq,
    oracle_metrics_py,
    oracle_strict_closed,
)

velociti_agg = SimpleNamespace(**functions("velociti"))


# ----------------------------------------------------------------------------- e(V,C)


def test_entailment_score_matches_softmax_ratio():
    rng = random.Random(7)
    for _ in range(500):
        ly, ln = rng.uniform(0, 30), rng.uniform(0, 30)  # losses = -log p
        py, pn = math.exp(-ly), math.exp(-ln)
        assert velociti.entailment_score(ly, ln) == pytest.approx(py / (py + pn), rel=1e-12, abs=1e-300)
    assert velociti.entailment_score(0.7, 0.7) == 0.5
    assert velociti.entailment_score(math.inf, 0.1) == 0.0
    assert velociti.entailment_score(0.1, math.inf) == 1.0
    assert velociti.entailment_score(math.inf, math.inf) is None
    assert velociti.entailment_score(math.nan, 0.1) is None
    assert velociti.entailment_score(-0.1, 0.5) is None  # a log-probability, not a loss
    assert velociti.entailment_score(1000.0, 0.0) == pytest.approx(0.0, abs=1e-300)  # no overflow


@pytest.mark.parametrize(
    ("raw", "loss"),
    [("(0.1, False)", 0.1), ("(inf, True)", math.inf), ("(np.float64(0.25), np.True_)", 0.25),
     ("(1e-05, True)", 1e-05), ((0.3, False), 0.3), ([(0.4, False)], 0.4), (["(0.7, False)"], 0.7)],
)  # fmt: skip
def test_loss_reads_what_lmms_eval_passes(raw, loss):
    # lmms-eval 0.7.3 stringifies (loss, is_greedy) tuples before process_results.
    assert velociti._loss(raw) == loss


def test_loss_unreadable_is_nan():
    assert math.isnan(velociti._loss("garbage"))
    assert math.isnan(velociti._loss(None))
    row = {"row": 0, "video": "/v.mp4", "test_name": "coref", "video_id": "v", "event": "Ev1", "pos": "p", "neg": "n",
           "in_subset": False}  # fmt: skip
    doc = velociti_loader.entail_docs([row])[0]
    payload = velociti.process_results_prob(doc, [])["strict_vle"]
    assert payload["p_yes"] is None and payload["pred"] is None


def _task_yaml(name: str) -> dict:
    from temporal_tasks.harness.task_configs import task_config

    return task_config(name)  # the YAML lmms-eval loads (wheel or checkout), templates included


@pytest.mark.parametrize(
    ("task", "kind", "process"),
    [("velociti_strictvle", "entail", "process_results"), ("velociti_strictvle_subset", "entail", "process_results"),
     ("velociti_strictvle_prob", "entail", "process_results_prob"),
     ("velociti_strictvle_prob_subset", "entail", "process_results_prob"),
     ("velociti_mc", "mc", "process_results_mc"), ("velociti_mc_subset", "mc", "process_results_mc")],
)  # fmt: skip
def test_yaml_lists_every_metric_key(offline_env, task, kind, process):
    # Both the YAML's metric list and process_results' keys derive from the spec's metric list: over the
    # questions of every test, process_results feeds exactly the keys the YAML aggregates, each test's
    # per-test keys only its own questions.
    cfg = _task_yaml(task)
    names = [m["metric"] for m in cfg["metric_list"]]
    docs = velociti.load_docs(kind=kind)
    results = [getattr(velociti, process)(d, ["Yes"]) for d in docs]
    fed = {key for r in results for key in r}
    if cfg["output_type"] == "generate_until":  # --repeats k: each group metric's three stability keys too
        fed |= {key for d in docs for key in getattr(velociti, process)(d, ["Yes", "No", "Yes"])}
    assert sorted(names) == sorted(fed)
    for doc, r in zip(docs, results, strict=True):
        own = [k for k in r if any(k.endswith(f"_{t}") for t in velociti_loader.TESTS)]
        assert own and all(k.endswith(f"_{doc['test_name']}") for k in own)
    prefix = "prob_" if task.startswith("velociti_strictvle_prob") else ""
    for m in cfg["metric_list"]:
        module, _, fn = m["aggregation"][1].rpartition(".")
        assert module == "temporal_tasks.scoring.aggregations" and fn == f"velociti__{prefix}{m['metric']}"
        assert getattr(velociti_agg, f"{prefix}{m['metric']}").name == f"{prefix}{m['metric']}"
    if cfg["output_type"] == "generate_until":
        assert cfg["reasoning_tags"] == "none"
    else:
        assert cfg["output_type"] == "multiple_choice"
        assert cfg["doc_to_choice"] == ["Yes", "No"] and cfg["target_delimiter"] == ""


# ----------------------------------------------------------------------------- aggregation in-process


def _payloads(docs, answers, fn=velociti.process_results):
    return [fn(d, [answers.get(d["question_id"], "")]) for d in docs]


def _aggregate(results: list[dict[str, dict]], key: str, agg) -> float:
    return agg([r[key] for r in results if key in r])


def test_strict_aggregation_order_free_and_modes(offline_env, monkeypatch):
    docs = velociti.load_docs(kind="entail")
    for mode, expected in (("robust", STRICT_ROBUST), ("official", STRICT_OFFICIAL)):
        monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
        results = _payloads(docs, STRICT_ANSWERS)
        random.Random(3).shuffle(results)
        for test, value in expected.items():
            assert _aggregate(
                results, f"strict_vle_{test}", getattr(velociti_agg, f"strict_vle_{test}")
            ) == pytest.approx(value)
        assert _aggregate(results, "strict_vle", velociti_agg.strict_vle) == pytest.approx(mean7(expected))
        assert _aggregate(results, "invalid_rate", velociti_agg.invalid_rate) == pytest.approx(INVALID[mode])
        low = _aggregate(results, "strict_vle_ci_low", velociti_agg.strict_vle_ci_low)
        high = _aggregate(results, "strict_vle_ci_high", velociti_agg.strict_vle_ci_high)
        assert low <= mean7(expected) <= high
        # robust: two tests mix right and wrong rows, so resampling moves the mean; official: every kept
        # test is all-right or all-wrong, so the interval collapses onto the value.
        assert (low < high) if mode == "robust" else (low == high == pytest.approx(mean7(expected)))
    # the official numbers equal the transcribed closed-model script
    assert STRICT_OFFICIAL == oracle_strict_closed(STRICT_ANSWERS, list(range(16)))


def test_truncated_pairs_are_left_out(offline_env, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "robust")
    results = _payloads(velociti.load_docs(kind="entail")[:5], STRICT_ANSWERS)  # rows 0, 1 and half of row 2
    assert _aggregate(results, "strict_vle", velociti_agg.strict_vle) == 100.0  # only agent_random (row 1) is scored
    assert math.isnan(_aggregate(results, "strict_vle_agent_bind", velociti_agg.strict_vle_agent_bind))
    assert _aggregate(results, "strict_vle_control", velociti_agg.strict_vle_control) == 100.0


def test_control_is_excluded_from_the_average(offline_env, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "robust")
    answers = {f"{r}_pos": "Yes" for r in range(16)} | {f"{r}_neg": "No" for r in range(16)}
    answers |= {"0_neg": "Yes", "8_neg": "Yes"}  # only control wrong
    results = _payloads(velociti.load_docs(kind="entail"), answers)
    assert _aggregate(results, "strict_vle", velociti_agg.strict_vle) == 100.0
    assert _aggregate(results, "strict_vle_control", velociti_agg.strict_vle_control) == 0.0


def test_mc_aggregation(offline_env, monkeypatch):
    docs = velociti.load_docs(kind="mc")
    for mode, expected in (("robust", MC_ROBUST), ("official", MC_OFFICIAL)):
        monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
        results = _payloads(docs, MC_ANSWERS, velociti.process_results_mc)
        random.Random(5).shuffle(results)
        for test, (a, b, both) in expected.items():
            assert _aggregate(results, f"mc_a_{test}", getattr(velociti_agg, f"mc_a_{test}")) == pytest.approx(a)
            assert _aggregate(results, f"mc_b_{test}", getattr(velociti_agg, f"mc_b_{test}")) == pytest.approx(b)
            assert _aggregate(results, f"mc_both_{test}", getattr(velociti_agg, f"mc_both_{test}")) == pytest.approx(
                both
            )
            assert _aggregate(results, f"mc_bias_{test}", getattr(velociti_agg, f"mc_bias_{test}")) == pytest.approx(
                b - a
            )
        a7 = mean7({t: v[0] for t, v in expected.items()})
        b7 = mean7({t: v[1] for t, v in expected.items()})
        assert _aggregate(results, "mc_a", velociti_agg.mc_a) == pytest.approx(a7)
        assert _aggregate(results, "mc_b", velociti_agg.mc_b) == pytest.approx(b7)
        assert _aggregate(results, "mc_bias", velociti_agg.mc_bias) == pytest.approx(b7 - a7)
        assert _aggregate(results, "mc_both", velociti_agg.mc_both) == pytest.approx(
            mean7({t: v[2] for t, v in expected.items()})
        )
        assert _aggregate(results, "invalid_rate", velociti_agg.invalid_rate) == pytest.approx(MC_INVALID[mode])
    oracle = oracle_mcq(MC_ANSWERS, list(range(16)))
    assert {t: (v["mc_a"], v["mc_b"], v["mc_both"]) for t, v in oracle.items()} == MC_OFFICIAL


def _prob_results(docs, logps) -> list[dict]:
    out = []
    for d in docs:
        table = logp_table(logps.get(d["question_id"])) or {}
        # what lmms-eval hands over: str((loss, is_greedy)) per choice, Yes then No
        res = [str((-table[c] if c in table else math.inf, False)) for c in ("Yes", "No")]
        out.append(velociti.process_results_prob(d, res))
    return out


def test_prob_aggregation_matches_metrics_py(offline_env):
    docs = velociti.load_docs(kind="entail")
    results = _prob_results(docs, LOGPS)
    random.Random(11).shuffle(results)
    oracle = oracle_metrics_py({q: logp_table(v) or {} for q, v in LOGPS.items()}, list(range(16)))
    for test, (strict, classic) in PROB.items():
        assert oracle[test] == {"strict_vle": strict, "classic_vle": classic}
        assert _aggregate(results, f"strict_vle_{test}", getattr(velociti_agg, f"prob_strict_vle_{test}")) == strict
        assert _aggregate(results, f"classic_vle_{test}", getattr(velociti_agg, f"prob_classic_vle_{test}")) == classic
    assert _aggregate(results, "strict_vle", velociti_agg.prob_strict_vle) == pytest.approx(
        mean7({t: v[0] for t, v in PROB.items()})
    )
    assert _aggregate(results, "classic_vle", velociti_agg.prob_classic_vle) == pytest.approx(
        mean7({t: v[1] for t, v in PROB.items()})
    )
    assert _aggregate(results, "invalid_rate", velociti_agg.prob_invalid_rate) == pytest.approx(PROB_INVALID)


# ----------------------------------------------------------------------------- every answer kind in every position

MISSING = object()  # no answer (the replay model answers it empty; a missing cell in the official CSV)
CLOSED_KINDS = {
    "pos": ("Yes", "No", "", " \n", "Yes and No", "yes", None, MISSING, "Nope", "Yesterday, yes"),
    "neg": ("No", "Yes", "", " \n", "No. Yes.", "no", None, MISSING, "Nothing", "Not really"),
}
MC_KINDS = {
    "posA": ("A", "B", "", " \n", "A.", "a", None, MISSING, "A is right", "(A)"),
    "posB": ("B", "A", "", " \n", "B.", "b", None, MISSING, "B is right", "(B)"),
}


def _pair_patterns(kinds: dict[str, tuple], rows: int) -> list[dict[int, tuple]]:
    """Every pair of answers (one per role) spread over passes of ``rows`` rows, shuffled."""
    first, second = kinds.values()
    pairs = [(a, b) for a in first for b in second]
    random.Random(50).shuffle(pairs)
    return [dict(enumerate(pairs[i : i + rows])) for i in range(0, len(pairs), rows)]


def _given(raw: object) -> list:
    return [] if raw is MISSING else [raw]


def _text(raw: object) -> str:
    """The answer our pipeline scores (lmms-eval and the replay model give an empty string for null or missing)."""
    return "" if raw is MISSING or raw is None else str(raw)


def test_closed_rule_every_answer_kind_in_every_position(offline_env, monkeypatch):
    """StrictVLE official (closed-model rule): each kind of answer in each position of a pair, every combination,
    equals call_model's reading + strict_vle_closed (a pair counts only when both read Yes/No)."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    docs = velociti.load_docs(kind="entail")
    for pattern in _pair_patterns(CLOSED_KINDS, len(docs) // 2):
        raw = {
            f"{r}_{role}": value
            for r, pair in pattern.items()
            for role, value in zip(("pos", "neg"), pair, strict=True)
        }
        results = [velociti.process_results(d, _given(raw.get(d["question_id"], ""))) for d in docs]
        random.Random(5).shuffle(results)
        expected = oracle_strict_closed({q: _text(v) for q, v in raw.items()}, list(range(len(docs) // 2)))
        for test in velociti_loader.TESTS:
            got = _aggregate(results, f"strict_vle_{test}", getattr(velociti_agg, f"strict_vle_{test}"))
            assert got == pytest.approx(expected.get(test, math.nan), nan_ok=True), (pattern, test)


def test_mc_every_answer_kind_in_every_position(offline_env, monkeypatch):
    """MC official: each kind of answer in each position of a pair (posA, posB), every combination. metrics.py's
    mcq stops on an empty, blank or missing answer (``split()[0]``, no number); ours drops that row, the number mcq
    gives on the cells our export writes (a placeholder for it); every other answer as mcq reads it raw."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    docs = velociti.load_docs(kind="mc")
    rows = len(docs) // 2
    for pattern in _pair_patterns(MC_KINDS, rows):
        raw = {
            f"{r}_mc_{role}": value
            for r, pair in pattern.items()
            for role, value in zip(("posA", "posB"), pair, strict=True)
        }
        results = [velociti.process_results_mc(d, _given(raw.get(d["question_id"], ""))) for d in docs]
        random.Random(5).shuffle(results)
        texts = {
            f"{r}_mc_{role}": _text(raw.get(f"{r}_mc_{role}", "")) for r in range(rows) for role in ("posA", "posB")
        }
        if any(not text.split() for text in texts.values()):
            with pytest.raises(IndexError):
                official_mcq([texts[f"{r}_mc_posA"] for r in range(rows)], [texts[f"{r}_mc_posB"] for r in range(rows)])
        expected = oracle_mcq(texts, list(range(rows)))
        for test in velociti_loader.TESTS:
            for m in ("mc_a", "mc_b", "mc_both"):
                got = _aggregate(results, f"{m}_{test}", getattr(velociti_agg, f"{m}_{test}"))
                want = expected[test][m] if test in expected else math.nan
                assert got == pytest.approx(want, nan_ok=True), (pattern, test, m)
