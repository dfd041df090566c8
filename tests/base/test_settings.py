"""The settings (``base/settings.py``): every ``TEMPORAL_TASKS_*`` variable read at call time, typed, with its
default and its error; folders for a block; a child's environment; the secret values."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from temporal_tasks.base import settings

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
    assert settings.answer_reading() == "robust"
    assert settings.caption_model() is None and settings.caption_device() is None
    assert settings.strict() is False
    assert settings.timeblind_tags() is None
    assert settings.repair_frames() is True


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
    assert settings.num_frames() == 16 and settings.answer_reading() == "official"
    assert settings.caption_model() == tmp_path / "model" and settings.caption_device() == "cuda:1"
    assert settings.strict() is True and settings.timeblind_tags() == tmp_path / "tags.json"
    monkeypatch.setenv(settings.ENV_STRICT, "0")  # read again at each call, never kept from an earlier one
    assert settings.strict() is False
    for value, want in (("0", False), ("off", False), ("1", True), ("Yes", True), ("", True)):
        monkeypatch.setenv(settings.ENV_REPAIR_FRAMES, value)
        assert settings.repair_frames() is want, value


@pytest.mark.parametrize(
    ("name", "value", "read", "message"),
    [
        (settings.ENV_NUM_FRAMES, "two", settings.num_frames, "not an integer"),
        (settings.ENV_NUM_FRAMES, "2", settings.num_frames, "at least 3"),
        (settings.ENV_PARSER, "fuzzy", settings.answer_reading, "'robust' .*or 'official'"),
        (settings.ENV_STRICT, "maybe", settings.strict, "set it to 1 .* or 0"),
        (settings.ENV_REPAIR_FRAMES, "sometimes", settings.repair_frames, "set it to 1 .* or 0"),
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
