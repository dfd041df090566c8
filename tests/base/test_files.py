"""The files the package writes (``base/files.py``): the cache folder, the one atomic write, JSON lines."""

from __future__ import annotations

import json
import threading

import pytest

from temporal_tasks.base import files, settings


def _leftovers(folder):
    return [p.name for p in folder.iterdir() if ".tmp" in p.name]


def test_an_atomic_write_fills_a_temporary_name_then_renames_it(tmp_path):
    seen = []

    def write(tmp):
        seen.append(tmp)
        assert not (tmp_path / "sub" / "out.mp4").exists()  # readers see no file until the rename
        tmp.write_text("whole")

    out = files.atomic_write(tmp_path / "sub" / "out.mp4", write)
    assert out.read_text() == "whole" and out.parent == tmp_path / "sub"
    assert seen[0].parent == out.parent and seen[0].suffix == ".mp4" and seen[0].name.startswith(".out.")
    assert _leftovers(out.parent) == []


def test_a_failed_write_leaves_neither_the_file_nor_its_temporary(tmp_path):
    def write(tmp):
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        files.atomic_write(tmp_path / "out.json", write)
    assert list(tmp_path.iterdir()) == []


def test_a_folder_written_by_two_writers_keeps_the_first_whole_copy(tmp_path):
    out, barrier = tmp_path / "extracted", threading.Barrier(2)

    def write(tmp):
        tmp.mkdir()
        (tmp / "part.txt").write_text(threading.current_thread().name)
        barrier.wait()  # both copies are complete before either is renamed

    threads = [threading.Thread(target=files.atomic_write, args=(out, write), name=f"w{i}") for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (out / "part.txt").read_text() in ("w0", "w1")
    assert _leftovers(tmp_path) == []  # the second copy is removed, not left beside it


def test_two_temporary_names_for_one_file_differ():
    a, b = files.temporary_name(files.Path("x/clip.mp4")), files.temporary_name(files.Path("x/clip.mp4"))
    assert a != b and a.parent == b.parent and a.suffix == ".mp4"


def test_write_jsonl_keeps_non_ascii_and_creates_the_folder(tmp_path):
    path = files.write_jsonl(tmp_path / "a" / "b.jsonl", [{"q": "¿Sí?"}, {"n": 1}])
    text = path.read_text(encoding="utf-8")
    assert "¿Sí?" in text and [json.loads(line) for line in text.splitlines()] == [{"q": "¿Sí?"}, {"n": 1}]


def test_the_cache_root_is_the_settings_folder_created(monkeypatch, tmp_path):
    monkeypatch.setenv(settings.ENV_CACHE_DIR, str(tmp_path / "cache"))
    assert files.cache_root() == tmp_path / "cache" and (tmp_path / "cache").is_dir()
    with settings.folders(None, tmp_path / "other"):
        assert files.cache_root() == tmp_path / "other" and (tmp_path / "other").is_dir()
