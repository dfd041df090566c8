"""The environment, read and written: every ``TEMPORAL_TASKS_*`` variable read in the settings only, at call time;
the environment read there and in compat/ only, changed nowhere in the package, and read by no module at import
(the warm parent of the lmms-eval runs imports our code once: ``tests/helpers/forkserver.py``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from temporal_tasks.base import settings
from tests.helpers.paths import PACKAGE, ROOT


def test_no_module_of_ours_reads_the_environment_at_import():
    """The warm parent imports our task code once (tests/helpers/forkserver.py); a child sets its own environment
    after that, so a module-level read of the environment would see the parent's. None may exist."""
    import ast
    from pathlib import Path

    import temporal_tasks

    found = []
    for path in sorted(Path(temporal_tasks.__file__).parent.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            names = {"environ", "getenv", "environb"}
            hit = (isinstance(node, ast.Attribute) and node.attr in names) or (
                isinstance(node, ast.Name) and node.id in names
            )
            if not hit:
                continue
            up = parents.get(node)
            while up is not None and not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                up = parents.get(up)
            if up is None:
                found.append(f"{path.name}:{node.lineno}")
    assert not found, f"module-level reads of the environment: {found}"


SETTINGS = PACKAGE / "base" / "settings.py"

COMPAT = PACKAGE / "compat"

OURS = re.compile(r"\bTEMPORAL_TASKS_[A-Z0-9_]+")


# What reads or changes the process environment: os.environ / os.environb / os.getenv / os.putenv / os.unsetenv.
ENV_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}

WRITERS = {"putenv", "unsetenv"}

MUTATORS = {"__setitem__", "__delitem__", "setdefault", "update", "pop", "popitem", "clear", "setenv", "delenv"}


def _modules() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py"))}


def environment_reads(tree: ast.Module) -> list[int]:
    """Lines that touch the process environment (``os.environ``, ``getenv``, ``from os import environ``, ...)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ENV_NAMES:
            found.append(node.lineno)
        elif isinstance(node, ast.Name) and node.id in ENV_NAMES:
            found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [node.lineno for alias in node.names if alias.name in ENV_NAMES]
    return found


def _is_environ(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr in ("environ", "environb")) or (
        isinstance(node, ast.Name) and node.id in ("environ", "environb")
    )


def environment_writes(tree: ast.Module) -> list[int]:
    """Lines that change the process environment: ``os.environ[k] = v`` / ``del`` / ``+=``, a changing method of
    ``os.environ`` (``update``, ``setdefault``, ``pop``, ...), ``os.putenv``/``os.unsetenv``, and pytest's
    ``monkeypatch.setenv``/``delenv``."""
    found = []
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        found += [t.lineno for t in targets if isinstance(t, ast.Subscript) and _is_environ(t.value)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner, name = node.func.value, node.func.attr
            if (name in MUTATORS and _is_environ(owner)) or name in WRITERS or name in ("setenv", "delenv"):
                found.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in WRITERS:
            found.append(node.lineno)
    return found


def our_variable_literals(tree: ast.Module) -> list[tuple[int, str]]:
    """String constants that are exactly one of our variables' names (``"TEMPORAL_TASKS_PARSER"``): a name of ours
    given a home outside the settings, where a read of it would follow."""
    strings = [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    return [(node.lineno, node.value) for node in strings if OURS.fullmatch(node.value)]


# --------------------------------------------------------------------------- the rules, over the package


def test_only_the_settings_and_compat_read_the_environment():
    found = []
    for path, tree in _modules().items():
        if path == SETTINGS or COMPAT in path.parents:
            continue
        found += [f"{path.relative_to(ROOT)}:{line}" for line in environment_reads(tree)]
    assert found == [], "read the environment through temporal_tasks.base.settings (or compat/ for the launcher's)"


def test_no_module_changes_the_environment():
    found = []
    for path, tree in _modules().items():
        found += [f"{path.relative_to(ROOT)}:{line}" for line in environment_writes(tree)]
    assert found == [], "give a child process its own env= (settings.child_environment), never change os.environ"


def test_our_variables_are_named_only_by_the_settings():
    found = []
    for path, tree in _modules().items():
        if path != SETTINGS:
            found += [f"{path.relative_to(ROOT)}:{line} {name}" for line, name in our_variable_literals(tree)]
    assert found == [], "name our variables with the constants of temporal_tasks.base.settings"


def test_compat_reads_only_the_launchers_variables():
    """compat/ reads lmms-eval's and torch's own variables, never ours."""
    for path in sorted(COMPAT.rglob("*.py")):
        assert not OURS.search(path.read_text(encoding="utf-8")), path


def test_every_variable_named_is_a_setting_and_documented():
    """Every TEMPORAL_TASKS_* name in the package and the task folders is a variable of the settings, and
    docs/data.md lists each of them."""
    known = {v.name for v in settings.VARIABLES}
    constants = {getattr(settings, n) for n in dir(settings) if n.startswith("ENV_")}
    assert constants == known
    named = set()
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "tasks").rglob("*")]:
        if path.is_file() and path.suffix in (".py", ".yaml", ".md", ".json"):
            named |= set(OURS.findall(path.read_text(encoding="utf-8")))
    assert named - known == set()
    documented = set(OURS.findall((ROOT / "docs" / "data.md").read_text(encoding="utf-8")))
    assert known - documented == set()


# --------------------------------------------------------------------------- the checks can fail


@pytest.mark.parametrize(
    "source",
    [
        "import os\nx = os.environ.get('TEMPORAL_TASKS_PARSER')\n",
        "import os\nx = os.getenv('HOME')\n",
        "from os import environ\n",
        "from os import getenv as g\n",
        "import os\nenv = dict(os.environ)\n",
    ],
)
def test_the_read_check_sees_each_kind_of_read(source):
    assert environment_reads(ast.parse(source))


@pytest.mark.parametrize(
    "source",
    [
        "import os\nos.environ['TEMPORAL_TASKS_PARSER'] = 'official'\n",
        "import os\nos.environ.setdefault('X', '1')\n",
        "import os\nos.environ.update(X='1')\n",
        "import os\nos.environ.pop('X', None)\n",
        "import os\ndel os.environ['X']\n",
        "import os\nos.putenv('X', '1')\n",
        "from os import environ\nenviron['X'] = '1'\n",
        "def f(monkeypatch):\n    monkeypatch.setenv('X', '1')\n",
    ],
)
def test_the_write_check_sees_each_kind_of_write(source):
    assert environment_writes(ast.parse(source))


def test_the_write_check_lets_a_copy_for_a_child_pass():
    assert (
        environment_writes(ast.parse("import os\nenv = dict(os.environ)\nenv['X'] = '1'\nenv.pop('Y', None)\n")) == []
    )


def test_the_name_check_sees_a_variable_named_outside_the_settings():
    assert our_variable_literals(ast.parse('ENV = "TEMPORAL_TASKS_STRICT"\n')) == [(1, "TEMPORAL_TASKS_STRICT")]
    assert our_variable_literals(ast.parse('prefix = "TEMPORAL_TASKS_"\nmsg = "set TEMPORAL_TASKS_STRICT=1"\n')) == []
