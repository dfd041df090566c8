"""Every dotted ``temporal_tasks.`` path a reader is shown imports: in the package's docstrings and comments, in the
task YAMLs (``!function`` and comments), in docs/ and README.md, and in the toy benchmark's files.

A path is a module, or a module and an attribute chain (``temporal_tasks.video.BuildAhead.plan``). A path that
names a pattern (``temporal_tasks.harness.kit.process_docs_<variant>``) is checked up to the pattern.
"""

from __future__ import annotations

import importlib
import re
from functools import cache

from tests.helpers.paths import ROOT, TOY

SOURCES = [
    *sorted((ROOT / "temporal_tasks").rglob("*.py")),
    *sorted(p for p in (ROOT / "tasks").rglob("*") if p.is_file()),
    *sorted(p for p in (ROOT / "tasks_lm_eval").rglob("*") if p.is_file() and p.suffix in (".yaml", ".py", ".md")),
    *sorted((ROOT / "docs").rglob("*.md")),
    ROOT / "README.md",
    *sorted(p for p in TOY.rglob("*") if p.is_file() and p.suffix != ".jsonl"),
]
# The toy registers only where its folder is on the path (its own tests run it in a subprocess), so the aggregations
# its generated metric list names resolve there; the metric-list test checks them against its spec instead.
TOY_AGGREGATIONS = "temporal_tasks.scoring.aggregations.toybench__"
# A dotted path of ours: not part of a longer name (my_temporal_tasks.x) or of a file path (tests/temporal_tasks.x).
_PATH = re.compile(r"(?<![\w./-])temporal_tasks(?:\.[A-Za-z_]\w*)+")
_PATTERN_NEXT = ("<", "{", "*")  # ``process_docs_<variant>``: the last part is a pattern, not a name


def dotted_paths(text: str) -> list[str]:
    """The dotted ``temporal_tasks.`` paths in ``text``; a pattern's last part is left out."""
    out = []
    for m in _PATH.finditer(text):
        path = m.group(0)
        if text[m.end() : m.end() + 1] in _PATTERN_NEXT:
            path = path.rpartition(".")[0]
        out.append(path)
    return out


@cache
def resolves(path: str) -> bool:
    """Whether ``path`` imports: its longest importable module prefix, then each further part an attribute."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and not name.startswith(exc.name) and exc.name != name:
                raise  # the module exists but one of its own imports is missing
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_dotted_path_imports():
    stale: dict[str, list[str]] = {}
    checked = 0
    for source in SOURCES:
        text = source.read_text(encoding="utf-8")
        for path in dotted_paths(text):
            if TOY in source.parents and path.startswith(TOY_AGGREGATIONS):
                continue
            checked += 1
            if not resolves(path):
                stale.setdefault(path, []).append(str(source.relative_to(ROOT)))
    assert checked > 300  # the sources were read
    assert not stale, "these dotted paths do not import (module, or module + attribute):\n" + "\n".join(
        f"  {path}: {', '.join(sorted(set(where)))}" for path, where in sorted(stale.items())
    )


def test_the_check_reads_patterns_and_catches_a_stale_path():
    text = (
        "see :func:`temporal_tasks.video.schedule.BuildAhead.plan`; !function temporal_tasks.harness.kit.blind_visual;"
        " process_docs_<variant> is temporal_tasks.harness.kit.process_docs_<variant>; old: temporal_tasks.payloads."
        "share, temporal_tasks.video.no_such_thing; not ours: my_temporal_tasks.x, tests/temporal_tasks.y"
    )
    paths = dotted_paths(text)
    assert paths == [
        "temporal_tasks.video.schedule.BuildAhead.plan",
        "temporal_tasks.harness.kit.blind_visual",
        "temporal_tasks.harness.kit",
        "temporal_tasks.payloads.share",
        "temporal_tasks.video.no_such_thing",
    ]
    assert [resolves(p) for p in paths] == [True, True, True, False, False]
