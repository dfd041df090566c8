"""``temporal-tasks check-data``: good copies pass with their counts; every broken file is named."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from temporal_tasks.data import sources as data
from temporal_tasks.tools import check


def _cli(data_dir: Path, cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TEMPORAL_TASKS_DATA_DIR=str(data_dir), TEMPORAL_TASKS_CACHE_DIR=str(cache))
    cmd = [sys.executable, "-m", "temporal_tasks", "check-data", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def copy(fixture_root, tmp_path, monkeypatch) -> Path:
    """A private copy of every fixture that a test may damage (in-process checks point at it)."""
    root = tmp_path / "data"
    shutil.copytree(fixture_root, root)
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(root))
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    return root


def _run(capsys, *benchmarks: str) -> tuple[int, str]:
    rc = check.main(list(benchmarks) or None, quiet=False)
    return rc, capsys.readouterr().out


def test_good_copy_passes_and_prints_counts(fixture_root, tmp_path):
    proc = _cli(fixture_root, tmp_path / "cache")
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    for line in ("TimeBlind: ok", "Vinoground: ok", "TemporalBench: ok", "VELOCITI: ok"):
        assert line in out
    # found beside published: 16 of 2,400 TimeBlind rows, 4 of 500 Vinoground pairs, ...
    assert any(ln.split()[:3] == ["rows", "16", "2,400"] for ln in out.splitlines())
    assert any(ln.split()[:3] == ["pairs", "4", "500"] for ln in out.splitlines())
    assert any(ln.split()[:3] == ["questions", "12", "9,867"] for ln in out.splitlines())
    assert any(ln.split()[:3] == ["captions", "3", "1,891"] for ln in out.splitlines())
    assert any(ln.split()[:5] == ["subset", "rows", "per", "test", "1"] for ln in out.splitlines())
    assert "counts differ from the published ones" in out  # a warning only
    assert "every present benchmark is ready" in out


def test_a_clip_missing_inside_the_vinoground_zip_is_named(fixture_root, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(fixture_root / "vinoground", root / "vinoground")
    archive = root / "vinoground" / "vinoground_videos.zip"
    with zipfile.ZipFile(fixture_root / "vinoground" / "vinoground_videos.zip") as src:
        with zipfile.ZipFile(archive, "w") as dst:
            for info in src.infolist():
                if not info.filename.endswith("vinoground_videos/2_neg.mp4"):
                    dst.writestr(info, src.read(info))
    proc = _cli(root, tmp_path / "cache", "--benchmark", "vinoground")
    assert proc.returncode == 1, proc.stdout
    assert "Vinoground: PROBLEMS" in proc.stdout
    assert "ERROR" in proc.stdout and "2_neg.mp4" in proc.stdout and "missing" in proc.stdout


def test_absent_benchmarks_are_listed_and_fail_only_when_named(copy, capsys):
    shutil.rmtree(copy / "velociti")
    rc, out = _run(capsys)
    assert rc == 0 and "VELOCITI: absent" in out
    rc, out = _run(capsys, "velociti", "timeblind")
    assert rc == 1 and "VELOCITI: MISSING" in out and "--benchmark velociti" in out and "TimeBlind: ok" in out


def test_unreadable_container_found_by_the_sampled_decode(copy, capsys):
    # A header that looks like MP4 (passes the load-time check) but nothing decodable after it.
    bad = copy / "timeblind" / "videos" / "vid_00000_0.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypisom" + b"\x00garbage" * 64)
    rc, out = _run(capsys, "timeblind")
    assert rc == 1 and f"{bad}: cannot decode it" in out


def test_broken_archive_is_named(copy, capsys):
    archive = copy / "velociti" / "velociti_videos.zip"
    archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    rc, out = _run(capsys, "velociti")
    assert rc == 1 and f"cannot extract {archive}" in out


def test_missing_video_and_part_files(copy, capsys):
    (copy / "timeblind" / "videos" / "mcq_vid_00001_1.mp4").unlink()
    (copy / "temporalbench" / "temporalbench_long_qa.json").unlink()
    (copy / "vinoground" / "vinoground_videos_concated.zip").unlink()
    rc, out = _run(capsys)
    assert rc == 1
    assert "mcq_vid_00001_1.mp4" in out and "TimeBlind: PROBLEMS" in out
    # a part whose annotation file is absent is not a failure: the other tasks still run
    assert "absent: no temporalbench_long_qa.json" in out and "TemporalBench: ok" in out
    assert "absent: no vinoground_videos_concated.zip" in out and "Vinoground: ok" in out


def test_online_checks_the_hf_cache_and_never_downloads(monkeypatch, capsys, fixture_root):
    import huggingface_hub

    calls = []

    def cached_only(**kwargs):
        calls.append(kwargs)
        if kwargs["repo_id"] == data.hf_repo("timeblind"):
            return str(fixture_root / "timeblind")
        raise huggingface_hub.errors.LocalEntryNotFoundError("not cached")

    monkeypatch.delenv("TEMPORAL_TASKS_DATA_DIR", raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", cached_only)
    rc, out = _run(capsys)
    assert rc == 0 and "TimeBlind: ok" in out and "Vinoground: absent (not in the Hugging Face cache" in out
    assert calls and all(c.get("local_files_only") is True for c in calls)


def test_fixtures_full_through_the_cli(tmp_path):
    cmd = [sys.executable, "-m", "temporal_tasks", "fixtures", "--out", str(tmp_path), "--full"]
    cmd += ["--benchmark", "timeblind"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert len((tmp_path / "timeblind" / "data.jsonl").read_text().splitlines()) == 2400
    assert len(list((tmp_path / "timeblind" / "videos").glob("*.mp4"))) == 1200
    assert not (tmp_path / "vinoground").exists()


def test_unknown_benchmark_names_the_registered_ones():
    from temporal_tasks.api.registry import names

    with pytest.raises(ValueError, match="unknown benchmark.*" + ".*".join(names())):
        check.check(["nosuchbench"])
    with pytest.raises(ValueError, match="unknown benchmark 'nosuchbench'; known: " + ", ".join(names())):
        data.benchmark_data("nosuchbench")


def test_titles_and_published_sizes_come_from_the_specs():
    from temporal_tasks.api.registry import get

    spec = get("velociti")
    assert check.published("velociti", "rows") == spec.published[("velociti", "rows")] == 8792
    assert check.published("velociti", "no such count") is None
    report = check.Report("velociti", None, absent="no folder x")
    assert check.render([report]).startswith(f"{spec.title}: absent (no folder x)")
