"""The type check CI runs (mypy, ``[tool.mypy]`` in pyproject.toml) holds every hook to its ``Protocol``.

Each hook a spec declares is assigned, in its module, to a variable typed with its contract
(``_CHECK: CheckHook = parts``), so mypy checks its signature; and mypy, at the project's settings, rejects a
hook whose signature does not fit (shown on a copy of the toy benchmark's ``check`` hook).
"""

from __future__ import annotations

import inspect
import subprocess
import sys

from temporal_tasks.api.contracts import HOOKS
from temporal_tasks.api.registry import registered
from temporal_tasks.api.spec import Benchmark
from tests.helpers.paths import ROOT, TOY


def _untyped_hooks(spec: Benchmark) -> list[str]:
    """The hooks of ``spec`` that no module-level variable typed with their Protocol holds."""
    missing = []
    for hook, protocol in HOOKS.items():
        fn = spec.hook(hook)
        if fn is None:
            continue
        module = sys.modules[fn.__module__]
        annotations = inspect.get_annotations(module)  # strings under `from __future__ import annotations`
        typed = [
            var
            for var, annotation in annotations.items()
            if annotation in (protocol, protocol.__name__) and getattr(module, var, None) is fn
        ]
        if not typed:
            missing.append(
                f"{spec.name}: hook {hook} = {getattr(spec, hook)!r} has no typed assignment; add "
                f"`_{hook.upper()}: {protocol.__name__} = {fn.__name__}` to {module.__name__} so mypy checks it."
            )
    return missing


def test_every_declared_hook_is_typed_with_its_protocol(monkeypatch):
    monkeypatch.syspath_prepend(str(TOY))
    import toybench

    specs = [*registered().values(), toybench.SPEC]
    assert {"timeblind", "vinoground", "temporalbench", "velociti", "toybench"} <= {s.name for s in specs}
    missing = [line for spec in specs for line in _untyped_hooks(spec)]
    assert not missing, "\n".join(missing)


def test_mypy_rejects_a_hook_that_does_not_fit_its_protocol(tmp_path):
    source = (TOY / "toybench" / "check.py").read_text(encoding="utf-8")
    right = "def parts(data: kit.BenchmarkData, k: int) -> list[Part]:"
    assert right in source
    wrong = source.replace(right, "def parts(data: kit.BenchmarkData, k: int, extra: str) -> list[Part]:")
    (tmp_path / "toy_check_right.py").write_text(source, encoding="utf-8")
    (tmp_path / "toy_check_wrong.py").write_text(wrong, encoding="utf-8")
    # The project's settings (pyproject.toml, run from the repo root), a cache of its own: a few seconds.
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")]
    cmd += ["--cache-dir", str(tmp_path / "cache"), str(tmp_path / "toy_check_right.py")]
    cmd += [str(tmp_path / "toy_check_wrong.py")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert proc.returncode == 1, out
    assert len(errors) == 1, out
    line = next(n for n, text in enumerate(wrong.splitlines(), 1) if text.startswith("_CHECK: CheckHook = parts"))
    assert f"toy_check_wrong.py:{line}: error: Incompatible types in assignment" in errors[0], out
    assert 'variable has type "CheckHook"' in errors[0] and "[assignment]" in errors[0], out
