"""VELOCITI: loader validation, parsers, e(V,C), metrics, and the real lmms-eval CLI against the official rules."""

from __future__ import annotations

import json
import math
import random
import shutil
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from temporal_tasks.benchmarks.velociti import fixture as fixture
from temporal_tasks.benchmarks.velociti import loader as velociti_loader
from temporal_tasks.benchmarks.velociti import tasks as velociti
from temporal_tasks.data.sources import BenchmarkData, DataError
from temporal_tasks.scoring.aggregations import functions

velociti_agg = SimpleNamespace(**functions("velociti"))

TESTS7 = ("agent_random", "agent_bind", "coref", "action_adv", "action_manner", "action_bind", "chrono")
TEST_OF_ROW = [t for t, *_ in fixture.ROWS]  # fixture row -> test_name (2 rows per test)

# ----------------------------------------------------------------------------- official oracles
# Independent transcriptions of the official rules, written from the spec, not from our module.


def oracle_closed_yes_no(raw: str) -> str:
    """gemini/closed_model_metrics.py: case-sensitive substring test."""
    if "Yes" in raw and "No" not in raw:
        return "Yes"
    if "No" in raw and "Yes" not in raw:
        return "No"
    return "error"


def oracle_strict_closed(answers: dict[str, str], rows: list[int]) -> dict[str, float]:
    """Per test: pairs where both answers read Yes/No; right iff pos Yes and neg No (percent)."""
    right, total = defaultdict(int), defaultdict(int)
    for r in rows:
        pos = oracle_closed_yes_no(answers.get(f"{r}_pos", ""))
        neg = oracle_closed_yes_no(answers.get(f"{r}_neg", ""))
        if pos == "error" or neg == "error":
            continue
        total[TEST_OF_ROW[r]] += 1
        right[TEST_OF_ROW[r]] += pos == "Yes" and neg == "No"
    return {t: 100 * right[t] / total[t] for t in total}


def oracle_mcq(answers: dict[str, str], rows: list[int]) -> dict[str, dict[str, float]]:
    """metrics.py::mcq per test: first whitespace token exactly A/B, rows invalid in either order dropped."""
    acc = defaultdict(lambda: [0, 0, 0, 0])  # a, b, both, total
    for r in rows:
        ta = answers.get(f"{r}_mc_posA", "").split()
        tb = answers.get(f"{r}_mc_posB", "").split()
        a = ta[0] if ta else ""
        b = tb[0] if tb else ""
        if a not in ("A", "B") or b not in ("A", "B"):
            continue
        s = acc[TEST_OF_ROW[r]]
        s[0] += a == "A"
        s[1] += b == "B"
        s[2] += a == "A" and b == "B"
        s[3] += 1
    return {
        t: {"mc_a": 100 * a / n, "mc_b": 100 * b / n, "mc_both": 100 * both / n} for t, (a, b, both, n) in acc.items()
    }


def oracle_metrics_py(logps: dict[str, dict[str, float]], rows: list[int]) -> dict[str, dict[str, float]]:
    """metrics.py on e = P(Yes)/(P(Yes)+P(No)) computed the official way (softmax probabilities)."""

    def e(qid: str) -> float:
        table = logps.get(qid, {})
        py = math.exp(table["Yes"]) if "Yes" in table else 0.0
        pn = math.exp(table["No"]) if "No" in table else 0.0
        return py / (py + pn) if py + pn else math.nan

    strict, classic, n = defaultdict(int), defaultdict(int), defaultdict(int)
    for r in rows:
        pos, neg, t = e(f"{r}_pos"), e(f"{r}_neg"), TEST_OF_ROW[r]
        n[t] += 1
        strict[t] += pos > 0.5 and neg < 0.5
        classic[t] += pos > neg
    return {t: {"strict_vle": 100 * strict[t] / n[t], "classic_vle": 100 * classic[t] / n[t]} for t in n}


def mean7(per_test: dict[str, float]) -> float:
    vals = [per_test[t] for t in TESTS7 if t in per_test]
    return sum(vals) / len(vals)


# ----------------------------------------------------------------------------- answer patterns
# Fixture rows: 0 control, 1 agent_random, 2 agent_bind, 3 coref, 4 action_adv, 5 action_manner,
# 6 action_bind, 7 chrono, then 8..15 the same tests again. Subset = rows 0..7.

