"""``temporal-tasks export`` (``tools/export.py``): its errors."""

from __future__ import annotations

import re

import pytest

from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.export import export
from tests.helpers.files import write_samples_file


def test_export_errors(tmp_path):
    f = write_samples_file(tmp_path / "20260101_samples_velociti_mc.jsonl", [])
    with pytest.raises(DataError, match="no samples of a vinoground"):
        export("vinoground", [f], tmp_path / "out")
    bad = {"question_id": "7_text", "group_id": "vinoground/7", "role": "pos_text", "answer": "A", "gold": "A"}
    g = write_samples_file(tmp_path / "20260101_samples_vinoground_text.jsonl", [bad])
    with pytest.raises(DataError, match=re.escape("is not '<pair>_<pos|neg>_<text|video>'")):
        export("vinoground", [g], tmp_path / "out")


@pytest.mark.parametrize("benchmark", ["vinoground", "temporalbench", "timeblind", "velociti"])
def test_a_payload_without_a_field_exporters_read_names_the_file_and_question(tmp_path, benchmark):
    # An edited samples file: the payload lost its gold and role. Every exporter used to stop on a bare KeyError.
    edited = {"question_id": "3", "group_id": f"{benchmark}/3", "answer": "Yes", "parser": "x"}
    f = write_samples_file(tmp_path / f"20260101_samples_{benchmark}_task.jsonl", [edited])
    with pytest.raises(DataError, match=re.escape(f"{f}: question '3' of {benchmark}_task has no role, gold;")):
        export(benchmark, [f], tmp_path / "out")
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
