"""``temporal-tasks report`` (``tools/report/commands.py``): Markdown, CSV and charts from synthetic lmms-eval
results files, the command line, reference files, and the shortcut variants' rows."""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path

import pytest

from temporal_tasks.tools import report
from temporal_tasks.tools.report import (
    load_run,
    main_report,
)
from tests.helpers.results_files import write_results

RUN_A = {
    "timeblind_iacc": {
        "trial_acc": 70.0,
        "trial_acc_ci_low": 66.5,
        "trial_acc_ci_high": 73.25,
        "question_acc": 40.0,
        "video_acc": 45.5,
        "instance_acc": 31.25,
        "instance_acc_ci_low": 27.0,
        "instance_acc_ci_high": 35.5,
        "invalid_rate": 1.5,
        "instance_acc_speed": 12.5,
        "instance_acc_fine_grained_actions": 50.0,
        "instance_acc_yes_no": 33.0,
        "weird_metric": 7.0,
    },
    "vinoground_group": {
        "text_score": 48.0,
        "video_score": 30.0,
        "group_score": 17.5,
        "invalid_rate": 0.0,
        "group_score_viewpoint": 40.0,
        "group_score_cyclical": math.nan,
        "text_score_object": 45.0,
    },
    "temporalbench_short_mba": {
        "binary_acc": 62.0,
        "mba": 20.0,
        "mba_activitynet": 25.0,
        "binary_acc_action_order": 60.0,
        "invalid_rate": 0.5,
    },
    "velociti_mc": {
        "mc_a": 30.0,
        "mc_b": 90.0,
        "mc_bias": -20.0,
        "mc_both": 28.0,
        "mc_bias_control": -3.0,
        "mc_both_control": 95.0,
        "invalid_rate": 0.0,
    },
    "mystery_task": {"foo": 3.5},
}

RUN_B = {
    "timeblind_iacc": {
        "trial_acc": 55.0,
        "question_acc": 20.0,
        "video_acc": 30.0,
        "instance_acc": 8.0,
        "invalid_rate": 10.0,
        "instance_acc_speed": 0.0,
    },
    "vinoground_group": {"text_score": 30.0, "video_score": 25.0, "group_score": 6.0, "invalid_rate": 2.0},
}


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> list[Path]:
    tmp_path = tmp_path_factory.mktemp("runs")
    a = write_results(
        tmp_path / "runs" / "Qwen__Qwen2-VL-2B-Instruct" / "20261122_101010_results.json",
        RUN_A,
        model_args="pretrained=Qwen/Qwen2-VL-2B-Instruct,max_pixels=200704",
        model_name="Qwen/Qwen2-VL-2B-Instruct",
    )
    b = write_results(
        tmp_path / "runs2" / "20261122_111111_results.json",
        RUN_B,
        model="llava_onevision",
        model_args="pretrained=lmms-lab/llava-onevision-qwen2-0.5b-ov/",
        limit=8,
        n_samples={"timeblind_iacc": {"original": 600, "effective": 2}, "vinoground_group": {"original": 500}},
        date="20261122_111111",
    )
    return [a, b]


@pytest.fixture(scope="module")
def written(two_runs, tmp_path_factory) -> tuple[Path, list[Path]]:
    # Module scope: the charts take a few seconds, so the read-only checks share one report.
    out = tmp_path_factory.mktemp("report")
    return out, main_report([str(p) for p in two_runs], str(out))


