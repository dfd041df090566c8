"""``temporal-tasks timeorder`` and ``sweep-frames`` on replay runs of the real lmms-eval CLI whose answers are known:
the flip tables and labels of the shortcut groups, and a frame sweep run through lmms-eval's own ``--config`` list."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from temporal_tasks import cli
from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.compare import compare_runs
from temporal_tasks.tools.timeorder import collect, frame_series, time_order
from tests.conftest import made_once
from tests.helpers.browser import chart_text_overflow, load, parse
from tests.helpers.lmms_runner import BASE_ENV

FLIP = {"yes": "No", "no": "Yes", "A": "B", "B": "A"}
# per benchmark, the groups each task gets right (every other group: one question wrong)
RIGHT = {
    "timeblind": {"timeblind_iacc": {0, 1, 2}, "timeblind_iacc_blind": {0}, "timeblind_iacc_single_frame": {0, 1},
                  "timeblind_iacc_shuffled": {0}},
    "vinoground": {"vinoground_group": {0, 1, 2, 3}, "vinoground_text_blind": {1},
                   "vinoground_group_single_frame": {0, 1}, "vinoground_group_shuffled": {0, 1, 2, 3}},
}  # fmt: skip


def _docs(task: str) -> list[dict]:
    from temporal_tasks.tools.samples import docs_of_task

    # the variants ask the main task's questions (the blind Vinoground variant: its text questions)
    main = "vinoground_group" if task.startswith("vinoground_group") else "timeblind_iacc"
    return docs_of_task(task if task == "vinoground_text_blind" else main)


def _lines(task: str, right: set[int]) -> list[dict]:
    out, flipped = [], set()
    for d in _docs(task):
        group = int(str(d["group_id"]).rsplit("/", 1)[1])
        wrong = group not in right and group not in flipped
        flipped |= {group} if wrong else set()
        out.append({"task": task, "question_id": d["question_id"], "response": FLIP[d["gold"]] if wrong else d["gold"]})
    return out


@pytest.fixture(scope="module")
def shortcut_run(fixture_root, cache_root, lmms_launch, tmp_path_factory) -> Path:
    """One replay run of the TimeBlind and Vinoground shortcut groups with the answers of ``RIGHT`` at N=8: its
    results folder (the time-order and viewer tests read it)."""
    from tests.conftest import run_lmms_eval, write_responses

    work = tmp_path_factory.mktemp("timeorder")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
        mp.setenv("TEMPORAL_TASKS_CACHE_DIR", str(cache_root))
        lines = [line for tasks in RIGHT.values() for task, right in tasks.items() for line in _lines(task, right)]
    answers = write_responses(work / "answers.jsonl", lines)
    run_lmms_eval(
        work / "run",
        "timeblind_shortcuts,vinoground_shortcuts",
        launch=lmms_launch,
        fixture_root=fixture_root,
        cache_root=cache_root,
        model_args=f"responses={answers},max_num_frames=8",
    )
    return work / "run" / "results"


def test_timeorder_on_the_shortcut_groups(shortcut_run, offline_env, tmp_path, capsys):
    folder = shortcut_run
    assert cli.main(["timeorder", str(folder), "--csv", str(tmp_path / "rows.csv"), "--out", str(tmp_path / "o")]) == 0
    printed = capsys.readouterr().out
    assert "### TimeBlind: `timeblind_iacc` (N=8" in printed
    with open(tmp_path / "rows.csv") as fh:
        rows = {r["control_task"]: r for r in csv.DictReader(fh)}
    flips = {
        t: [int(rows[t][k]) for k in ("right_in_both", "main_only", "control_only", "wrong_in_both")] for t in rows
    }
    assert flips == {
        "timeblind_iacc_blind": [1, 2, 0, 1],
        "timeblind_iacc_single_frame": [2, 1, 0, 1],
        "timeblind_iacc_shuffled": [1, 2, 0, 1],
        "vinoground_text_blind": [1, 3, 0, 0],  # text_score: the blind variant's questions
        "vinoground_group_single_frame": [2, 2, 0, 0],
        "vinoground_group_shuffled": [4, 0, 0, 0],
    }
    assert rows["vinoground_text_blind"]["metric"] == "text_score"
    assert rows["timeblind_iacc_shuffled"]["metric"] == "instance_acc"
    same = rows["vinoground_group_shuffled"]  # answers exactly as main: 0 with CI [0, 0]
    assert [float(same[k]) for k in ("diff", "ci_low", "ci_high", "p_value")] == [0.0, 0.0, 0.0, 1.0]
    with open(tmp_path / "o" / "timeorder_groups.csv") as fh:
        labels = {(r["main_task"], r["group_id"]): r["label"] for r in csv.DictReader(fh)}
    assert labels == {
        ("timeblind_iacc", "timeblind/0"): "answerable blind",
        ("timeblind_iacc", "timeblind/1"): "answerable from one frame",
        ("timeblind_iacc", "timeblind/2"): "needs the order",
        ("timeblind_iacc", "timeblind/3"): "never right",
        # Vinoground's labels use text_score (the key all four report); group right in text_score too
        ("vinoground_group", "vinoground/0"): "answerable from one frame",
        ("vinoground_group", "vinoground/1"): "answerable blind",
        ("vinoground_group", "vinoground/2"): "answerable without the order",
        ("vinoground_group", "vinoground/3"): "answerable without the order",
    }
    # each row is compare's row for the two runs' groups: the control's samples as a run of the main task
    results = time_order(collect([folder]))
    for result in results:
        for row in result.rows:
            alone = tmp_path / f"alone_{row.task}"
            alone.mkdir()
            (src,) = folder.rglob(f"*_samples_{row.task}.jsonl")
            shutil.copy(src, alone / src.name.replace(row.task, result.main.task))
            got, _ = compare_runs(alone, folder)
            (want,) = [r for r in got if r.task == result.main.task and r.metric == row.comparison.metric]
            c = row.comparison
            assert (c.base, c.new, c.diff, c.ci_low, c.ci_high, c.p_value, c.groups) == (
                want.base, want.new, want.diff, want.ci_low, want.ci_high, want.p_value, want.groups,
            )  # fmt: skip


FRAMES = (4, 8, 16)


def _make_sweep(work: Path, fixture_root: Path, cache_root: Path, launch) -> None:
    """``sweep-frames``' YAML (``sweep.yaml``), filled with a replay file per N (``filled.yaml``), run through
    lmms-eval's own ``--config`` into ``logs/n<N>``: answers that improve with N (right in 1, 2, then 3 of the 4
    TimeBlind instances), the shuffled variant right in instance 0 at every N."""
    assert cli.main(["sweep-frames", "--model", "temporal_replay", "--model-args", "responses=PLACEHOLDER",
                     "--tasks", "timeblind_iacc,timeblind_iacc_shuffled", "--frames", ",".join(map(str, FRAMES)),
                     "--output-path", str(work / "logs"), "--out", str(work / "sweep.yaml")]) == 0  # fmt: skip
    entries = yaml.safe_load((work / "sweep.yaml").read_text())
    for i, entry in enumerate(entries):
        answers = work / f"answers{i}.jsonl"
        lines = _lines("timeblind_iacc", set(range(i + 1))) + _lines("timeblind_iacc_shuffled", {0})
        answers.write_text("".join(json.dumps(line) + "\n" for line in lines))
        entry["model_args"] = entry["model_args"].replace("PLACEHOLDER", str(answers))
    (work / "filled.yaml").write_text(yaml.safe_dump(entries))
    env = {**os.environ, **BASE_ENV, "TEMPORAL_TASKS_DATA_DIR": str(fixture_root),
           "TEMPORAL_TASKS_CACHE_DIR": str(cache_root)}  # fmt: skip
    env.pop("TEMPORAL_TASKS_NUM_FRAMES", None)
    proc = launch([sys.executable, "-m", "lmms_eval", "--config", str(work / "filled.yaml")], env, work, 900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.fixture(scope="module")
def frame_sweep(fixture_root, cache_root, lmms_launch, tmp_path_factory) -> Path:
    """The frame sweep of :func:`_make_sweep`, made once per session for all workers (tests only read it): its
    folder (``sweep.yaml``, ``logs/n4``, ``logs/n8``, ``logs/n16``)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
        mp.setenv("TEMPORAL_TASKS_CACHE_DIR", str(cache_root))
        return made_once(tmp_path_factory, "frame_sweep",
                         lambda work: _make_sweep(work, fixture_root, cache_root, lmms_launch))  # fmt: skip