STRICT_ANSWERS = {
    "0_pos": "Yes", "0_neg": "No",  # control: right
    "8_pos": "Yes", "8_neg": "Yes",  # control: wrong
    "1_pos": "Yes.", "1_neg": "No.",  # agent_random: right
    "9_pos": "Yes",  # 9_neg missing -> empty: robust wrong, official dropped
    "2_pos": "yes", "2_neg": "no",  # robust right; official: lowercase has no 'Yes'/'No' -> dropped
    "10_pos": "No", "10_neg": "No",  # wrong
    "3_pos": "Yes, I think so", "3_neg": "Nothing like that happens",  # robust: neg unreadable; official 'No' -> right
    "11_pos": "Yes", "11_neg": "No",  # right
    "4_pos": "Yes", "4_neg": "No, it does not jump. Yesterday it did.",  # robust right; 'Yes'terday: official drops
    "12_pos": "**Yes**", "12_neg": "No",  # right in both
    "5_pos": "Yes", "5_neg": "No",  # right
    "13_pos": "Yes", "13_neg": "Nope",  # robust: 'Nope' unreadable -> wrong; official: contains 'No' -> right
    "6_pos": "Sure, yes.", "6_neg": "No",  # robust right (unique yes); official: no 'Yes' -> dropped
    "14_pos": "No", "14_neg": "No",  # wrong
    "7_pos": "<think>No idea</think>Yes", "7_neg": "No",  # robust right; official sees 'No' and 'Yes' -> dropped
    "15_pos": "Yes", "15_neg": "No",  # right
}  # fmt: skip
# Robust by hand (per test, 2 rows each): control 1/2, agent_random 1/2, agent_bind 1/2, coref 1/2,
# action_adv 2/2, action_manner 1/2, action_bind 1/2, chrono 2/2; avg of 7 = (50*5+100*2)/7 = 450/7.
STRICT_ROBUST = {
    "control": 50.0, "agent_random": 50.0, "agent_bind": 50.0, "coref": 50.0,
    "action_adv": 100.0, "action_manner": 50.0, "action_bind": 50.0, "chrono": 100.0,
}  # fmt: skip
# Official by hand: kept pairs control 0,8 -> 1/2; agent_random 1 -> 1/1; agent_bind 10 -> 0/1; coref 3,11 -> 2/2;
# action_adv 12 -> 1/1; action_manner 5,13 -> 2/2; action_bind 14 -> 0/1; chrono 15 -> 1/1; avg = 500/7.
STRICT_OFFICIAL = {
    "control": 50.0, "agent_random": 100.0, "agent_bind": 0.0, "coref": 100.0,
    "action_adv": 100.0, "action_manner": 100.0, "action_bind": 0.0, "chrono": 100.0,
}  # fmt: skip
# Unreadable answers, robust: 9_neg, 3_neg, 13_neg = 3/32; official: 9_neg, 2_pos, 2_neg, 4_neg, 6_pos, 7_pos = 6/32.
INVALID = {"robust": 100 * 3 / 32, "official": 100 * 6 / 32}
# Subset (rows 0..7). Robust: all right but coref (row 3) -> 6 tests at 100, coref 0 -> avg 600/7.
# Official: rows 2, 4, 6, 7 dropped -> agent_bind, action_adv, action_bind, chrono have nothing (NaN);
# the average is over the 3 tests left (agent_random, coref, action_manner), all 100.
SUBSET_ROBUST = dict.fromkeys(velociti_loader.TESTS, 100.0) | {"coref": 0.0}
SUBSET_OFFICIAL = {"control": 100.0, "agent_random": 100.0, "coref": 100.0, "action_manner": 100.0}

MC_ANSWERS = {
    "0_mc_posA": "A", "0_mc_posB": "B",  # control: both right
    "8_mc_posA": "A", "8_mc_posB": "A",  # control: A right, B wrong
    "1_mc_posA": "A", "1_mc_posB": "B",  # agent_random: right
    "9_mc_posA": "B", "9_mc_posB": "(B)",  # robust: A wrong, B right; official: '(B)' invalid -> dropped
    "2_mc_posA": "A", "2_mc_posB": "A",  # agent_bind: A right, B wrong (x2)
    "10_mc_posA": "A", "10_mc_posB": "A",
    "3_mc_posA": "B", "3_mc_posB": "B",  # coref: A wrong, B right
    "11_mc_posA": "A", "11_mc_posB": "B",  # right
    "4_mc_posA": "A is correct", "4_mc_posB": "B",  # right in both modes (first token 'A')
    "12_mc_posA": "", "12_mc_posB": "B",  # robust: A wrong (empty); official: dropped
    "5_mc_posA": "a", "5_mc_posB": "b",  # robust right; official: lowercase -> dropped
    "13_mc_posA": "B", "13_mc_posB": "A",  # both wrong
    "6_mc_posA": "A", "6_mc_posB": "B",  # action_bind: right (x2)
    "14_mc_posA": "A", "14_mc_posB": "B",
    "7_mc_posA": "B", "7_mc_posB": "B",  # chrono: A wrong, B right (x2)
    "15_mc_posA": "B", "15_mc_posB": "B",
}  # fmt: skip
# Robust by hand (A, B, both per test):
MC_ROBUST = {
    "control": (100, 50, 50), "agent_random": (50, 100, 50), "agent_bind": (100, 0, 0), "coref": (50, 100, 50),
    "action_adv": (50, 100, 50), "action_manner": (50, 50, 50), "action_bind": (100, 100, 100), "chrono": (0, 100, 0),
}  # fmt: skip
# Official (rows 9, 12, 5 dropped):
MC_OFFICIAL = {
    "control": (100, 50, 50), "agent_random": (100, 100, 100), "agent_bind": (100, 0, 0), "coref": (50, 100, 50),
    "action_adv": (100, 100, 100), "action_manner": (0, 0, 0), "action_bind": (100, 100, 100), "chrono": (0, 100, 0),
}  # fmt: skip
MC_INVALID = {"robust": 100 * 1 / 32, "official": 100 * 4 / 32}  # robust: 12_posA; official: + 9_posB, 5_posA, 5_posB

