"""VELOCITI: loader validation, parsers, e(V,C), metrics, and the real lmms-eval CLI against the official rules."""

from __future__ import annotations

import math
import random
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from temporal_tasks.benchmarks.velociti import fixture as fixture
from temporal_tasks.benchmarks.velociti import loader as velociti_loader
from temporal_tasks.benchmarks.velociti import tasks as velociti
from temporal_tasks.data.sources import BenchmarkData, DataError
from temporal_tasks.scoring.aggregations import functions
from tests.helpers.benchmarks.velociti import (
    INVALID,
    LOGPS,
    MC_ANSWERS,
    MC_INVALID,
    MC_OFFICIAL,
    MC_ROBUST,
    MC_SUBSET_OFFICIAL,
    MC_SUBSET_ROBUST,
    PROB,
    PROB_INVALID,
    PROB_SUBSET,
    STRICT_ANSWERS,
    STRICT_OFFICIAL,
    STRICT_ROBUST,
    SUBSET_OFFICIAL,
    SUBSET_ROBUST,
    all_answers,
    logp_table,
    mean7,
    oracle_closed_yes_no,
    oracle_mcq,
    oracle_metrics_py,
    oracle_strict_closed,
    write_replay,
)

velociti_agg = SimpleNamespace(**functions("velociti"))


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


# ----------------------------------------------------------------------------- loader


def test_fixture_docs(offline_env):
    docs = velociti.load_docs(kind="entail")
    assert len(docs) == 2 * len(fixture.ROWS)
    assert [d["question_id"] for d in docs[:4]] == ["0_pos", "0_neg", "1_pos", "1_neg"]
    first = docs[0]
    assert first["prompt"] == velociti_loader.ENTAIL_PROMPT.format(caption=fixture.ROWS[0][3])
    assert first["prompt"].endswith("Just answer with either Yes or No. ")  # trailing space kept
    assert "\nHere is a caption that describes the video: " in first["prompt"]
    assert docs[1]["prompt"].endswith("No. ") and fixture.ROWS[0][4] in docs[1]["prompt"]
    assert first["gold"] == "yes" and docs[1]["gold"] == "no" and first["group_id"] == docs[1]["group_id"]
    # video_id given as "<id>.mp4" (row 2) resolves to the same file as the bare id (row 3).
    assert docs[4]["videos"] == docs[6]["videos"] and Path(docs[4]["videos"][0]).is_file()
    assert docs[4]["videos"][0].endswith("velociti_videos/v_fixOrder003_seg_5_15.mp4")
    assert {d["categories"][0] for d in docs} == set(velociti_loader.TESTS)
    subset = velociti.load_docs(kind="entail", subset=True)
    assert [d["row"] for d in subset[::2]] == list(range(8))
    mc = velociti.load_docs(kind="mc")
    assert [d["question_id"] for d in mc[:2]] == ["0_mc_posA", "0_mc_posB"]
    pos, neg = fixture.ROWS[0][3], fixture.ROWS[0][4]
    assert mc[0]["prompt"] == velociti_loader.MC_PROMPT.format(cap1=pos, cap2=neg)
    assert mc[1]["prompt"] == velociti_loader.MC_PROMPT.format(cap1=neg, cap2=pos)
    assert mc[0]["gold"] == "A" and mc[1]["gold"] == "B"
    assert mc[0]["prompt"].endswith("Just print either A or B.")
    both = velociti.load_docs()  # default: every question of every task (e.g. for replay files)
    assert len(both) == 64 and len({d["question_id"] for d in both}) == 64


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


@pytest.fixture
def copy_root(offline_env, tmp_path) -> Path:
    """A private copy of the VELOCITI fixture to break."""
    root = tmp_path / "velociti"
    shutil.copytree(offline_env / "velociti", root)
    return root


def _table(root: Path):
    import pandas as pd

    return pd.read_parquet(root / fixture.TABLE)


def _data(root: Path) -> BenchmarkData:
    return BenchmarkData("velociti", root, offline=True)


def test_loader_finds_table_under_data_and_accepts_identical_copies(copy_root):
    frame = _table(copy_root)
    (copy_root / "data").mkdir()
    half = len(frame) // 2
    frame.iloc[:half].to_parquet(copy_root / "data" / "test-00000-of-00002.parquet", index=False)
    frame.iloc[half:].to_parquet(copy_root / "data" / "test-00001-of-00002.parquet", index=False)
    assert len(velociti.load_docs(_data(copy_root), kind="entail")) == 32  # root file == the two shards joined
    (copy_root / fixture.TABLE).unlink()
    assert len(velociti.load_docs(_data(copy_root), kind="entail")) == 32  # shards alone


def test_loader_errors(copy_root):
    frame = _table(copy_root)
    data = _data(copy_root)
    # conflicting tables
    (copy_root / "data").mkdir()
    frame.iloc[:4].to_parquet(copy_root / "data" / "other.parquet", index=False)
    with pytest.raises(DataError, match="several annotation tables that differ"):
        velociti.load_docs(data)
    shutil.rmtree(copy_root / "data")
    # a missing shard
    (copy_root / "data").mkdir()
    frame.to_parquet(copy_root / "data" / "test-00000-of-00002.parquet", index=False)
    with pytest.raises(DataError, match="incomplete"):
        velociti.load_docs(data)
    shutil.rmtree(copy_root / "data")
    # v1 test names
    frame.assign(test_name=["agent_iden"] + list(frame.test_name[1:])).to_parquet(copy_root / fixture.TABLE)
    with pytest.raises(DataError, match="VELOCITI v1"):
        velociti.load_docs(data)
    # missing column
    frame.drop(columns=["in_subset"]).to_parquet(copy_root / fixture.TABLE)
    with pytest.raises(DataError, match=r"missing column\(s\) \['in_subset'\]"):
        velociti.load_docs(data)
    # empty caption
    frame.assign(neg=[""] + list(frame.neg[1:])).to_parquet(copy_root / fixture.TABLE)
    with pytest.raises(DataError, match="row 0: neg"):
        velociti.load_docs(data)
    # missing video
    frame.assign(video_id=["v_nowhere"] + list(frame.video_id[1:])).to_parquet(copy_root / fixture.TABLE)
    with pytest.raises(DataError, match="v_nowhere.mp4"):
        velociti.load_docs(data)
    # no table at all
    (copy_root / fixture.TABLE).unlink()
    with pytest.raises(DataError, match=r"no annotation table"):
        velociti.load_docs(data)


def test_process_docs_exits_cleanly_on_bad_data(offline_env, tmp_path, monkeypatch):
    (tmp_path / "velociti").mkdir()
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit, match="no annotation table"):
        velociti.process_docs(None)


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


@pytest.mark.slow
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
    _check_prob(run.metrics("velociti_strictvle_prob"))  # the parser mode does not touch probabilities
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


@pytest.mark.slow
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


@pytest.mark.slow
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
