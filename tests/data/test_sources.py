"""Where a benchmark's files come from (``data/sources.py``): online, each task downloads only the files it needs (a
fake ``snapshot_download``, no network) and TimeBlind's tags come once from GitHub; archives extract atomically,
once, and a broken one is a clear error."""

from __future__ import annotations

import fnmatch
import multiprocessing as mp
import shutil
import zipfile
from pathlib import Path

import pytest

from temporal_tasks.api.registry import registered
from temporal_tasks.benchmarks.temporalbench import tasks as temporalbench
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.benchmarks.velociti import loader as velociti_loader
from temporal_tasks.benchmarks.velociti import tasks as velociti
from temporal_tasks.benchmarks.vinoground import tasks as vinoground
from temporal_tasks.data import sources as data
from temporal_tasks.data.sources import DataError, extract_zip

COMMIT = "0123456789abcdef0123456789abcdef01234567"

REPO_BENCH = {spec.hf_repo: name for name, spec in registered().items()}


class FakeHub:
    """Records every ``snapshot_download`` call and serves the matching fixture files into a snapshot folder."""

    def __init__(self, source: Path, hub: Path) -> None:
        self.source, self.hub = source, hub
        self.calls: list[dict] = []

    def __call__(self, **kwargs) -> str:
        self.calls.append(kwargs)
        bench = REPO_BENCH[kwargs["repo_id"]]
        snap = self.hub / bench / "snapshots" / COMMIT
        snap.mkdir(parents=True, exist_ok=True)
        patterns = kwargs.get("allow_patterns")
        for f in sorted((self.source / bench).rglob("*")):
            rel = f.relative_to(self.source / bench).as_posix()
            # huggingface_hub filters with fnmatch, where `*` also crosses `/`
            if f.is_file() and (patterns is None or any(fnmatch.fnmatch(rel, p) for p in patterns)):
                (snap / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, snap / rel)
        return str(snap)

    def patterns(self) -> list[list[str] | None]:
        return [c.get("allow_patterns") for c in self.calls]

    def files(self, bench: str) -> set[str]:
        snap = self.hub / bench / "snapshots" / COMMIT
        return {p.relative_to(snap).as_posix() for p in snap.rglob("*") if p.is_file()}


@pytest.fixture
def hub(fixture_root, tmp_path, monkeypatch) -> FakeHub:
    import huggingface_hub

    fake = FakeHub(fixture_root, tmp_path / "hub")
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake)
    monkeypatch.delenv("TEMPORAL_TASKS_DATA_DIR", raising=False)
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TEMPORAL_TASKS_TIMEBLIND_TAGS", raising=False)
    return fake


def _only_documented_kwargs(fake: FakeHub) -> None:
    # resumable downloads and the progress bar are snapshot_download's defaults: nothing may turn them off
    for call in fake.calls:
        assert set(call) <= {"repo_id", "repo_type", "allow_patterns", "revision"}, call
        assert call["repo_type"] == "dataset"


TB_SHORT = ["temporalbench_short_qa.json", "short_video*"]

TB_LONG = ["temporalbench_long_qa.json", "long_video*"]


@pytest.mark.parametrize(
    ("task", "load", "bench", "expected"),
    [
        ("timeblind_iacc", lambda: timeblind.load_docs(), "timeblind", ["data.jsonl", "tags.json", "videos/*"]),
        ("vinoground_text", lambda: vinoground.load_docs(variant="text"), "vinoground",
         ["vinoground.csv", "vinoground_textscore.json", "vinoground_videos.zip"]),
        ("vinoground_video", lambda: vinoground.load_docs(variant="video"), "vinoground",
         ["vinoground.csv", "vinoground_videoscore.json", "vinoground_videos.zip"]),
        ("vinoground_group", lambda: vinoground.load_docs(variant="group"), "vinoground",
         ["vinoground.csv", "vinoground_textscore.json", "vinoground_videoscore.json", "vinoground_videos.zip"]),
        ("vinoground_group_official", lambda: vinoground.load_docs(variant="official"), "vinoground",
         ["vinoground.csv", "vinoground_textscore.json", "vinoground_videoscore.json", "vinoground_videos.zip",
          "vinoground_videos_concated.zip"]),
        ("vinoground_text_blind", lambda: vinoground.load_docs(variant="text_blind"), "vinoground",
         ["vinoground.csv", "vinoground_textscore.json"]),
        ("temporalbench_short_mba", lambda: temporalbench.load_qa("short_qa"), "temporalbench", TB_SHORT),
        ("temporalbench_long_mba", lambda: temporalbench.load_qa("long_qa"), "temporalbench", TB_LONG),
        ("temporalbench_caption_sim", lambda: temporalbench.load_caption_docs(), "temporalbench",
         ["temporalbench_short_caption.json", "short_video*"]),
        ("velociti_strictvle", lambda: velociti.load_docs(kind="entail"), "velociti",
         ["*.parquet", "velociti_videos.zip"]),
    ],
)  # fmt: skip
def test_each_task_downloads_only_its_files(hub, task, load, bench, expected):
    docs = load()
    assert docs, task
    assert hub.patterns() == [expected], task  # one call, with exactly these patterns
    assert hub.calls[0]["repo_id"] == data.hf_repo(bench)
    _only_documented_kwargs(hub)
    got = hub.files(bench)
    if task == "temporalbench_short_mba":
        assert not any(f.startswith("long_video") for f in got) and "short_video.zip" in got
    if task == "temporalbench_long_mba":
        assert "short_video.zip" not in got and {"long_video_COIN.zip", "long_video_part_aa"} <= got
    if task == "vinoground_text_blind":
        assert not any(f.endswith(".zip") for f in got) and all(d["videos"] == [] for d in docs)
    if task == "vinoground_text":
        assert "vinoground_videos_concated.zip" not in got


