"""The settings: every TEMPORAL_TASKS_* variable read in one module, at call time, typed, with its default and its
error; the environment read there and in compat/ only, and changed nowhere in the package."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from temporal_tasks.base import settings
from temporal_tasks.compat.run_context import Launcher, launcher
from tests.helpers.paths import PACKAGE, ROOT

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


# --------------------------------------------------------------------------- each setting: default, type, error


def _unset(monkeypatch) -> None:
    for variable in settings.VARIABLES:
        monkeypatch.delenv(variable.name, raising=False)


def test_defaults(monkeypatch):
    _unset(monkeypatch)
    assert settings.data_dir() is None
    assert settings.cache_dir() == Path("~/.cache/temporal_tasks").expanduser()
    assert settings.cache_dir(default="/elsewhere") == Path("/elsewhere")
    assert settings.num_frames() is None
    assert settings.parser_mode() == "robust"
    assert settings.caption_model() is None and settings.caption_device() is None
    assert settings.strict() is False
    assert settings.timeblind_tags() is None


def test_values_are_read_when_asked_typed(monkeypatch, tmp_path):
    monkeypatch.setenv(settings.ENV_DATA_DIR, str(tmp_path / "data"))
    monkeypatch.setenv(settings.ENV_CACHE_DIR, str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, " 16 ")
    monkeypatch.setenv(settings.ENV_PARSER, "Official")
    monkeypatch.setenv(settings.ENV_CAPTION_MODEL, str(tmp_path / "model"))
    monkeypatch.setenv(settings.ENV_CAPTION_DEVICE, "cuda:1")
    monkeypatch.setenv(settings.ENV_STRICT, "yes")
    monkeypatch.setenv(settings.ENV_TIMEBLIND_TAGS, str(tmp_path / "tags.json"))
    assert settings.data_dir() == tmp_path / "data" and settings.cache_dir() == tmp_path / "cache"
    assert settings.num_frames() == 16 and settings.parser_mode() == "official"
    assert settings.caption_model() == tmp_path / "model" and settings.caption_device() == "cuda:1"
    assert settings.strict() is True and settings.timeblind_tags() == tmp_path / "tags.json"
    monkeypatch.setenv(settings.ENV_STRICT, "0")  # read again at each call, never kept from an earlier one
    assert settings.strict() is False


@pytest.mark.parametrize(
    ("name", "value", "read", "message"),
    [
        (settings.ENV_NUM_FRAMES, "two", settings.num_frames, "not an integer"),
        (settings.ENV_NUM_FRAMES, "2", settings.num_frames, "at least 3"),
        (settings.ENV_PARSER, "fuzzy", settings.parser_mode, "'robust' .*or 'official'"),
        (settings.ENV_STRICT, "maybe", settings.strict, "set it to 1 .* or 0"),
    ],
)
def test_a_bad_value_names_the_variable_and_the_values_it_takes(monkeypatch, name, value, read, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(settings.SettingError, match=f"{name}=.*{message}") as err:
        read()
    assert isinstance(err.value, ValueError)  # callers that check values catch it as such


def test_folders_for_a_block_leave_the_environment_alone(monkeypatch, tmp_path):
    monkeypatch.setenv(settings.ENV_DATA_DIR, str(tmp_path / "env"))
    before = dict(os.environ)
    with settings.folders(data_dir=tmp_path / "given"):
        assert settings.data_dir() == tmp_path / "given"
        with settings.folders(cache_dir=tmp_path / "cache"):  # an inner block keeps the outer one's data folder
            assert (settings.data_dir(), settings.cache_dir()) == (tmp_path / "given", tmp_path / "cache")
    assert settings.data_dir() == tmp_path / "env" and dict(os.environ) == before


def test_child_environment_is_a_copy(monkeypatch):
    monkeypatch.setenv("TT_PROBE", "here")
    monkeypatch.delenv("TT_OTHER", raising=False)
    env = settings.child_environment({"TT_PROBE": None, "TT_OTHER": "1"})
    assert "TT_PROBE" not in env and env["TT_OTHER"] == "1"
    assert os.environ["TT_PROBE"] == "here" and "TT_OTHER" not in os.environ


def test_secret_values_are_those_set(monkeypatch):
    for name in settings.SECRET_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_TOKEN", "hf_secret_value_123")
    assert settings.secret_values() == ["hf_secret_value_123"]


def test_the_launchers_variables(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert launcher() == Launcher(0, 1, 0, 1)
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    assert launcher() == Launcher(3, 4, 1, 2)
    monkeypatch.setenv("WORLD_SIZE", "many")
    with pytest.raises(ValueError, match="WORLD_SIZE='many' is not an integer"):
        launcher()
