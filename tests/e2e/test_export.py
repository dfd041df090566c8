"""Official-format exports of Vinoground, TemporalBench and VELOCITI, re-scored by the official rules.

Each test runs the real lmms-eval with the replay model in official reading, exports the samples, and scores
the exported files with an independent transcription of the benchmark's own scorer (written from the official
code, not from our modules). The numbers must equal the run's.
"""

from __future__ import annotations

import csv
import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from temporal_tasks import cli
from temporal_tasks.answers.official_rules import official_response
from temporal_tasks.api.spec import slug
from temporal_tasks.tools.export import export
from tests.helpers.benchmarks.velociti import TESTS7, mean7, per_test_csvs, velociti_mcq
from tests.helpers.files import read_jsonl

OFFICIAL = {"TEMPORAL_TASKS_PARSER": "official"}


def _results_dir(run_root: Path) -> Path:
    return next(p for p in run_root.rglob("results") if p.is_dir())


# ----------------------------------------------------------------------------- Vinoground


def vinoground_get_score_all(data: Path, results: Path) -> dict[str, dict[str, tuple[float, float, float]]]:
    """Transcription of Vinoground's ``get_score_all.py``: ``{model folder: {category: (text, video, group)}}``.

    Each folder of ``results`` is a model with ``textscore-response.jsonl`` and
    ``videoscore-response.jsonl`` (``idx`` -> ``response``); a folder lacking either is skipped.
    Pair i is ``json[2i], json[2i+1]``; an item is right when ``response[0][:len(GT)]`` equals GT
    case-insensitively. A pair's counters are bumped before its checks and an exception (missing
    idx, empty response) abandons the rest of the pair, as the official ``try/except: continue`` does.
    """
    text_gt = json.loads((data / "vinoground_textscore.json").read_text())
    video_gt = json.loads((data / "vinoground_videoscore.json").read_text())
    with open(data / "vinoground.csv", encoding="utf-8") as fh:
        vino = list(csv.reader(fh))[1:]
    scores = {}
    for model in os.listdir(results):
        try:
            text = {it["idx"]: it["response"] for it in read_jsonl(results / model / "textscore-response.jsonl")}
            video = {it["idx"]: it["response"] for it in read_jsonl(results / model / "videoscore-response.jsonl")}
        except OSError:
            continue

        def right(pred2content: dict, item: dict) -> bool:
            gt = item["GT"]
            return pred2content[item["idx"]][0][: len(gt)].lower() == gt.lower()

        total, t_ok, v_ok, g_ok = defaultdict(int), defaultdict(int), defaultdict(int), defaultdict(int)
        for i in range(len(text_gt) // 2):
            try:
                cats = ["all", vino[i][1], *vino[i][2].split(";")]
                if cats[-1] == "":
                    cats.pop(-1)
                for c in cats:
                    total[c] += 1
                ok = True
                if right(text, text_gt[2 * i]) and right(text, text_gt[2 * i + 1]):
                    for c in cats:
                        t_ok[c] += 1
                else:
                    ok = False
                if right(video, video_gt[2 * i]) and right(video, video_gt[2 * i + 1]):
                    for c in cats:
                        v_ok[c] += 1
                else:
                    ok = False
                if ok:
                    for c in cats:
                        g_ok[c] += 1
            except (KeyError, IndexError):
                continue
        scores[model] = {c: (100 * t_ok[c] / n, 100 * v_ok[c] / n, 100 * g_ok[c] / n) for c, n in total.items()}
    return scores


# Fixture gold: text 0:B,B 1:A,B 2:A,A 3:B,A; video 0:A,A 1:B,A 2:B,B 3:A,B (pos, neg).
VINO_ANSWERS = {
    "0_pos_text": "B", "0_neg_text": "b", "0_pos_video": "A", "0_neg_video": "A.",  # all right
    "1_pos_text": "", "1_neg_text": "B",  # empty text answer: text wrong, and get_score_all.py raises on it ...
    "1_pos_video": "B", "1_neg_video": "A",  # ... and skips the rest of the pair: this right video pair is lost
    "2_pos_text": "A", "2_neg_text": "A", "2_pos_video": "B", "2_neg_video": "Answer: B",  # video neg: 'A' wrong
    "3_pos_text": "(B)", "3_neg_text": "a", "3_pos_video": "a", "3_neg_video": "b",  # text wrong, video right
}  # fmt: skip


# By hand (official first-character rule): text pairs 0, 2 -> 50; video 0, 3 (pair 1's skipped) -> 50; group 0 -> 25.
VINO_EXPECTED = {"text_score": 50.0, "video_score": 50.0, "group_score": 25.0}

VINO_TASKS = ("vinoground_group", "vinoground_group_official", "vinoground_text")


def test_vinoground_export_scores_like_the_run(lmms_eval, fixture_root, tmp_path):
    run = lmms_eval(",".join(VINO_TASKS), responses=VINO_ANSWERS, env=OFFICIAL)
    out = tmp_path / "export"
    written = export("vinoground", [_results_dir(tmp_path)], out)
    assert {p.relative_to(out).as_posix() for p in written} == {
        "vinoground_group/textscore-response.jsonl", "vinoground_group/videoscore-response.jsonl",
        "vinoground_group_official/textscore-response.jsonl", "vinoground_group_official/videoscore-response.jsonl",
        "vinoground_text/textscore-response.jsonl",
    }  # fmt: skip
    lines = read_jsonl(out / "vinoground_group" / "textscore-response.jsonl")
    assert [x["idx"] for x in lines] == [f"{i}_{s}" for i in range(4) for s in ("pos", "neg")]
    assert lines[2] == {"idx": "1_pos", "response": "", "question_id": "1_pos_text", "gold": "A"}  # as given
    assert lines[6]["response"] == "(B)"  # everything verbatim

    scores = vinoground_get_score_all(fixture_root / "vinoground", out)
    assert set(scores) == {"vinoground_group", "vinoground_group_official"}  # the text-only folder is skipped
    for task in ("vinoground_group", "vinoground_group_official"):
        got = run.metrics(task)
        for key, value in VINO_EXPECTED.items():
            assert got[key] == pytest.approx(value), (task, key)
        for cat, (text, video, group) in scores[task].items():
            suffix = "" if cat == "all" else f"_{cat}"
            assert got[f"text_score{suffix}"] == pytest.approx(text), (task, cat)
            assert got[f"video_score{suffix}"] == pytest.approx(video), (task, cat)
            assert got[f"group_score{suffix}"] == pytest.approx(group), (task, cat)
    # the text-only task writes the same text answers
    text_only = out / "vinoground_text" / "textscore-response.jsonl"
    assert text_only.read_text() == (out / "vinoground_group" / "textscore-response.jsonl").read_text()
    assert run.metrics("vinoground_text")["text_score"] == scores["vinoground_group"]["all"][0]


# ----------------------------------------------------------------------------- TemporalBench


def temporalbench_get_qa_acc(data_folder: Path, data_json: str, output_folder: Path) -> dict[str, dict[str, float]]:
    """Transcription of TemporalBench's ``get_qa_acc.py``: ``{prediction file: {metric: percent}}``.

    Reads every file of ``output_folder/<data_json stem>/`` (``{"idx", "response"}`` lines); right is
    ``GT.lower() == response[0].lower()``. BA over the file's predictions, MBA grouped by
    ``video_name``; per dataset the same; per category only for a ``short`` file. Keys use our metric
    names. One liberty: the dataset comes from ``dataset`` or, where absent (the fixture's long rows,
    as in the README), ``source_dataset``.
    """
    questions = json.loads((data_folder / data_json).read_text())
    id2question = {q["idx"]: q for q in questions}
    output_dir = output_folder / data_json.split(".")[0]
    out = {}
    for pred_name in os.listdir(output_dir):
        preds = read_jsonl(output_dir / pred_name)
        correct = 0
        mba: dict[str, bool] = {}
        by_ds: dict[str, list[bool]] = defaultdict(list)
        mba_ds: dict[str, dict[str, bool]] = defaultdict(dict)
        by_cat: dict[str, list[bool]] = defaultdict(list)
        mba_cat: dict[str, dict[str, bool]] = defaultdict(dict)
        for pred in preds:
            q = id2question[pred["idx"]]
            ok = q["GT"].lower() == pred["response"][0].lower()
            correct += ok
            video = q["video_name"]
            mba[video] = mba.get(video, True) and ok
            dataset = q["dataset"] if "dataset" in q else q["source_dataset"]
            by_ds[dataset].append(ok)
            mba_ds[dataset][video] = mba_ds[dataset].get(video, True) and ok
            if "short" in data_json:
                by_cat[q["category"]].append(ok)
                mba_cat[q["category"]][video] = mba_cat[q["category"]].get(video, True) and ok
        res = {"binary_acc": 100 * correct / len(preds), "mba": 100 * sum(mba.values()) / len(mba)}
        for name, ba, groups in [
            *((d, by_ds[d], mba_ds[d]) for d in by_ds),
            *((c, by_cat[c], mba_cat[c]) for c in by_cat),
        ]:
            res[f"binary_acc_{slug(name)}"] = 100 * sum(ba) / len(ba)
            res[f"mba_{slug(name)}"] = 100 * sum(groups.values()) / len(groups)
        out[pred_name] = res
    return out


def test_temporalbench_export_scores_like_the_run(lmms_eval, fixture_root, tmp_path):
    from tests.helpers.benchmarks.temporalbench import (
        ANSWERS,  # wrong, unreadable ("(B)", "I think A") and empty answers
    )

    run = lmms_eval("temporalbench_short_mba,temporalbench_long_mba", responses=ANSWERS, env=OFFICIAL)
    out = tmp_path / "export"
    # through the command line, as a user would
    assert cli.main(["export", "--benchmark", "temporalbench", str(_results_dir(tmp_path)), "--out", str(out)]) == 0
    short = out / "temporalbench_short_qa" / "temporalbench_short_mba.jsonl"
    long = out / "temporalbench_long_qa" / "temporalbench_long_mba.jsonl"
    assert sorted(p.relative_to(out) for p in out.rglob("*.jsonl")) == [p.relative_to(out) for p in (long, short)]
    lines = read_jsonl(short)
    assert {x["idx"] for x in lines} == {k for k in ANSWERS if k.startswith("short_video/")}
    assert {x["idx"]: x["response"] for x in lines} == {
        k: official_response(v) for k, v in ANSWERS.items() if k.startswith("short_video/")
    }
    assert all(x["video_name"] == x["idx"].rsplit("_", 1)[0] for x in lines)

    data = fixture_root / "temporalbench"
    for task, data_json, path in (
        ("temporalbench_short_mba", "temporalbench_short_qa.json", short),
        ("temporalbench_long_mba", "temporalbench_long_qa.json", long),
    ):
        (official,) = temporalbench_get_qa_acc(data, data_json, out).values()
        got = run.metrics(task)
        assert set(official) == {
            k for k in got if k not in ("invalid_rate", "parse_disagreement", "truncated_rate") and "_ci_" not in k
        }, task
        for key, value in official.items():
            assert got[key] == pytest.approx(value), (task, key)
        assert os.listdir(path.parent) == [path.name]  # one prediction file per part: the scorer reads them all


def velociti_metrics_py_entail(folder: Path) -> dict[str, tuple[float, float]]:
    """``metrics.py`` entail: per test (StrictVLE, ClassicVLE) from ``pos_score``/``neg_score``, in percent."""
    out = {}
    for name, data in per_test_csvs(folder).items():
        pos, neg = data["pos_score"], data["neg_score"]
        strict = sum(1 for i in range(len(pos)) if pos[i] > 0.5 and neg[i] < 0.5)
        classic = sum(1 for i in range(len(pos)) if pos[i] > neg[i])
        out[name] = (100 * strict / len(pos), 100 * classic / len(pos))  # metrics.py rounds only for printing
    return out


def velociti_closed_entail(folder: Path) -> dict[str, float]:
    """``gemini/closed_model_metrics.py::strict_vle_closed`` on ``pos_pred``/``neg_pred``, in percent."""
    out = {}
    for name, data in per_test_csvs(folder).items():
        pos, neg = data["pos_pred"], data["neg_pred"]
        cnt = tot = 0
        for i in range(len(pos)):
            if pos[i] == "Yes" and neg[i] == "No":
                cnt += 1
                tot += 1
            elif pos[i] in ("Yes", "No") and neg[i] in ("Yes", "No"):
                tot += 1
        out[name] = 100 * cnt / tot
    return out


def closed_yes_no(raw: object) -> str:
    """The closed-model reading of a raw answer: 'Yes' in it and no 'No' (and vice versa), case-sensitive."""
    text = raw if isinstance(raw, str) else ""  # pandas reads an empty cell as NaN
    if "Yes" in text and "No" not in text:
        return "Yes"
    if "No" in text and "Yes" not in text:
        return "No"
    return "error"


def test_velociti_export_scores_like_the_run(lmms_eval, fixture_root, tmp_path, monkeypatch):
    from tests.helpers.benchmarks.velociti import (  # tricky answers and log-probabilities
        LOGPS,
        all_answers,
        write_replay,
    )

    replay = write_replay(tmp_path / "replay.jsonl", all_answers(), LOGPS)
    run = lmms_eval("velociti_strictvle,velociti_strictvle_prob,velociti_mc", responses=replay, env=OFFICIAL)
    out = tmp_path / "export"
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))  # videos and captions come from the table
    written = export("velociti", [_results_dir(tmp_path)], out)
    tests8 = {"control", *TESTS7}
    for task in ("velociti_strictvle", "velociti_strictvle_prob", "velociti_mc"):
        assert {p.stem for p in written if p.parent.name == task} == tests8, task

    # probabilities: metrics.py StrictVLE and ClassicVLE
    prob = run.metrics("velociti_strictvle_prob")
    entail = velociti_metrics_py_entail(out / "velociti_strictvle_prob")
    for test, (strict, classic) in entail.items():
        assert prob[f"strict_vle_{test}"] == pytest.approx(strict), test
        assert prob[f"classic_vle_{test}"] == pytest.approx(classic), test
    assert prob["strict_vle"] == pytest.approx(mean7({t: v[0] for t, v in entail.items()}))
    assert prob["classic_vle"] == pytest.approx(mean7({t: v[1] for t, v in entail.items()}))

    # generated Yes/No: the closed-model rule
    strict = run.metrics("velociti_strictvle")
    closed = velociti_closed_entail(out / "velociti_strictvle")
    for test, value in closed.items():
        assert strict[f"strict_vle_{test}"] == pytest.approx(value), test
    assert strict["strict_vle"] == pytest.approx(mean7(closed))
    for data in per_test_csvs(out / "velociti_strictvle").values():  # the labels follow from the raw answers
        assert list(data["pos_pred"]) == [closed_yes_no(x) for x in data["pos_response"]]
        assert list(data["neg_pred"]) == [closed_yes_no(x) for x in data["neg_response"]]

    # multiple choice: mcq(gt_A, gt_B)
    mc = run.metrics("velociti_mc")
    mcq = velociti_mcq(out / "velociti_mc")
    for test, (a, b, both) in mcq.items():
        assert (mc[f"mc_a_{test}"], mc[f"mc_b_{test}"], mc[f"mc_both_{test}"]) == pytest.approx((a, b, both)), test
    assert mc["mc_both"] == pytest.approx(mean7({t: v[2] for t, v in mcq.items()}))

    # the files describe themselves: row, video, test, captions (from the offline copy's table)
    with open(out / "velociti_strictvle_prob" / "coref.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["row"] for r in rows] == ["3", "11"]
    assert rows[0]["video_id"] == "v_fixOrder003_seg_5_15" and rows[0]["event"] == "(Ev1, Ev4)"
    assert rows[0]["pos"].startswith("The square that appears first") and rows[1]["pos_score"] == ""  # undefined
    with open(out / "velociti_mc" / "action_adv.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert (rows[1]["gt_A"], rows[1]["response_A"]) == ("[unreadable]", "")  # row 12: an empty answer
