"""One benchmark, one place: no module of the package names the toy benchmark (``tests/helpers/toybench/``), and its
metric list is generated from its spec."""

from __future__ import annotations

from tests.helpers.paths import PACKAGE, TOY


def test_no_package_module_names_the_toy():
    for path in PACKAGE.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".yaml", ".json") or path.name.endswith("_yaml"):
            assert "toybench" not in path.read_text(encoding="utf-8").lower(), path


def test_toy_metric_list_is_generated_from_its_spec(monkeypatch):
    monkeypatch.syspath_prepend(str(TOY))
    import toybench

    from temporal_tasks.scoring.metric_lists import stale_files

    assert stale_files([toybench.SPEC]) == []
