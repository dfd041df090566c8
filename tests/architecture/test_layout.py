"""The package's shape: one benchmark, one place; no module over 500 lines; no code in a string; lmms-eval bounded
above."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from temporal_tasks.api.registry import registered
from tests.helpers.paths import PACKAGE, ROOT

# perf.py and perf_scoring.py measure named benchmarks (rows per benchmark); the registry holds the one list.
# bench measures named benchmarks' tasks on purpose
ALLOWED = set((PACKAGE / "tools" / "bench").glob("*.py"))
# the settings read every TEMPORAL_TASKS_* variable, the two of one benchmark's too (TEMPORAL_TASKS_TIMEBLIND_TAGS)
ALLOWED.add(PACKAGE / "base" / "settings.py")
LONGEST_STRING = 2000  # characters of a string literal: a longer one is code or data of its own (a .js, .json file)
BUILTIN = tuple(p.name for p in sorted((PACKAGE / "benchmarks").iterdir()) if (p / "__init__.py").is_file())


def _docstring_starts(tree: ast.AST) -> set[tuple[int, int]]:
    starts = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                starts.add((first.lineno, first.col_offset))
    return starts


def names_in_code(path: Path, names: tuple[str, ...]) -> list[str]:
    """The benchmark names spelled in ``path``'s code: identifiers and strings, not comments or docstrings."""
    pattern = re.compile("|".join(names), re.IGNORECASE)
    source = path.read_text(encoding="utf-8")
    docstrings = _docstring_starts(ast.parse(source))
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING and tok.start in docstrings:
            continue
        if tok.type in (tokenize.NAME, tokenize.STRING) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            found += [f"{path.name}:{tok.start[0]}: {m}" for m in pattern.findall(tok.string)]
    return found


def test_names_in_code_sees_strings_and_names_but_not_comments(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('"""About velociti."""\n# velociti\nx = "velociti_mc"\nvelociti = 1\n', encoding="utf-8")
    assert len(names_in_code(probe, ("velociti",))) == 2


def test_benchmark_names_live_only_in_their_own_package():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = [name for name in BUILTIN if (PACKAGE / "benchmarks" / name) in path.parents]
        if path in ALLOWED:
            continue
        others = tuple(name for name in BUILTIN if name not in own)
        offenders += names_in_code(path, others)
    assert not offenders, "benchmark knowledge outside its package (move it into its spec or package):\n" + "\n".join(
        offenders
    )


def test_every_builtin_benchmark_is_registered_with_a_complete_spec():
    specs = registered()
    assert list(specs)[: len(BUILTIN)] == list(BUILTIN)
    for name in BUILTIN:
        spec = specs[name]
        assert spec.task_folder().is_dir() and spec.metric_lists and spec.hf_repo, name
        for hook in ("check", "export", "fixture", "fixture_full"):
            assert callable(spec.hook(hook)), (name, hook)
        assert spec.resource(spec.references).is_file()


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_over_500_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 500, f"{path}: split it by responsibility"


def long_strings(source: str, limit: int = LONGEST_STRING) -> list[tuple[int, int]]:
    """``(line, length)`` of the string literals of ``source`` longer than ``limit``; docstrings are documentation
    and do not count."""
    tree = ast.parse(source)
    docstrings = _docstring_starts(tree)
    return [
        (node.lineno, len(node.value))
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes) and len(node.value) > limit
        and (node.lineno, node.col_offset) not in docstrings
    ]  # fmt: skip


def test_no_string_literal_over_2000_characters():
    found = [f"{path.relative_to(ROOT)}:{line} ({n} characters)" for path in sorted(PACKAGE.rglob("*.py"))
             for line, n in long_strings(path.read_text(encoding="utf-8"))]  # fmt: skip
    assert found == [], "code or data in a Python string: ship it as a file of its own (package data)"


def test_long_strings_sees_a_long_literal_but_not_a_docstring():
    text = "x" * (LONGEST_STRING + 1)
    assert long_strings(f'"""{text}"""\nSCRIPT = r"""{text}"""\n') == [(2, LONGEST_STRING + 1)]
    assert long_strings(f'def f():\n    """{text}"""\n') == []


def test_the_viewers_files_ship_in_the_package():
    """The viewer's script and styles are package data: in the package folder, not ignored by git (hatch puts every
    such file of the package in the wheel)."""
    import subprocess

    for name in ("viewer.js", "viewer.css"):
        path = PACKAGE / "tools" / "view" / name
        assert path.is_file(), path
        ignored = subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=ROOT, check=False, capture_output=True)
        if ignored.returncode == 128:
            pytest.skip("not a git work tree (an unpacked sdist): nothing is ignored")
        assert ignored.returncode == 1, f"{path} is ignored by git: hatch would leave it out of the wheel"


def test_lmms_eval_is_bounded_above():
    """Bounded above (a minor release may break what compat/ relies on), and below at the oldest release
    .ci/lmms_versions checks (docs/internals.md)."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'"lmms-eval>=0\.7\.0,<0\.\d+"', pyproject)
