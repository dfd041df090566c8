"""``temporal-tasks rescore`` (``tools/rescore.py``): every repeat re-read, and its errors."""

from __future__ import annotations

import json

import pytest

from temporal_tasks import cli
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.export import export
from temporal_tasks.tools.rescore import find_sample_files, rescore
from tests.helpers.repeats import SMALL, small_timeblind_docs, three


@pytest.fixture
def tb_docs(offline_env) -> list[dict]:
    return small_timeblind_docs()


def test_rescore_rereads_every_repeat(tb_docs):
    from temporal_tasks.tools.rescore import rescore_task

    lines = []
    for d in tb_docs:
        given = three(SMALL[d["question_id"]])
        lines.append({"doc_id": int(d["question_id"]), "filtered_resps": given, **timeblind.process_results(d, given)})
    got = rescore_task("timeblind_iacc", lines)
    assert got["instance_acc_consensus_accuracy"] == 75.0 and got["instance_acc_consistency_rate"] == 25.0
    assert got["instance_acc"] == pytest.approx(125 / 3)
    lines[0]["filtered_resps"] = ["Yes"]
    with pytest.raises(Exception, match="holds 3 repeats but the sample line's resps hold 1"):
        rescore_task("timeblind_iacc", lines)


def test_rescore_errors(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        find_sample_files([tmp_path / "nope"])
    with pytest.raises(DataError, match="no \\*_samples_<task>.jsonl"):
        find_sample_files([tmp_path])
    bad = tmp_path / "20260101_samples_not_ours.jsonl"
    bad.write_text("{}\n")
    with pytest.raises(DataError, match="not one of our tasks"):
        rescore([bad])
    with pytest.raises(DataError, match="no exporter"):
        export("nope", [bad], tmp_path)


def test_unscorable_samples_file_is_an_error(tmp_path, capsys):
    empty = tmp_path / "20260101_samples_timeblind_iacc.jsonl"
    empty.write_text("")
    with pytest.raises(DataError, match="cannot score timeblind_iacc: it is empty"):
        rescore([empty])
    empty.write_text(json.dumps({"doc_id": 0, "target": "yes"}) + "\n")
    assert cli.main(["rescore", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "cannot score timeblind_iacc" in err and "--log_samples" in err
