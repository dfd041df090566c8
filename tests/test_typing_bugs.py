"""What the type check found in code paths no test reached: each is a clear error now, not a crash.

- ``Benchmark.resource`` of a package without ``__init__.py`` (a namespace package: ``__file__`` is None) stopped
  registration with ``TypeError: expected str, bytes or os.PathLike object, not NoneType``.
- A command asking for a hook the benchmark does not declare (``spec.hook`` gives None) would call None;
  ``Benchmark.required_hook`` names the benchmark and the hook instead (the CLI offers only benchmarks that
  declare it).
- ``find_runs`` on a file given by name reads its run's stamp from the file it added (no second regex match).
"""

from __future__ import annotations

import pytest

from temporal_tasks.api import contracts
from temporal_tasks.api.registry import get
from temporal_tasks.api.spec import Benchmark
from temporal_tasks.base.errors import DataError
from temporal_tasks.cli import build_parser
from temporal_tasks.tools.runs import find_runs


def test_a_benchmark_package_without_init_is_a_clear_error_at_registration(tmp_path, monkeypatch):
    (tmp_path / "typing_bugs_namespace_bench").mkdir()  # no __init__.py: a namespace package
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = Benchmark(name="nsbench", title="NS", package="typing_bugs_namespace_bench", references="refs.json")
    with pytest.raises(ValueError, match=r"nsbench: package 'typing_bugs_namespace_bench' has no __init__\.py"):
        contracts.check_hooks(spec)


def test_a_hook_a_benchmark_does_not_declare_is_a_clear_error():
    assert get("timeblind").hook("prebuild") is None
    with pytest.raises(ValueError, match="timeblind: declares no prebuild hook"):
        get("timeblind").required_hook("prebuild")
    assert callable(get("vinoground").required_hook("prebuild"))


def test_the_prebuild_command_offers_only_benchmarks_with_a_prebuild_hook(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["prebuild", "--benchmark", "timeblind"])
    assert "invalid choice: 'timeblind'" in capsys.readouterr().err


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