@pytest.mark.parametrize(
    ("load", "bench", "expected"),
    [
        (lambda: timeblind.load_docs(), "timeblind", ["data.jsonl", "tags.json"]),
        (lambda: vinoground.load_docs(variant="text_blind"), "vinoground",
         ["vinoground.csv", "vinoground_textscore.json"]),
        (lambda: temporalbench.load_qa("short_qa"), "temporalbench", ["temporalbench_short_qa.json"]),
        (lambda: velociti.load_docs(kind="entail"), "velociti", ["*.parquet"]),
    ],
)  # fmt: skip
def test_language_only_loads_fetch_no_video(hub, load, bench, expected):
    # lm-eval's text-only controls: the annotation files are fetched and validated, no video is downloaded,
    # extracted or checked (the same loaders otherwise stop on a missing video).
    with data.language_only():
        docs = load()
    assert docs and hub.patterns() == [expected]
    got = hub.files(bench)
    assert not any(f.endswith(".zip") or f.endswith(".mp4") or "_part_" in f for f in got), got
    assert not (Path(data.cache_root()) / "extracted").exists()  # nothing extracted either
    assert data.media_needed()  # the switch ends with the block


def test_the_mba_group_adds_the_long_files_to_the_same_snapshot(hub):
    temporalbench.load_qa("short_qa")
    temporalbench.load_qa("long_qa")
    temporalbench.load_qa("short_qa")  # everything is here already: no third call
    assert hub.patterns() == [TB_SHORT, TB_LONG]
    assert "revision" not in hub.calls[0] and hub.calls[1]["revision"] == COMMIT  # pinned to the first snapshot


def test_a_fallback_archive_is_fetched_when_the_root_json_is_absent(hub, fixture_root, tmp_path):
    # A snapshot without the root text JSON: text_blind falls back to the copy inside the clip zip.
    source = tmp_path / "source"
    shutil.copytree(fixture_root / "vinoground", source / "vinoground")
    (source / "vinoground" / "vinoground_textscore.json").unlink()
    hub.source = source
    docs = vinoground.load_docs(variant="text_blind")
    assert len(docs) == 8
    assert hub.patterns() == [["vinoground.csv", "vinoground_textscore.json"], ["vinoground_videos.zip"]]
    assert hub.calls[1]["revision"] == COMMIT


def test_a_failed_download_is_a_clear_error(hub, monkeypatch):
    import huggingface_hub

    def offline(**_kwargs):
        raise OSError("network unreachable")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    with pytest.raises(
        DataError, match=r"velociti: downloading katha-ai-iiith/VELOCITI failed.*TEMPORAL_TASKS_DATA_DIR"
    ):
        velociti_loader.load_rows()


def test_offline_makes_no_call(hub, offline_env):
    timeblind.load_docs()
    vinoground.load_docs(variant="group")
    assert hub.calls == []


# ----------------------------------------------------------------------------- TimeBlind tags.json


class FakeGitHub:
    """Stands in for ``data.http_get``: records the URLs and serves one body (or raises)."""

    def __init__(self, body: bytes | Exception) -> None:
        self.body, self.urls = body, []

    def __call__(self, url: str, timeout: float) -> bytes:
        self.urls.append((url, timeout))
        if isinstance(self.body, Exception):
            raise self.body
        return self.body


@pytest.fixture
def hub_without_tags(hub, fixture_root, tmp_path, monkeypatch):
    """The Hub layout as it really is: no tags.json (it lives in the GitHub repo)."""
    source = tmp_path / "source"
    shutil.copytree(fixture_root / "timeblind", source / "timeblind")
    (source / "timeblind" / "tags.json").unlink()
    hub.source = source
    return hub


def _tag_keys(docs: list[dict]) -> set[str]:
    return {c for d in docs for c in d["categories"]} - {"yes_no", "multiple_choice"}


def test_online_tags_are_fetched_once_from_github(hub_without_tags, fixture_root, tmp_path, monkeypatch):
    github = FakeGitHub((fixture_root / "timeblind" / "tags.json").read_bytes())
    monkeypatch.setattr(data, "http_get", github)
    docs = timeblind.load_docs()
    assert "Direction" in docs[0]["categories"]
    assert github.urls == [(timeblind.TAGS_URL, pytest.approx(10.0))]
    assert "Baiqi-Li/TimeBlind" in timeblind.TAGS_URL
    cached = tmp_path / "cache" / "timeblind" / "tags.json"
    assert cached.is_file()
    timeblind.load_docs()  # from the cache now
    assert len(github.urls) == 1