def test_frame_sweep_through_lmms_eval_config(frame_sweep, offline_env, tmp_path, capsys):
    entries = yaml.safe_load((frame_sweep / "sweep.yaml").read_text())
    assert [e["model_args"] for e in entries] == [f"responses=PLACEHOLDER,max_num_frames={n}" for n in FRAMES]
    logs = frame_sweep / "logs"
    series = {s.task: s for s in frame_series(collect([logs]))}
    main = series["timeblind_iacc"]
    assert [(p.n, p.value) for p in main.points] == [(4, 25.0), (8, 50.0), (16, 75.0)]
    assert [s.diff for s in main.steps] == [25.0, 25.0]
    assert [p.value for p in series["timeblind_iacc_shuffled"].points] == [25.0, 25.0, 25.0]
    # one time-order result per N, each paired with the shuffled run of its own N
    paired = time_order(collect([logs]))
    assert sorted((r.main.n, r.rows[0].comparison.diff) for r in paired) == [(4, 0.0), (8, 25.0), (16, 50.0)]
    assert cli.main(["timeorder", str(logs), "--out", str(tmp_path / "o")]) == 0
    assert "## Frame count" in capsys.readouterr().out and (tmp_path / "o" / "frames.csv").is_file()
    assert len(list((tmp_path / "o").glob("frames_*.png"))) == 2
    # the main task at N=8 and the shuffled at N=4, alone together: refused, naming N
    mixed = tmp_path / "mixed"
    for n, task in ((8, "timeblind_iacc"), (4, "timeblind_iacc_shuffled")):
        run = logs / f"n{n}"
        for file in run.rglob("*.json*"):
            if file.name.endswith("_results.json") or file.name.endswith(f"_samples_{task}.jsonl"):
                # each run keeps its own folder: two runs started in the same second write the same file names
                (mixed / f"n{n}" / file.relative_to(run)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(file, mixed / f"n{n}" / file.relative_to(run))
    with pytest.raises(DataError, match=r"timeblind_iacc vs timeblind_iacc_shuffled: .*frames\.n: 4 != 8"):
        time_order(collect([mixed]))
    assert cli.main(["timeorder", str(mixed)]) == 2
    assert "frames.n" in capsys.readouterr().err


def test_time_order_view_in_browser(shortcut_run, offline_env, tmp_path):
    out = tmp_path / "view.html"
    assert cli.main(["view", str(shortcut_run), "--out", str(out)]) == 0
    page = load(out, "task=timeblind_iacc&label=needs%20the%20order", tmp=tmp_path / "chromium")
    assert page.console == [] and page.requests == []
    dom = parse(page.dom)
    rows = {tr.attrs["data-variant"]: tr for tr in dom.find(id="timeorder").find_all("tr")}
    (result,) = [r for r in time_order(collect([shortcut_run])) if r.main.task == "timeblind_iacc"]
    for row in result.rows:
        shown = rows[row.variant]
        assert shown.attrs["data-diff"] == f"{row.comparison.diff:.2f}"
        assert shown.find_all("td")[5].text() == f"{row.comparison.diff:+.2f}"  # signed, as compare's rows are
        assert shown.attrs["data-ci-low"] == f"{row.comparison.ci_low:.2f}"
        assert shown.attrs["data-flips"] == ",".join(str(row.flips[k]) for k in ("both", "main_only", "control_only",
                                                                                  "neither"))  # fmt: skip
    counts = {li.attrs["data-label"]: li.attrs["data-count"] for li in dom.find(id="label-counts").find_all("li")}
    assert counts == {"answerable blind": "1", "answerable from one frame": "1", "answerable without the order": "0",
                      "needs the order": "1", "never right": "1"}  # fmt: skip
    # the label filter: only instance 2, opened with each control's answer to each question beside main's
    (group,) = dom.find(id="label-groups").find_all("details", data_group=True)
    assert (group.attrs["data-group"], group.attrs["data-label"]) == ("timeblind/2", "needs the order")
    members = group.find_all("tr")[1:]
    assert len(members) == 4
    for member in members:
        tasks = [td.attrs["data-task"] for td in member.find_all("td", data_task=True)]
        assert tasks == ["timeblind_iacc", "timeblind_iacc_blind", "timeblind_iacc_single_frame",
                         "timeblind_iacc_shuffled"]  # fmt: skip
    assert [td.attrs["data-ok"] for td in members[0].find_all("td", data_task=True)][0] == "true"
    # a task with no controls in the run: no time-order view
    page = load(out, "task=vinoground_group_shuffled", tmp=tmp_path / "chromium2")
    assert parse(page.dom).find(id="timeorder-box").attrs.get("hidden") is not None


def test_frames_view_in_browser(frame_sweep, offline_env, tmp_path, capsys):
    logs = frame_sweep / "logs"
    out = tmp_path / "view.html"
    assert cli.main(["view", str(logs), "--out", str(out)]) == 0
    assert "the newest complete run of 3 found" in capsys.readouterr().out
    series = {s.task: s for s in frame_series(collect([logs]))}
    for task, values in (("timeblind_iacc", ["25.00", "50.00", "75.00"]), ("timeblind_iacc_shuffled", ["25.00"] * 3)):
        page = load(out, f"task={task}", tmp=tmp_path / f"chromium_{task}")
        assert page.console == [] and page.requests == []
        dom = parse(page.dom)
        assert dom.find(id="frames-box").attrs.get("hidden") is None
        (shown,) = dom.find(id="frame-series").find_all("div", data_task=task)
        points = shown.find_all("g", data_n=True)
        want = series[task]
        assert [g.attrs["data-n"] for g in points] == [str(n) for n in FRAMES]
        assert [g.attrs["data-value"] for g in points] == values
        for g, p in zip(points, want.points, strict=True):
            assert (g.attrs["data-value"], g.attrs["data-ci-low"], g.attrs["data-ci-high"]) == (
                f"{p.value:.2f}", f"{p.ci_low:.2f}", f"{p.ci_high:.2f}",
            )  # fmt: skip
        steps = shown.find("table").find_all("tr", data_step=True)
        assert [tr.attrs["data-step"] for tr in steps] == ["N=4 -> N=8", "N=8 -> N=16"]
        for tr, c in zip(steps, want.steps, strict=True):
            p = f"{c.p_value:.4f}" if c.p_value >= 0.0001 else "<0.0001"
            assert (tr.attrs["data-diff"], tr.attrs["data-ci-low"], tr.attrs["data-ci-high"], tr.attrs["data-p"]) == (
                f"{c.diff:.2f}", f"{c.ci_low:.2f}", f"{c.ci_high:.2f}", p,
            )  # fmt: skip
    charts, over = chart_text_overflow(out, "task=timeblind_iacc", tmp=tmp_path / "chromium_measure")
    assert charts >= 1 and over == []  # every label inside its chart
    # one N alone: no frames view
    assert cli.main(["view", str(logs / "n8"), "--out", str(tmp_path / "one.html")]) == 0
    page = load(tmp_path / "one.html", "task=timeblind_iacc", tmp=tmp_path / "chromium_one")
    assert parse(page.dom).find(id="frames-box").attrs.get("hidden") is not None
