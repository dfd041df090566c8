"""The shared task template (``api/task_template.py``): a benchmark whose YAML folder lies outside ours gets a
generated copy of the template and its placeholder split; ours include the original."""

from __future__ import annotations

from pathlib import Path

from temporal_tasks import tasks_dir
from temporal_tasks.api.registry import registered
from temporal_tasks.api.spec import Benchmark
from temporal_tasks.api.task_template import COPY_HEADER, PLACEHOLDER, TEMPLATE, template_copies


def test_our_benchmarks_need_no_copy():
    assert all(template_copies(spec) == [] for spec in registered().values())


def test_another_packages_folder_gets_both_files_the_template_marked_generated(tmp_path):
    spec = Benchmark(name="outside", title="Outside", package="outside", tasks_dir=str(tmp_path / "tasks"))
    copies = dict(template_copies(spec))
    assert set(copies) == {tmp_path / "tasks" / TEMPLATE, tmp_path / "tasks" / PLACEHOLDER}
    ours = Path(tasks_dir())
    assert copies[tmp_path / "tasks" / TEMPLATE] == COPY_HEADER + (ours / TEMPLATE).read_text(encoding="utf-8")
    assert copies[tmp_path / "tasks" / PLACEHOLDER] == (ours / PLACEHOLDER).read_text(encoding="utf-8")
    assert COPY_HEADER.startswith("#") and "do not edit" in COPY_HEADER  # a YAML comment, saying what it is