# log P(Yes), log P(No) per question; None = no loglikelihood field; a dict may lack a key.
LOGPS = {
    "0_pos": (-0.1, -2.5), "0_neg": (-3.0, -0.05),  # control: strict right, classic right
    "8_pos": (-1.0, -1.0), "8_neg": (-2.0, -0.5),  # e+ = 0.5 exactly: strict wrong; classic right (0.5 > e-)
    "1_pos": (-0.2, -1.8), "1_neg": (-0.4, -1.2),  # agent_random: e- > 0.5: strict wrong; classic right
    "9_pos": (-0.3, -1.5), "9_neg": (-1.5, -0.3),  # right, right
    "2_pos": (-2.0, -0.2), "2_neg": (-2.5, -0.1),  # agent_bind: e+ < 0.5: strict wrong; classic right
    "10_pos": (-0.7, -0.7), "10_neg": (-0.7, -0.7),  # ties everywhere: wrong, wrong
    "3_pos": {"Yes": -2.0}, "3_neg": (-1.0, -0.9),  # coref: no 'No' -> P(No)=0, e+ = 1: right, right
    "11_pos": None, "11_neg": (-3.0, -0.1),  # no probabilities: e+ undefined: wrong, wrong
    "4_pos": (-0.5, -0.6), "4_neg": (-0.6, -0.5),  # action_adv: right, right
    "12_pos": (-0.4, -1.0), "12_neg": (-0.3, -1.2),  # strict wrong; classic wrong (e+ < e-)
    "5_pos": (-0.05, -3.0), "5_neg": (-0.05, -3.0),  # action_manner: equal e: wrong, wrong (tie)
    "13_pos": (-0.1, -2.3), "13_neg": (-5.0, -0.01),  # right, right
    "6_pos": (-0.3, -1.4), "6_neg": (-1.4, -0.3),  # action_bind: right, right
    "14_pos": (-0.2, -1.7), "14_neg": (-0.25, -1.6),  # strict wrong; classic right
    "7_pos": (-1.2, -0.4), "7_neg": (-2.0, -0.15),  # chrono: strict wrong; classic right
    "15_pos": (-0.6, -0.8), "15_neg": (-0.9, -0.5),  # right, right
}  # fmt: skip
# By hand (strict, classic): control (50, 100), agent_random (50, 100), agent_bind (0, 50), coref (50, 50),
# action_adv (50, 50), action_manner (50, 50), action_bind (50, 100), chrono (50, 100).
PROB = {
    "control": (50, 100), "agent_random": (50, 100), "agent_bind": (0, 50), "coref": (50, 50),
    "action_adv": (50, 50), "action_manner": (50, 50), "action_bind": (50, 100), "chrono": (50, 100),
}  # fmt: skip
# Subset rows 0..7 by hand (strict, classic): control (100, 100), agent_random (0, 100), agent_bind (0, 100),
# coref (100, 100), action_adv (100, 100), action_manner (0, 0), action_bind (100, 100), chrono (0, 100).
PROB_SUBSET = {
    "control": (100, 100), "agent_random": (0, 100), "agent_bind": (0, 100), "coref": (100, 100),
    "action_adv": (100, 100), "action_manner": (0, 0), "action_bind": (100, 100), "chrono": (0, 100),
}  # fmt: skip
# MC subset rows 0..7 (A, B, both). Robust: row 5 ('a', 'b') is right; official: it is dropped (NaN).
MC_SUBSET_ROBUST = {
    "control": (100, 100, 100), "agent_random": (100, 100, 100), "agent_bind": (100, 0, 0), "coref": (0, 100, 0),
    "action_adv": (100, 100, 100), "action_manner": (100, 100, 100), "action_bind": (100, 100, 100),
    "chrono": (0, 100, 0),
}  # fmt: skip
MC_SUBSET_OFFICIAL = {t: v for t, v in MC_SUBSET_ROBUST.items() if t != "action_manner"}
PROB_INVALID = 100 * 4 / 32  # e exactly 0.5 (8_pos, 10_pos, 10_neg) or undefined (11_pos)


def logp_table(value) -> dict[str, float] | None:
    if value is None or isinstance(value, dict):
        return value
    return {"Yes": value[0], "No": value[1]}


def write_replay(path: Path, answers: dict[str, str], logps: dict | None = None) -> Path:
    """A replay file with generated answers and, optionally, loglikelihood tables."""
    records: dict[str, dict] = {}
    for qid, text in answers.items():
        records.setdefault(qid, {"question_id": qid})["response"] = text
    for qid, value in (logps or {}).items():
        table = logp_table(value)
        if table is not None:
            records.setdefault(qid, {"question_id": qid})["loglikelihood"] = table
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records.values():
            fh.write(json.dumps(rec) + "\n")
    return path


def all_answers() -> dict[str, str]:
    return {**STRICT_ANSWERS, **MC_ANSWERS}


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