def test_tags_env_path_wins_over_github(hub_without_tags, fixture_root, monkeypatch):
    github = FakeGitHub(OSError("must not be called"))
    monkeypatch.setattr(data, "http_get", github)
    monkeypatch.setenv("TEMPORAL_TASKS_TIMEBLIND_TAGS", str(fixture_root / "timeblind" / "tags.json"))
    assert "Direction" in timeblind.load_docs()[0]["categories"]
    assert github.urls == []


@pytest.mark.parametrize("body", [OSError("network unreachable"), b"<html>login</html>"])
def test_tags_unreachable_is_one_warning_never_a_failure(hub_without_tags, monkeypatch, warnings_seen, tmp_path, body):
    github = FakeGitHub(body)
    monkeypatch.setattr(data, "http_get", github)
    docs = timeblind.load_docs()
    timeblind.load_docs()
    assert len(docs) == 16 and _tag_keys(docs) == set()
    assert len(github.urls) == 1  # a failure is not retried in the same process
    assert not (tmp_path / "cache" / "timeblind" / "tags.json").exists()  # an error page is never cached
    text = [w for w in warnings_seen if "per-category keys" in w]
    assert len(text) == 1 and "TEMPORAL_TASKS_TIMEBLIND_TAGS" in text[0] and "\n" not in text[0].strip()


def test_offline_never_fetches_tags(broken_timeblind_copy, monkeypatch, warnings_seen):
    github = FakeGitHub(OSError("must not be called"))
    monkeypatch.setattr(data, "http_get", github)
    (broken_timeblind_copy / "tags.json").unlink()
    docs = timeblind.load_docs()
    assert github.urls == [] and _tag_keys(docs) == set()
    assert any("per-category keys instance_acc_<tag> are off" in w for w in warnings_seen)


def test_malformed_tags_warn_and_run(broken_timeblind_copy, warnings_seen):
    (broken_timeblind_copy / "tags.json").write_text('{"Direction": "not a list"}')
    docs = timeblind.load_docs()
    assert len(docs) == 16 and _tag_keys(docs) == set()
    assert any("must map to a list" in w and "are off" in w for w in warnings_seen)


@pytest.fixture
def broken_timeblind_copy(fixture_root, tmp_path, monkeypatch):
    shutil.copytree(fixture_root / "timeblind", tmp_path / "data" / "timeblind")
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TEMPORAL_TASKS_TIMEBLIND_TAGS", raising=False)
    return tmp_path / "data" / "timeblind"


def test_broken_zip_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    archive = tmp_path / "videos.zip"
    archive.write_bytes(b"PK\x03\x04 this is not really a zip")
    with pytest.raises(DataError, match=r"cannot extract .*videos\.zip.*download it again"):
        extract_zip(archive, "bench")
    assert not list((tmp_path / "cache").rglob("*.mp4"))


# ----------------------------------------------------------------------------- 4. concurrent cache


def _extract_after_barrier(archive: str, cache: str, barrier, queue) -> None:
    import os

    os.environ["TEMPORAL_TASKS_CACHE_DIR"] = cache
    barrier.wait()
    queue.put(str(extract_zip(Path(archive), "bench")))


def _make_zip(path: Path, n: int = 50) -> dict[str, bytes]:
    contents = {f"clips/{i:03d}.mp4": bytes([i % 256]) * (20_000 + i) for i in range(n)}
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in contents.items():
            zf.writestr(name, data)
    return contents


def test_concurrent_extraction_is_atomic(tmp_path):
    archive = tmp_path / "clips.zip"
    contents = _make_zip(archive)
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(3), ctx.Queue()
    procs = [ctx.Process(target=_extract_after_barrier, args=(str(archive), str(tmp_path / "c"), barrier, queue))
             for _ in range(3)]  # fmt: skip
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    targets = {queue.get(timeout=5) for _ in procs}
    assert len(targets) == 1
    target = Path(targets.pop())
    for name, blob in contents.items():
        assert (target / name).read_bytes() == blob
    leftovers = [p.name for p in target.parent.iterdir() if p.name.startswith(".tmp-")]
    assert leftovers == []


def test_interrupted_extraction_is_never_read_as_valid(tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "c"))
    archive = tmp_path / "clips.zip"
    contents = _make_zip(archive, 5)
    target = extract_zip(archive, "bench")
    shutil.rmtree(target)
    # A killed extraction leaves only a temporary folder under a different name ...
    stale = target.parent / f".tmp-{target.name}-999-dead"
    (stale / "clips").mkdir(parents=True)
    (stale / "clips" / "000.mp4").write_bytes(b"half")
    # ... which is never taken for the real thing.
    again = extract_zip(archive, "bench")
    assert again == target and (again / "clips" / "000.mp4").read_bytes() == contents["clips/000.mp4"]
