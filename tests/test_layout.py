"""The package's shape: one benchmark, one place; no module over 500 lines; lmms-eval bounded above."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from temporal_tasks.api.registry import registered

PACKAGE = Path(__file__).parent.parent / "temporal_tasks"
ROOT = PACKAGE.parent
# perf.py and perf_scoring.py measure named benchmarks (rows per benchmark); the registry holds the one list.
# bench measures named benchmarks' tasks on purpose
ALLOWED = set((PACKAGE / "tools" / "bench").glob("*.py"))
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


def test_lmms_eval_is_bounded_above():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'"lmms-eval>=0\.7\.3,<0\.\d+"', pyproject)
