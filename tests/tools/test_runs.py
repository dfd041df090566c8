"""One run per results set: rescore and summary read one run and name it; a samples file with two runs'
answers is an error (issue 24)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from temporal_tasks import cli
from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.rescore import rescore
from temporal_tasks.tools.runs import choose_run, find_runs, read_samples


def _timeblind_lines(fixture_root, monkeypatch, answer: str | None) -> list[dict]:
    """Sample lines of timeblind_iacc: every answer ``answer``, or the gold label when None."""
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind

    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
    lines = []
    for d in timeblind.load_docs():
        text = d["gold"] if answer is None else answer
        # as lmms-eval writes a line: the answer in filtered_resps (lean payloads do not repeat it)
        lines.append({"filtered_resps": [text], **json.loads(json.dumps(timeblind.process_results(d, [text])))})
    return lines


def _write_run(folder: Path, stamp: str, lines_by_task: dict[str, list[dict]], model: str, mtime: float) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    results = folder / f"{stamp}_results.json"
    results.write_text(json.dumps({"results": {t: {} for t in lines_by_task}, "config": {"model": model}}))
    for task, lines in lines_by_task.items():
        path = folder / f"{stamp}_samples_{task}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        os.utime(path, (mtime, mtime))
    os.utime(results, (mtime, mtime))


def test_rescore_reads_one_run_and_names_it(fixture_root, monkeypatch, tmp_path, capsys):
    yes = _timeblind_lines(fixture_root, monkeypatch, None)  # all right
    no = _timeblind_lines(fixture_root, monkeypatch, "")  # all unreadable
    folder = tmp_path / "out" / "model"
    _write_run(folder, "20261125_100000", {"timeblind_iacc": yes}, "run_a", 1_000)
    _write_run(folder, "20261125_110000", {"timeblind_iacc": no}, "run_b", 2_000)
    # run A also left a samples file of a task run B did not run: it must not join B's results
    (folder / "20261125_100000_samples_vinoground_group.jsonl").write_text("")

    result = rescore([tmp_path / "out"])
    cfg = result["config"]
    assert cfg["run"].endswith("20261125_110000") and cfg["model"] == "run_b"
    assert "newest complete run of 2" in cfg["run_note"] and "--run" in cfg["run_note"]
    assert set(result["results"]) == {"timeblind_iacc"}
    # run A, chosen: its empty vinoground file is an error naming it (never an empty table)
    with pytest.raises(DataError, match="samples_vinoground_group.jsonl: cannot score vinoground_group: it is empty"):
        rescore([tmp_path / "out"], run="20261125_100000")
    (folder / "20261125_100000_samples_vinoground_group.jsonl").unlink()
    chosen = rescore([tmp_path / "out"], run="20261125_100000")
    assert chosen["config"]["model"] == "run_a" and set(chosen["results"]) == {"timeblind_iacc"}
    assert chosen["results"]["timeblind_iacc"]["instance_acc,none"] == 100.0
    assert result["results"]["timeblind_iacc"]["instance_acc,none"] == 0.0
    with pytest.raises(DataError, match="--run 2099: no run matches"):
        rescore([tmp_path / "out"], run="2099")

    a_file, b_file = (
        folder / "20261125_100000_samples_timeblind_iacc.jsonl",
        folder / "20261125_110000_samples_timeblind_iacc.jsonl",
    )
    with pytest.raises(DataError, match="come from different runs"):
        rescore([a_file, folder / "20261125_110000_samples_timeblind_iacc.jsonl"])
    assert rescore([a_file])["config"]["model"] == "run_a"  # a file given by name: its run
    assert rescore([b_file])["config"]["model"] == "run_b"
    assert cli.main(["rescore", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "20261125_110000: the newest complete run of 2" in out and "model: run_b" in out


def test_a_samples_file_with_answers_from_two_runs_is_an_error(fixture_root, monkeypatch, tmp_path):
    yes = _timeblind_lines(fixture_root, monkeypatch, "yes")
    no = _timeblind_lines(fixture_root, monkeypatch, "no")
    mixed = tmp_path / "20261125_100000_samples_timeblind_iacc.jsonl"
    mixed.write_text("".join(json.dumps(x) + "\n" for x in yes + no))
    with pytest.raises(DataError, match=f"{mixed}: question '0' is answered twice with different answers"):
        read_samples(mixed)
    with pytest.raises(DataError, match="two runs"):
        rescore([mixed])
    same = tmp_path / "20261125_100001_samples_timeblind_iacc.jsonl"
    same.write_text("".join(json.dumps(x) + "\n" for x in yes + yes))  # a replayed shard: same answers
    assert len(read_samples(same)) == 2 * len(yes)


def test_summary_takes_each_folders_newest_run(tmp_path):
    from temporal_tasks.tools.report import find_results

    folder = tmp_path / "model"
    for stamp, mtime in (("20261125_100000", 1_000), ("20261125_110000", 2_000)):
        _write_run(folder, stamp, {}, stamp, mtime)
    notes: list[str] = []
    assert find_results([tmp_path], notes=notes) == [folder / "20261125_110000_results.json"]
    assert len(notes) == 1 and "newest complete run of 2" in notes[0]
    assert find_results([tmp_path], run="20261125_100000") == [folder / "20261125_100000_results.json"]
    runs = find_runs([tmp_path])
    assert [r.stamp for r in runs] == ["20261125_100000", "20261125_110000"]
    assert choose_run(runs[:1], what="results")[1] == ""  # one run: no choice to name


def test_summary_stops_on_a_samples_file_from_two_runs(fixture_root, monkeypatch, tmp_path):
    from temporal_tasks.tools.report import summary_table

    right = _timeblind_lines(fixture_root, monkeypatch, None)
    wrong = _timeblind_lines(fixture_root, monkeypatch, "")
    folder = tmp_path / "model"
    _write_run(folder, "20261125_100000", {"timeblind_iacc": right + wrong}, "m", 1_000)
    results = folder / "20261125_100000_results.json"
    results.write_text(json.dumps({"results": {"timeblind_iacc": {"instance_acc,none": 50.0, "alias": "x"}}}))
    with pytest.raises(DataError, match="20261125_100000_samples_timeblind_iacc.jsonl: question '0' is answered twice"):
        summary_table([tmp_path])


# Found by the type check (mypy): a file given by name reads its stamp from the file itself (no second match).
def test_a_run_file_given_by_name_brings_its_run_and_another_file_is_a_clear_error(tmp_path):
    stamp = "20261125_100000"
    (tmp_path / f"{stamp}_results.json").write_text("{}")
    samples = tmp_path / f"{stamp}_samples_timeblind_iacc.jsonl"
    samples.write_text("")
    (tmp_path / "20261125_110000_results.json").write_text("{}")  # another run: not brought in
    (run,) = find_runs([samples])
    assert run.stamp == stamp and run.results == tmp_path / f"{stamp}_results.json"
    assert run.samples == {"timeblind_iacc": samples}
    other = tmp_path / "notes.json"
    other.write_text("{}")
    with pytest.raises(DataError, match=r"notes\.json: not an lmms-eval output file"):
        find_runs([other])