def _csv_rows(out: Path) -> list[dict[str, str]]:
    with (out / "report.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------- the report


def test_report_writes_markdown_csv_and_charts(written):
    out, paths = written
    names = {p.name for p in paths}
    assert {"report.md", "report.csv"} <= names
    for bench in ("timeblind", "vinoground", "temporalbench", "velociti"):
        assert f"{bench}_headline.png" in names
    assert "timeblind_iacc_instance_acc_by_category.png" in names
    assert "velociti_mc_mc_bias_by_category.png" in names
    assert all(p.exists() for p in paths)


def test_markdown_tables(written):
    out, _ = written
    md = (out / "report.md").read_text(encoding="utf-8")
    # Headline row: I-Acc first with its CI, metrics without CI plain, in registry order.
    assert "| Model | instance_acc | question_acc | video_acc | trial_acc | invalid_rate |" in md
    assert "| Qwen2-VL-2B-Instruct | 31.2 [27.0, 35.5] | 40.0 | 45.5 | 70.0 [66.5, 73.2] | 1.5 |" in md
    assert "| llava-onevision-qwen2-0.5b-ov | 8.0 | 20.0 | 30.0 | 55.0 | 10.0 |" in md
    # Paper rows (with the paper's Wilson CI where it gives one).
    assert "| GPT-5 (paper) | 46.3 | 58.5 | 67.2 | 77.3 | – |" in md
    assert "| Human (paper) | 98.2 [96.8, 99.0] | 98.8 | 98.9 | 99.3 | – |" in md
    assert "| Random Chance (paper) | 25.0 | 25.0 | 16.7 | – |" in md
    # The reference's display label tells GPT-4o's TemporalBench settings apart.
    assert "| GPT-4o (16 frames) (paper) | 38.5 | 75.7 | – |" in md
    # Category table: models side by side, papers included, NaN shown.
    assert "| Category | Qwen2-VL-2B-Instruct | llava-onevision-qwen2-0.5b-ov | Random Chance (paper)" in md
    assert "| speed | 12.5 | 0.0 | 6.3 | 58.3 | 21.4 | 10.7 |" in md
    # Run B reports no Vinoground categories, so it has no column there; GPT-4o 18.92 and Qwen2-VL-72B 11.71.
    assert "| cyclical | NaN | 18.9 | 11.7 |" in md
    # Run lines and the --limit warning.
    assert "model_args `pretrained=Qwen/Qwen2-VL-2B-Instruct,max_pixels=200704`" in md
    assert "limit 8" in md and "--limit 8" in md and "partial" in md
    assert "timeblind_iacc 2/600" in md
    # Unknown metric and unknown task are shown, not dropped.
    assert "weird_metric" in md
    assert "## mystery_task" in md and "| Qwen2-VL-2B-Instruct | 3.5 |" in md
    # Charts are linked; the negative MC bias is in the table.
    assert "![TimeBlind headline metrics](timeblind_headline.png)" in md
    assert "-20.0" in md
    # Sources of the paper numbers.
    assert "Table 3" in md and "Wilson" in md


def test_csv_long_format(written):
    out, _ = written
    rows = _csv_rows(out)
    assert list(rows[0]) == ["benchmark", "task", "model", "metric", "value", "ci_low", "ci_high", "source"]

    def find(model: str, task: str, metric: str) -> dict[str, str]:
        hits = [r for r in rows if r["model"] == model and r["task"] == task and r["metric"] == metric]
        assert len(hits) == 1, (model, task, metric, hits)
        return hits[0]

    a = find("Qwen2-VL-2B-Instruct", "timeblind_iacc", "instance_acc")
    assert (a["benchmark"], a["value"], a["ci_low"], a["ci_high"]) == ("TimeBlind", "31.25", "27.0", "35.5")
    assert a["source"].endswith("20261122_101010_results.json")
    b = find("llava-onevision-qwen2-0.5b-ov", "timeblind_iacc", "instance_acc")
    assert (b["ci_low"], b["ci_high"]) == ("", "")
    assert find("Qwen2-VL-2B-Instruct", "vinoground_group", "group_score_cyclical")["value"] == "NaN"
    assert find("Qwen2-VL-2B-Instruct", "timeblind_iacc", "weird_metric")["value"] == "7.0"
    assert find("Qwen2-VL-2B-Instruct", "mystery_task", "foo")["benchmark"] == "mystery_task"
    ref = find("GPT-5 (paper)", "timeblind_iacc", "instance_acc_speed")
    assert ref["value"] == "21.4" and ref["source"].startswith("paper: TimeBlind") and ref["source"].endswith("Table 3")
    ci = find("Molmo2-8B (paper)", "timeblind_iacc", "instance_acc")
    assert (ci["ci_low"], ci["ci_high"]) == ("27.6", "35.0")
    assert not any(r["metric"].endswith(("_ci_low", "_ci_high")) or "stderr" in r["metric"] for r in rows)
    # Paper rows only for tasks that were run: no long-video or VELOCITI StrictVLE references here.
    assert not any(r["task"] in {"temporalbench_long_mba", "velociti_strictvle_subset"} for r in rows)


def test_pngs_are_real_charts(written):
    import matplotlib.image as mpimg

    out, paths = written
    pngs = [p for p in paths if p.suffix == ".png"]
    assert len(pngs) >= 8
    for p in pngs:
        assert p.stat().st_size > 8_000, p
        img = mpimg.imread(p)
        assert img.ndim == 3 and img.shape[0] >= 400 and img.shape[1] >= 600, (p, img.shape)
        # Not a blank canvas: a chart has many distinct colours.
        assert len({tuple(px) for px in img[::7, ::7].reshape(-1, img.shape[2]).tolist()}) > 10, p


def test_duplicate_models_are_disambiguated_and_references_optional(tmp_path):
    a = write_results(tmp_path / "a" / "x_results.json", RUN_B, model_name="m/same", date="20260101_000000")
    b = write_results(tmp_path / "b" / "x_results.json", RUN_B, model_name="m/same", date="20260202_000000")
    out = tmp_path / "out"
    main_report([str(tmp_path)], str(out), references=False)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| same (20260101_000000) |" in md and "| same (20260202_000000) |" in md
    assert "(paper) |" not in md and "paper:" not in md
    assert {load_run(a).label, load_run(b).label} == {"same"}


def test_cli_parser_and_errors(two_runs, tmp_path):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    report.add_report_parser(sub)
    args = parser.parse_args(["report", *map(str, two_runs), "--out", str(tmp_path / "cli")])
    assert args.func(args) == 0
    assert (tmp_path / "cli" / "report.md").exists()
    with pytest.raises(FileNotFoundError):
        main_report([str(tmp_path / "missing.json")], str(tmp_path / "x"))
    bad = tmp_path / "bad_results.json"
    bad.write_text(json.dumps({"config": {}}), encoding="utf-8")
    with pytest.raises(ValueError, match="no 'results'"):
        main_report([str(bad)], str(tmp_path / "x"))


def test_custom_reference_file_and_same_label_in_one_table(two_runs, tmp_path):
    entry = {
        "benchmark": "TimeBlind",
        "model": "M",
        "tasks": ["timeblind_iacc"],
        "source": {"paper": "P", "table": "Table 9"},
    }
    refs = {
        "entries": [
            {**entry, "setting": "8 frames", "metrics": {"instance_acc": 10.0}},
            {**entry, "setting": "32 frames", "metrics": {"instance_acc": 12.0}, "note": "differs"},
        ]
    }
    path = tmp_path / "refs.json"
    path.write_text(json.dumps(refs), encoding="utf-8")
    out = tmp_path / "out"
    main_report([str(two_runs[1])], str(out), references=str(path))
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| M, 8 frames (paper) | 10.0 | – | – | – | – |" in md
    assert "| M, 32 frames (paper) | 12.0 | – | – | – | – |" in md
    assert "- M: differs" in md and "GPT-5" not in md
    rows = _csv_rows(out)
    assert {r["source"] for r in rows if r["model"].startswith("M,")} == {"paper: P, Table 9"}


# --------------------------------------------------------------------------- report


def test_report_shows_shortcut_rows_beside_the_main_row(tmp_path):
    from temporal_tasks.tools import report
    from tests.helpers.results_files import write_results

    main = {"trial_acc": 70.0, "question_acc": 40.0, "video_acc": 45.5, "instance_acc": 31.25, "invalid_rate": 1.5}
    blind = {"trial_acc": 48.0, "question_acc": 9.0, "video_acc": 25.0, "instance_acc": 2.0, "invalid_rate": 0.0}
    res = write_results(
        tmp_path / "a" / "results.json",
        {"timeblind_iacc": main, "timeblind_iacc_blind": blind, "timeblind_iacc_shuffled": main,
         "velociti_strictvle": {"strict_vle": 30.0}},
        model_args="pretrained=Qwen/Qwen2-VL-2B-Instruct",
    )  # fmt: skip
    report.main_report([str(res)], str(tmp_path / "out"))
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    section = md.split("## TimeBlind", 1)[1].split("\n## ", 1)[0]
    table = section.split("### Shortcut analyses", 1)[1].split("\n### ", 1)[0]
    assert "| Model | Input | instance_acc | question_acc | video_acc | trial_acc | invalid_rate |" in table
    lines = [line for line in table.splitlines() if line.startswith("| Qwen2-VL-2B-Instruct")]
    assert lines == [
        "| Qwen2-VL-2B-Instruct | video (main task) (`timeblind_iacc`) | 31.2 | 40.0 | 45.5 | 70.0 | 1.5 |",
        "| Qwen2-VL-2B-Instruct | blind (no visual) (`timeblind_iacc_blind`) | 2.0 | 9.0 | 25.0 | 48.0 | 0.0 |",
        "| Qwen2-VL-2B-Instruct | shuffled frames (`timeblind_iacc_shuffled`) | 31.2 | 40.0 | 45.5 | 70.0 | 1.5 |",
    ]
    # the paper's Table 4 rows for the variants that were run (single frame was not)
    assert (
        "| GPT-5 (language only) (paper) | blind (no visual) (`timeblind_iacc_blind`) | 1.5 | 9.4 | 26.6 | 47.3 | – |"
        in table
    )
    assert (
        "| GPT-5 (shuffled frames) (paper) | shuffled frames (`timeblind_iacc_shuffled`) | 3.0 | 10.7 | 23.2 | 49.6 |"
        in table
    )
    assert "single frame" not in table
    # a benchmark whose variants were not run gets no shortcut table
    assert "Shortcut analyses" not in md.split("## VELOCITI", 1)[1]
