"""``temporal-tasks view``: the self-contained HTML run viewer, checked in headless Chromium on runs with hand-computed
outcomes (one real lmms-eval run of every benchmark's main tasks, and edited copies of it as a second run)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from temporal_tasks import cli
from temporal_tasks.tools.compare import compare_runs
from temporal_tasks.tools.rescore import rescore
from tests.conftest import made_once
from tests.helpers.browser import chart_text_overflow, load, parse
from tests.helpers.payloads import CUT_OFF_SQUARE, THOUGHT_THEN_ANSWER
from tests.helpers.task_names import MAIN_TASKS

TASKS = MAIN_TASKS

TEXT = {"yes": "Yes", "no": "No", "A": "A", "B": "B"}

FLIP = {"yes": "No", "no": "Yes", "A": "B", "B": "A"}


# An answer that tries to close the data block and inject markup: it must stay text.
HOSTILE = "</script><b id='injected'>x</b> {}"


def _timeblind(docs: list[dict]) -> dict[str, str]:
    """Instance 0 right (one answer through a reasoning block); 1: "Yes"/"A" to all four (same answer on both
    videos); 2: right on video 0 only; 3: question 0 wrong on both videos (wrong on both videos)."""
    out = {}
    for d in docs:
        inst, role, gold = int(d["group_id"].split("/")[1]), d["role"], d["gold"]
        text = TEXT[gold]
        if inst == 0 and role == "q0_v0":
            text = THOUGHT_THEN_ANSWER.format(text)
        elif inst == 1:
            text = "Yes" if gold in ("yes", "no") else "A"
        elif (inst == 2 and role == "q0_v1") or (inst == 3 and role.startswith("q0_")):
            text = FLIP[gold]
        out[d["question_id"]] = text
    return out


def _vinoground(docs: list[dict]) -> dict[str, str]:
    """Pair 0 right; 1: pos_text wrong (text wrong only, B to both as neg_text's gold is B); 2: pos_video cut off
    while thinking; 3: both video questions answered "A" (video wrong only, same answer to both)."""
    out = {}
    for d in docs:
        pair, role, gold = int(d["group_id"].split("/")[1]), d["role"], d["gold"]
        text = TEXT[gold]
        if pair == 1 and role == "pos_text":
            text = FLIP[gold]
        elif pair == 2 and role == "pos_video":
            text = CUT_OFF_SQUARE
        elif pair == 3 and role.endswith("_video"):
            text = "A"
        out[d["question_id"]] = text
    return out


def _first_group_wrong(docs: list[dict]) -> dict[str, str]:
    """Every answer right except those of the last group (all wrong); one of those is hostile markup. (The last: a
    VELOCITI metric leaves its first rows, the control test, out of StrictVLE.)"""
    last = docs[-1]["group_id"]
    out = {d["question_id"]: FLIP[d["gold"]] if d["group_id"] == last else TEXT[d["gold"]] for d in docs}
    out[docs[-1]["question_id"]] = HOSTILE.format(FLIP[docs[-1]["gold"]])
    return out


@pytest.fixture(scope="module")
def base_run(fixture_root, cache_root, tmp_path_factory, lmms_launch):
    """One real lmms-eval run of every benchmark's main tasks with the answers above, made once per session for all
    workers (tests only read it); returns (folder, docs)."""
    from temporal_tasks.tools.samples import docs_of_task

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
        mp.setenv("TEMPORAL_TASKS_CACHE_DIR", str(cache_root))
        docs = {task: docs_of_task(task) for task in TASKS}
    work = made_once(
        tmp_path_factory, "view_base", lambda folder: _run_base(folder, docs, fixture_root, cache_root, lmms_launch)
    )
    return work / "base", docs


def _run_base(work: Path, docs: dict[str, list[dict]], fixture_root: Path, cache_root: Path, launch) -> None:
    makers = {"timeblind_iacc": _timeblind, "vinoground_group": _vinoground}
    responses = work / "responses.jsonl"
    with open(responses, "w", encoding="utf-8") as fh:
        for task in TASKS:
            for qid, text in makers.get(task, _first_group_wrong)(docs[task]).items():
                fh.write(json.dumps({"task": task, "question_id": qid, "response": text}) + "\n")
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "temporal_replay", "--model_args", f"responses={responses}",
           "--tasks", ",".join(TASKS), "--batch_size", "1", "--output_path", str(work / "base"), "--log_samples",
           "--verbosity", "DEBUG"]  # fmt: skip
    env = dict(os.environ, TEMPORAL_TASKS_DATA_DIR=str(fixture_root), TEMPORAL_TASKS_CACHE_DIR=str(cache_root),
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")  # fmt: skip
    env.pop("TEMPORAL_TASKS_PARSER", None)
    proc = launch(cmd, env, work, 900)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]


def _copy_run(base: Path, dest: Path, answers: dict[str, str], task: str) -> Path:
    """A second run: ``base`` with some of ``task``'s answers replaced, its results JSON rescored from the samples."""
    shutil.copytree(base, dest)
    (samples,) = dest.rglob(f"*_samples_{task}.jsonl")
    lines = [json.loads(x) for x in samples.read_text().splitlines() if x.strip()]
    for line in lines:
        for value in list(line.values()):
            if isinstance(value, dict) and value.get("question_id") in answers:
                line["filtered_resps"] = answers[value["question_id"]]
    samples.write_text("".join(json.dumps(x) + "\n" for x in lines))
    (results,) = dest.rglob("*_results.json")
    results.write_text(json.dumps(rescore([dest]), default=str))
    return dest


@pytest.fixture(scope="module")
def views(base_run, tmp_path_factory):
    """The one-run view, a two-run view (NEW: TimeBlind instance 0 wrong, 1 and 2 right) and one with a refusal."""
    base, docs = base_run
    work = tmp_path_factory.mktemp("views")
    tb = docs["timeblind_iacc"]
    inst = {d["question_id"]: int(d["group_id"].split("/")[1]) for d in tb}
    new_answers = {d["question_id"]: FLIP[d["gold"]] if inst[d["question_id"]] == 0 else TEXT[d["gold"]] for d in tb}
    new_answers = {q: a for q, a in new_answers.items() if inst[q] in (0, 1, 2)}
    new = _copy_run(base, work / "new", new_answers, "timeblind_iacc")
    other = _copy_run(base, work / "other", {}, "timeblind_iacc")
    (results,) = other.rglob("*_results.json")
    data = json.loads(results.read_text())
    data["configs"]["timeblind_iacc"]["metadata"]["provenance"]["frames"]["n"] = 16
    results.write_text(json.dumps(data))
    paths = {"one": work / "one.html", "two": work / "two.html", "refused": work / "refused.html"}
    assert cli.main(["view", str(base), "--out", str(paths["one"])]) == 0
    assert cli.main(["view", str(base), str(new), "--out", str(paths["two"])]) == 0
    assert cli.main(["view", str(base), str(other), "--out", str(paths["refused"])]) == 0
    return {**paths, "base": base, "new": new, "other": other, "docs": docs, "work": work}


def _results(folder: Path) -> dict:
    (path,) = folder.rglob("*_results.json")
    return json.loads(path.read_text())["results"]


def _clean(page) -> None:
    assert page.console == [], page.console  # no error, no warning: the page logs nothing
    assert page.requests == [], page.requests  # no network request of any kind


def test_browser_check_sees_console_errors_and_requests(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><img src="http://example.invalid/x.png"><script>throw new Error("boom")</script>')
    page = load(bad, tmp=tmp_path / "chromium")
    assert any("boom" in line for line in page.console) and page.requests == ["http://example.invalid/x.png"]


def test_view_page_is_self_contained(views):
    html = views["one"].read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert not re.search(r"url\(\s*['\"]?\s*(https?:)?//", html, re.I) and "@import" not in html
    assert not re.search(r"<script[^>]*\ssrc=", html, re.I) and not re.search(r"<link[^>]*stylesheet", html, re.I)
    # the hostile answer cannot end the data block: "<" is escaped inside it
    assert html.count("</script>") == 2 and "<b id='injected'>" not in html and "\\u003cb id='injected'" in html
    size = views["one"].stat().st_size
    samples = sum(p.stat().st_size for p in views["base"].rglob("*_samples_*.jsonl"))
    assert size <= 1.5 * samples, (size, samples)


def test_view_one_run_in_browser(views, tmp_path):
    base, docs = views["base"], views["docs"]
    results = _results(base)["timeblind_iacc"]
    page = load(views["one"], "task=timeblind_iacc&filter=failed", tmp=tmp_path)
    _clean(page)
    dom = parse(page.dom)
    head = dom.find("tr", data_run="0", data_metric="instance_acc")
    assert head.attrs["data-value"] == "25.00" and results["instance_acc,none"] == 25.0
    assert head.attrs["data-ci-low"] == f"{results['instance_acc_ci_low,none']:.2f}"
    assert dom.find("tr", data_metric="invalid_rate").attrs["data-value"] == "0.00"
    assert dom.find(id="match-count").attrs["data-count"] == "3"  # instances 1, 2, 3 failed
    groups = dom.find(id="groups").find_all("details", data_group=True)
    assert [g.attrs["data-group"] for g in groups] == ["timeblind/1", "timeblind/2", "timeblind/3"]
    shapes = {li.attrs["data-shape"]: li.attrs["data-count"] for li in dom.find(id="shapes").find_all("li")}
    assert shapes == {"same answer on both videos": "1", "right on one video only": "1", "wrong on both videos": "1"}
    assert "timeblind_iacc" in dom.find(id="provenance").text() and "reading robust" in dom.find(id="provenance").text()
    # instance 2's four answers: right on video 0, question 0 wrong on video 1
    members = {m.attrs["data-role"]: m for m in dom.find("details", data_group="timeblind/2").find_all("tr")[1:]}
    golds = {d["role"]: d["gold"] for d in docs["timeblind_iacc"] if d["group_id"] == "timeblind/2"}
    assert set(members) == {"q0_v0", "q0_v1", "q1_v0", "q1_v1"}
    for role, row in members.items():
        want = FLIP[golds[role]] if role == "q0_v1" else TEXT[golds[role]]
        cell = row.find("td", data_run="0")
        assert row.find("td", **{"class": "gold"}).text() == golds[role]
        assert cell.find("pre", **{"class": "final"}).text() == want
        assert cell.attrs["data-ok"] == ("false" if role == "q0_v1" else "true")
        label = golds[role] if role != "q0_v1" else {"yes": "no", "no": "yes", "A": "B", "B": "A"}[golds[role]]
        assert cell.find("span", **{"class": "robust"}).text() == label

    # a link that opens one group; the reasoning of instance 0's first answer is folded, its answer marked
    page = load(views["one"], "task=timeblind_iacc&group=timeblind/0", tmp=tmp_path)
    _clean(page)
    dom = parse(page.dom)
    chosen = dom.find("details", data_group="timeblind/0")
    assert "open" in chosen.attrs and "selected" in chosen.attrs["class"]
    first = chosen.find("tr", data_role="q0_v0")
    assert "reasoning" in first.find("details", **{"class": "reasoning"}).text()
    assert first.find("mark").text() == "Yes"

    # the cut-off answer and its flag; a search; the hostile answer shown as text
    page = load(views["one"], "task=vinoground_group&filter=cut_off", tmp=tmp_path)
    _clean(page)
    dom = parse(page.dom)
    assert dom.find(id="match-count").attrs["data-count"] == "1"
    row = dom.find("details", data_group="vinoground/2").find("tr", data_role="pos_video")
    assert row.find("span", data_flag="cut_off") and row.find("pre", **{"class": "final"}).text() == ""
    shapes = {li.attrs["data-shape"]: li.attrs["data-count"] for li in dom.find(id="shapes").find_all("li")}
    # pair 1: pos_text's gold is A and neg_text's B, so the flipped pos_text answers B to both text questions
    assert shapes == {"cut off while thinking": "1", "text wrong only (same answer to both text questions)": "1",
                      "video wrong only (same answer to both video questions)": "1"}  # fmt: skip
    page = load(views["one"], "task=velociti_mc&q=injected", tmp=tmp_path)
    _clean(page)
    dom = parse(page.dom)
    assert dom.find(id="match-count").attrs["data-count"] == "1" and not dom.find_all(id="injected")


def test_view_opens_every_benchmark_in_browser(views, tmp_path):
    results, docs = _results(views["base"]), views["docs"]
    failed = {"timeblind_iacc": 3, "vinoground_group": 3}
    for task in TASKS:
        page = load(views["one"], f"task={task}&filter=failed", tmp=tmp_path)
        _clean(page)
        dom = parse(page.dom)
        assert dom.find(id="task").attrs["data-task"] == task
        rows = dom.find(id="headline").find_all("tr")
        assert rows, task
        for row in rows:
            assert row.attrs["data-value"] == f"{results[task][row.attrs['data-metric'] + ',none']:.2f}", task
        count = dom.find(id="match-count")
        assert count.attrs["data-total"] == str(len({d["group_id"] for d in docs[task]})), task
        assert count.attrs["data-count"] == str(failed.get(task, 1)), task  # elsewhere the last group only


def test_view_two_runs_in_browser(views, tmp_path):
    rows, _notes = compare_runs(next(views["base"].rglob("*_results.json")), next(views["new"].rglob("*_results.json")),
                                categories=True)  # fmt: skip
    page = load(views["two"], "task=timeblind_iacc&filter=flipped", tmp=tmp_path)
    _clean(page)
    dom = parse(page.dom)
    flips = dom.find(id="flips")
    assert (flips.attrs["data-better"], flips.attrs["data-worse"]) == ("2", "1")
    assert dom.find(id="match-count").attrs["data-count"] == "3"
    shown = {tr.attrs["data-metric"]: tr for tr in dom.find(id="compare").find_all("tr")}
    for r in (r for r in rows if r.task == "timeblind_iacc"):
        tr = shown[r.metric]
        assert tr.attrs["data-diff"] == f"{r.diff:.2f}" and tr.attrs["data-ci-low"] == f"{r.ci_low:.2f}"
        assert tr.attrs["data-p"] == (f"{r.p_value:.4f}" if r.p_value >= 0.0001 else "<0.0001")
    assert shown["instance_acc"].attrs["data-diff"] == "25.00"  # 25 -> 50: instances 1, 2 right, 0 wrong
    assert "instance_acc_yes_no" in shown or "instance_acc_multiple_choice" in shown  # per category too
    # the headline rows side by side: BASE's and NEW's reported value [CI], then compare's NEW - BASE
    reported = [_results(views["base"])["timeblind_iacc"], _results(views["new"])["timeblind_iacc"]]
    heads = dom.find(id="headline").find_all("tr")
    assert heads and [tr.attrs["data-metric"] for tr in heads][0] == "instance_acc"
    for tr in heads:
        key = tr.attrs["data-metric"]
        for i, values in enumerate(reported):
            cell = tr.find("td", data_run=str(i))
            assert (cell.attrs["data-value"], cell.attrs["data-ci-low"], cell.attrs["data-ci-high"]) == tuple(
                f"{values[f'{key}{suffix},none']:.2f}" for suffix in ("", "_ci_low", "_ci_high")
            )  # fmt: skip
        (r,) = [r for r in rows if r.task == "timeblind_iacc" and r.metric == key]
        assert (tr.attrs["data-diff"], tr.attrs["data-ci-low"], tr.attrs["data-ci-high"], tr.attrs["data-groups"]) == (
            f"{r.diff:.2f}", f"{r.ci_low:.2f}", f"{r.ci_high:.2f}", str(r.groups),
        )  # fmt: skip
        assert tr.attrs["data-p"] == (f"{r.p_value:.4f}" if r.p_value >= 0.0001 else "<0.0001")
    assert heads[0].find("td", data_run="0").text().startswith("25.00 [")
    assert heads[0].find("td", data_run="1").text().startswith("50.00 [")
    assert heads[0].attrs["data-diff"] == "25.00"
    # a flipped group's answers side by side
    group = dom.find("details", data_group="timeblind/0")
    assert group.attrs["data-outcome"] == "right,failed"
    row = group.find("tr", data_role="q0_v0")
    assert row.find("td", data_run="0").attrs["data-ok"] == "true"
    assert row.find("td", data_run="1").attrs["data-ok"] == "false"

    page = load(views["refused"], "task=timeblind_iacc", tmp=tmp_path)
    _clean(page)
    dom = parse(page.dom)
    refused = dom.find(id="refused")
    assert refused.attrs["data-refused"] == "true" and "frames.n: null != 16" in refused.text()
    assert not dom.find(id="compare").find_all("tr") and "data-better" not in dom.find(id="flips").attrs
    # the headline rows still show both runs' values, and the reason instead of the difference
    for tr in dom.find(id="headline").find_all("tr"):
        assert tr.attrs["data-compared"] == "false" and "data-diff" not in tr.attrs
        assert "frames.n: null != 16" in tr.find("td", **{"class": "reason"}).text()
        assert tr.find("td", data_run="0").attrs["data-value"] == tr.find("td", data_run="1").attrs["data-value"]
    page = load(views["refused"], "task=vinoground_group", tmp=tmp_path)
    dom = parse(page.dom)
    assert dom.find(id="refused").attrs["data-refused"] == "false" and dom.find(id="compare").find_all("tr")


def test_chart_text_fits_inside_the_chart(views, tmp_path):
    """The widest value label, "100.0 [100.0, 100.0]", was cut off at the chart's right edge."""
    charts, over = chart_text_overflow(views["two"], "task=timeblind_iacc", tmp=tmp_path)
    assert charts >= 2 and over == []


def test_view_frames_embeds_thumbnails_of_failed_groups(views, fixture_root, cache_root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(cache_root))
    out = tmp_path / "frames.html"
    assert cli.main(["view", str(views["base"]), "--frames", "2", "--out", str(out)]) == 0
    assert "thumbnails (2 per video of the failed groups)" in capsys.readouterr().out
    page = load(out, "task=timeblind_iacc", tmp=tmp_path / "chromium")
    _clean(page)
    dom = parse(page.dom)
    # instances 1-3 failed: 4 questions x 1 video x 2 frames each; instance 0 (right) has none
    for gid, count in (("timeblind/0", 0), ("timeblind/1", 8), ("timeblind/2", 8), ("timeblind/3", 8)):
        images = dom.find("details", data_group=gid).find_all("img")
        assert len(images) == count and all(i.attrs["src"].startswith("data:image/jpeg;base64,") for i in images)
    # the data must be the run's: other data stop with the reason
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(tmp_path / "nothing"))
    assert cli.main(["view", str(views["base"]), "--frames", "2", "--out", str(out)]) == 2
    assert "--frames needs the videos of" in capsys.readouterr().err
