"""One surface for every benchmark: ours and another package's (the toy) import the same two modules of ours and
nothing else, and their YAMLs name only the kit's hooks, their own functions, the generated aggregations and the
shared task template (docs/adding-a-benchmark.md)."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from temporal_tasks.api.registry import registered
from temporal_tasks.api.task_template import TEMPLATE
from temporal_tasks.harness import kit
from tests.helpers.paths import ROOT, TOY

BENCHMARKS = ROOT / "temporal_tasks" / "benchmarks"
DOC = ROOT / "docs" / "adding-a-benchmark.md"

# The author's surface: what a benchmark declares, and what it calls and its YAMLs name.
SURFACE = {"temporal_tasks.api", "temporal_tasks.harness.kit"}
GENERATED = "temporal_tasks.scoring.aggregations"  # the metric lists' aggregations, written by the generator


def _packages() -> dict[str, Path]:
    """Every benchmark package: each folder under temporal_tasks/benchmarks/, and the toy's."""
    found = {
        f"temporal_tasks.benchmarks.{p.name}": p for p in sorted(BENCHMARKS.iterdir()) if (p / "__init__.py").is_file()
    }
    return {**found, "toybench": TOY / "toybench"}


def _is_module(name: str) -> bool:
    if not name.startswith("temporal_tasks."):
        return False  # only our modules matter here
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def imported_modules(package: str, folder: Path) -> dict[str, list[str]]:
    """Our modules outside ``package`` that its modules import (at the top and inside functions): module -> where."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:  # relative: its own package
                    continue
                base = node.module or ""
                # `from a.b import c` imports module a.b.c when c is a module, else module a.b
                names = [f"{base}.{a.name}" if _is_module(f"{base}.{a.name}") else base for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                ours = name == "temporal_tasks" or name.startswith("temporal_tasks.")
                if ours and name != package and not name.startswith(f"{package}."):
                    found.setdefault(name, []).append(f"{path.name}:{node.lineno}")
    return found


@pytest.fixture(scope="module")
def toy_on_path():
    import sys

    sys.path.insert(0, str(TOY))
    yield
    sys.path.remove(str(TOY))


def test_every_benchmark_imports_the_same_surface_and_nothing_else(toy_on_path):
    assert len(SURFACE) <= 3
    packages = _packages()
    assert len(packages) == 5  # our four and the toy
    for package, folder in packages.items():
        used = imported_modules(package, folder)
        outside = {m: where for m, where in used.items() if m not in SURFACE}
        assert not outside, f"{package} imports modules of ours outside the surface {sorted(SURFACE)}: {outside}"
        assert set(used) == SURFACE, f"{package} uses {sorted(used)}, not the one surface {sorted(SURFACE)}"


def test_the_check_catches_an_import_outside_the_surface(tmp_path):
    # the rule fails where it should: a module of ours imported at the top or inside a function, or the package
    bad = tmp_path / "mybench"
    bad.mkdir()
    (bad / "__init__.py").write_text("from temporal_tasks.api import Benchmark\n")
    (bad / "tasks.py").write_text(
        "from temporal_tasks.harness.kit import answers\nfrom temporal_tasks.harness import kit\n"
        "def f():\n    from temporal_tasks.video import paired_build\n    import temporal_tasks.base.log\n"
        "from . import tasks\n"
    )
    used = imported_modules("mybench", bad)
    assert set(used) - SURFACE == {"temporal_tasks.video", "temporal_tasks.base.log"}
    assert used["temporal_tasks.video"] == ["tasks.py:4"]


def _functions(text: str) -> set[str]:
    return set(re.findall(r"!function ([\w.]+)", text))


def test_yamls_name_only_the_kit_their_own_code_and_the_generated_aggregations(toy_on_path):
    import toybench

    specs = [*registered().values(), toybench.SPEC]  # ours (and the toy, once registered) and the toy
    folders = {spec.name: (spec.package, spec.task_folder()) for spec in specs}
    assert len(folders) >= 5
    hooks = set()
    for name, (package, folder) in folders.items():
        files = [p for p in folder.rglob("*") if p.is_file() and (p.suffix == ".yaml" or p.name.endswith("_yaml"))]
        assert files, name
        for path in files:
            if path.name == TEMPLATE:
                continue  # the generated copy of our shared template, checked current by the metric-list test
            for ref in _functions(path.read_text(encoding="utf-8")):
                module = ref.rpartition(".")[0]
                if module == "temporal_tasks.harness.kit":
                    hooks.add(ref.rpartition(".")[2])
                    continue
                assert module == GENERATED or module == package or module.startswith(f"{package}."), (
                    f"{path}: !function {ref} names a module of ours outside the surface; name the kit's hook "
                    f"(temporal_tasks.harness.kit.<hook>) instead"
                )
    # the hooks the YAMLs use are the kit's public names and documented for authors
    assert hooks and hooks <= set(kit.__all__)
    doc = DOC.read_text(encoding="utf-8")
    assert not sorted(h for h in hooks if h not in doc), "docs/adding-a-benchmark.md does not name these YAML hooks"


def test_the_shared_template_names_only_the_kit():
    from temporal_tasks import tasks_dir

    refs = _functions((Path(tasks_dir()) / TEMPLATE).read_text(encoding="utf-8"))
    assert refs and all(r.startswith("temporal_tasks.harness.kit.") for r in refs), refs


def test_the_toy_includes_the_shared_template_not_a_copy_by_hand(toy_on_path):
    import toybench

    from temporal_tasks.scoring.metric_lists import stale_files

    folder = toybench.SPEC.task_folder()
    text = (folder / "_default_template_yaml").read_text(encoding="utf-8")
    keys = dict(re.findall(r"^(\w+):\s*(.*)$", text, re.M))  # its top-level keys, as written
    # the shared plumbing comes from the template; the toy's own template adds only its results and metric list
    assert keys["include"] == TEMPLATE and set(keys) == {"include", "process_results", "metric_list"}, keys
    assert (folder / TEMPLATE).is_file() and stale_files([toybench.SPEC]) == []  # the copy is the generated one


def test_the_kit_documents_every_name_it_offers():
    doc = kit.__doc__ or ""
    assert not [n for n in kit.__all__ if n not in doc], "kit's docstring does not name these"
