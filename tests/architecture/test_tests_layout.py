"""The tests' own layout mirrors the package (docs/development.md, "Tests"): a folder of unit tests per layer of
``temporal_tasks/`` and per benchmark, the end-to-end runs in ``tests/e2e`` (the only slow ones), the architecture
checks in ``tests/architecture``, and what the tests share in ``tests/helpers``."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.paths import HELPERS, PACKAGE, ROOT

TESTS = ROOT / "tests"
E2E = TESTS / "e2e"
APART = ("architecture", "e2e", "cli")  # besides the layers (cli: temporal_tasks/cli.py, at the top); helpers apart
# The fixtures that run a real command line (tests/conftest.py): only end-to-end tests may ask for them.
CLI_RUNS = {"lmms_eval", "shared_lmms_eval", "lmms_launch", "lmms_tasks_list"}


def _packages(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if (p / "__init__.py").is_file())


def _test_folders() -> list[Path]:
    return sorted(
        p for p in TESTS.rglob("*") if p.is_dir() and HELPERS not in (p, *p.parents) and p.name != "__pycache__"
    )


def _test_modules(folder: Path = TESTS) -> list[Path]:
    return sorted(p for p in folder.rglob("test_*.py") if HELPERS not in p.parents)


def test_no_test_module_directly_in_tests():
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []


def test_every_layer_and_benchmark_has_its_test_folder_and_nothing_else_does():
    layers = _packages(PACKAGE)
    benchmarks = _packages(PACKAGE / "benchmarks")
    expected = {TESTS / name for name in (*layers, *APART)} | {TESTS / "benchmarks" / b for b in benchmarks}
    expected |= {TESTS / "tools" / sub for sub in _packages(PACKAGE / "tools") if _test_modules(TESTS / "tools" / sub)}
    assert set(_test_folders()) == expected


def test_every_test_folder_is_a_package():
    """Same-named modules in two folders (tests/e2e/test_timeblind.py, ...) import as different modules."""
    assert [str(p.relative_to(ROOT)) for p in _test_folders() if not (p / "__init__.py").is_file()] == []


def _slow_marks_and_cli_runs(path: Path, shown_from: Path = ROOT) -> list[str]:
    """Each ``slow`` mark in ``path`` and each function of it that asks for a fixture running a command line."""
    where = path.relative_to(shown_from)
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "slow" and ast.unparse(node).endswith("mark.slow"):
            found.append((node.lineno, f"{where}:{node.lineno}: marked slow"))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            asked = CLI_RUNS & {a.arg for a in node.args.args}
            if asked:
                found.append((node.lineno, f"{where}:{node.lineno}: {node.name} asks for {sorted(asked)}"))
    return [text for _line, text in sorted(found)]


def test_only_end_to_end_tests_are_slow_or_run_a_command_line():
    """tests/e2e/conftest.py marks its folder slow: ``-m "not slow"`` and ``--ignore=tests/e2e`` skip the same."""
    outside = [p for p in _test_modules() if E2E not in p.parents]
    assert [hit for p in outside for hit in _slow_marks_and_cli_runs(p)] == []


def test_the_slow_check_sees_a_mark_and_a_cli_run(tmp_path):
    path = tmp_path / "test_probe.py"
    path.write_text(
        "import pytest\n\n@pytest.mark.slow\ndef test_x(lmms_eval, tmp_path):\n    pass\n", encoding="utf-8"
    )
    assert _slow_marks_and_cli_runs(path, shown_from=tmp_path) == [
        "test_probe.py:3: marked slow",
        "test_probe.py:4: test_x asks for ['lmms_eval']",
    ]


def test_no_test_module_imports_another():
    """What two test modules share lives in tests/helpers (or, for fixtures, in a conftest)."""
    found = []
    for path in _test_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tests."):
                if node.module.rsplit(".", 1)[-1].startswith("test_"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {node.module}")
    assert found == []
