"""Paired videos for two-clip questions: clip A, black frames, clip B, in exactly N frames.

Vinoground's video score asks which of two clips matches a caption, shown as one video. The
paper samples "(N-1)/2 frames from each clip and at least one black frame between them"; the
official files are plain concatenations, so what a model sees depends on clip lengths and on
its sampler. :func:`build_paired_video` writes the paper's input directly:

* ``k = (N - 1) // 2`` frames of the first clip, sampled uniformly over its whole length
  (:func:`uniform_indices`), then ``N - 2k`` black frames (1 for odd N, 2 for even N), then
  ``k`` frames of the second clip;
* frames are letterboxed to one common size (aspect kept, black padding) when the clips differ;
* a constant frame rate, so a time-based sampler sees the three pieces in the same proportions
  as a frame-count sampler; it is chosen so the file lasts about as long as the official
  concatenation (both clips plus a 2-second gap).

A model that samples the same N frames uniformly (e.g. ``max_num_frames=32`` for N=32) then
sees exactly these frames (:func:`resolve_num_frames` takes N from the run's model args when the env
var is unset). :func:`cached_paired_video` keys built files by the clips' contents, N and the order,
writes them atomically (temporary file, then rename), builds each once across processes (a lock
file) and skips a rebuild on a cache hit. :class:`BackgroundBuilds` builds a rank's files ahead of
the model's requests. Only the needed frames are decoded (decord seeks; PyAV fallback decodes once).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import socket
import sys
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

__all__ = [
    "ENV_NUM_FRAMES",
    "DEFAULT_NUM_FRAMES",
    "GAP_SECONDS",
    "build_paired_video",
    "build_paired_videos",
    "cached_paired_video",
    "fps_indices",
    "BackgroundBuilds",
    "FileBuild",
    "cached_file",
    "num_frames_in_force",
    "num_frames_setting",
    "frames_known_now",
    "request_num_frames",
    "paired_build",
    "resolve_num_frames",
    "paired_cache_path",
    "paired_layout",
    "read_frames",
    "read_frames_with_metadata",
    "uniform_indices",
    "num_frames_from_env",
]

ENV_NUM_FRAMES = "TEMPORAL_TASKS_NUM_FRAMES"
DEFAULT_NUM_FRAMES = 32
GAP_SECONDS = 2.0  # the paper's black gap; only used to pick the file's frame rate
BUILDER_VERSION = "2"  # part of the cache key: bump when the output of the builder changes
_MAX_FRAME_CACHE = 4  # sampled-frame arrays kept per process (a clip serves two questions; 720p: ~40 MB each)


def _check_num_frames(n: int, where: str) -> int:
    if n < 3:
        raise ValueError(f"{where}: a paired video needs at least 3 frames (one per clip and one black frame).")
    return n


def num_frames_from_env(default: int | None = DEFAULT_NUM_FRAMES) -> int | None:
    """N for paired videos: ``TEMPORAL_TASKS_NUM_FRAMES`` (an integer >= 3), else ``default``."""
    raw = os.environ.get(ENV_NUM_FRAMES, "").strip()
    if not raw:
        return default
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(
            f"{ENV_NUM_FRAMES}={raw!r} is not an integer; set it to the model's frame count (>= 3)."
        ) from None
    return _check_num_frames(n, f"{ENV_NUM_FRAMES}={n}")


DEFAULT_SOURCE = (
    f"default {DEFAULT_NUM_FRAMES} (no frame setting found; set {ENV_NUM_FRAMES} or the model's frame argument)"
)


def resolve_num_frames(model_setting: tuple[str, int] | None) -> tuple[int, str]:
    """The N in force and where it comes from: the env var, else the model's frame setting, else 32.

    ``model_setting`` is ``(name, value)`` from :func:`temporal_tasks.run_context.model_frame_setting`
    (the model instance's attribute or ``--model_args``; a plain tuple counts as ``--model_args``). The
    source is ``"TEMPORAL_TASKS_NUM_FRAMES"``, ``"model instance attribute max_num_frames=8"``,
    ``"--model_args max_num_frames=8"`` or :data:`DEFAULT_SOURCE`. When the env var and the model differ,
    the env var wins and a warning names both values once.
    """
    from temporal_tasks.log import warn_once

    env = num_frames_from_env(default=None)
    if env is not None:
        if model_setting is not None and model_setting[1] != env:
            name, value = model_setting
            warn_once(
                f"{ENV_NUM_FRAMES}={env} but the model samples {name}={value} frames: paired videos are built "
                f"with N={env}, so the model does not see exactly the paper's split. Unset {ENV_NUM_FRAMES} or "
                "make them equal."
            )
        return env, ENV_NUM_FRAMES
    if model_setting is not None:
        name, value = model_setting
        describe = getattr(model_setting, "describe", None)
        where = describe() if describe is not None else f"--model_args {name}={value}"
        return _check_num_frames(value, where), where
    return DEFAULT_NUM_FRAMES, DEFAULT_SOURCE


_announced: set[str] = set()


def announce(message: str) -> None:
    """Print ``message`` to stderr once per process: lmms-eval sets its models' loggers to WARNING, so an
    INFO line is invisible in a plain script calling ``evaluate()``; the N in force must not be."""
    from temporal_tasks.log import logger

    logger.debug(message)
    if message in _announced:
        return
    _announced.add(message)
    print(f"temporal-tasks: {message}", file=sys.stderr, flush=True)


def num_frames_setting() -> tuple[int, str]:
    """``(N, source)``: the N built videos have in this run, and where it came from (see
    :func:`resolve_num_frames`); for the results' provenance record. A ``ValueError`` on a bad value."""
    from temporal_tasks.run_context import model_frame_setting

    return resolve_num_frames(model_frame_setting())


def num_frames_in_force(label: str, log: bool = False, what: str = "paired videos") -> int:
    """N for this run (:func:`num_frames_setting`); a ``DataError`` on a bad value.

    The one frame rule of every built video (Vinoground's paired videos, the shortcut variants' files).
    ``log=True`` announces the N in force and where it comes from, once per process, on stderr, as
    ``"<label>: <what> have N=... frames (<source>)"``.
    """
    from temporal_tasks.data import DataError

    try:
        n, source = num_frames_setting()
    except ValueError as exc:
        raise DataError(str(exc)) from None
    if log:
        announce(f"{label}: {what} have N={n} frames ({source})")
    return n


def frames_known_now() -> bool:
    """Whether the run's N can be known here: ``TEMPORAL_TASKS_NUM_FRAMES`` is set or an lmms-eval run is on
    the stack (the CLI, ``simple_evaluate``). False while a script builds tasks before ``evaluate(lm, ...)``:
    the model is not known yet, so builds wait for the first request (:func:`request_num_frames`)."""
    from temporal_tasks.run_context import run_context

    return bool(os.environ.get(ENV_NUM_FRAMES, "").strip()) or run_context().where != "none"


def request_num_frames(label: str, planned: int, what: str = "paired videos") -> int:
    """N for a request being served: the N in force when an evaluation is on the stack (the model that asks
    is known there, also for ``evaluate(lm, task_dict)``), else ``planned`` (the docs' N)."""
    from temporal_tasks.run_context import run_context

    if run_context().where in ("none", "command line"):
        return planned
    return num_frames_in_force(label, log=True, what=what)


def paired_layout(num_frames: int) -> tuple[int, int]:
    """``(frames per clip, black frames)`` for ``num_frames`` = N: ``((N-1)//2, N - 2*((N-1)//2))``."""
    if num_frames < 3:
        raise ValueError(f"num_frames={num_frames}: a paired video needs at least 3 frames")
    k = (num_frames - 1) // 2
    return k, num_frames - 2 * k


def uniform_indices(total: int, k: int) -> np.ndarray:
    """``k`` frame indices spread uniformly over ``total`` frames, first and last included.

    ``linspace(0, total-1, k)`` rounded half up; with ``k == 1`` the middle frame. Indices repeat when a
    clip has fewer than ``k`` frames, so the output always has exactly ``k`` frames.
    """
    if total <= 0:
        raise ValueError("a clip with no frames cannot be sampled")
    if k == 1:
        return np.array([(total - 1) // 2], dtype=np.int64)
    return np.floor(np.linspace(0, total - 1, k) + 0.5).astype(np.int64)


# --------------------------------------------------------------------------- decoding


@dataclass(frozen=True)
class _Clip:
    frames: np.ndarray  # (k, H, W, 3) uint8
    duration: float  # seconds
    indices: tuple[int, ...] = ()  # the sampled frame numbers
    total: int = 0  # frames in the file
    native_fps: float = 0.0  # the file's frame rate (0 if unknown)


_frame_cache: OrderedDict[tuple, _Clip] = OrderedDict()
_frame_lock = threading.Lock()


def _file_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns)


Sampling = int | tuple[str, float]
"""How to pick frames: ``k`` uniformly spaced frames, or ``("fps", f)`` (one frame mid-way through each ``1/f`` s)."""


def fps_indices(total: int, native_fps: float, fps: float) -> np.ndarray:
    """VELOCITI's sampler (``utils/clip_utils.process_video``): one frame at the middle of each ``1/fps`` seconds.

    Times ``t = (i + 0.5) / fps`` for every whole interval of the clip, frame ``int(t * round(native_fps))``
    (the official code rounds the native rate); a 10 s clip at ``fps=1`` gives 10 frames, at t = 0.5, …, 9.5 s.
    A clip shorter than one interval gives its middle frame. Without a usable native rate, ``total`` frames
    are taken as one second.
    """
    if total <= 0:
        raise ValueError("a clip with no frames cannot be sampled")
    if fps <= 0:
        raise ValueError(f"fps={fps}: must be positive")
    rate = round(native_fps) if native_fps and native_fps > 0 else total
    rate = max(rate, 1)
    n = int(total / rate * fps + 1e-9)
    if n == 0:
        return np.array([(total - 1) // 2], dtype=np.int64)
    t = (np.arange(n) + 0.5) / fps
    return np.minimum((t * rate).astype(np.int64), total - 1)


def _indices(total: int, native_fps: float, how: Sampling) -> np.ndarray:
    if isinstance(how, tuple):
        return fps_indices(total, native_fps, how[1])
    return uniform_indices(total, how)


def _sample_clip(path: Path, k: Sampling) -> _Clip:
    """The clip's frames sampled as ``k`` says (see :data:`Sampling`), memoised (each clip serves two questions)."""
    key = (*_file_key(path), k)
    with _frame_lock:
        hit = _frame_cache.get(key)
        if hit is not None:
            _frame_cache.move_to_end(key)
            return hit
    clip = _decode_decord(path, k)
    if clip is None:
        clip = _decode_pyav(path, k)
    with _frame_lock:
        _frame_cache[key] = clip
        while len(_frame_cache) > _MAX_FRAME_CACHE:
            _frame_cache.popitem(last=False)
    return clip


def decode_check(path: str | os.PathLike, k: int = 2) -> int:
    """Decode ``k`` frames of ``path`` as a run would; raises if the container is unreadable. Returns k."""
    return len(_sample_clip(Path(path), k).frames)


def read_frames(path: str | os.PathLike, num_frames: int | None = None, fps: float | None = None) -> np.ndarray:
    """Decoded RGB frames ``(T, H, W, 3)`` uint8 of one video: ``fps`` (VELOCITI's mid-interval sampler) when
    given, else ``num_frames`` uniformly spaced frames, first and last included (:func:`uniform_indices`).

    Shared by the models of this package so every one of them sees the frames the docs describe.
    """
    return read_frames_with_metadata(path, num_frames, fps)[0]


def read_frames_with_metadata(
    path: str | os.PathLike, num_frames: int | None = None, fps: float | None = None
) -> tuple[np.ndarray, dict]:
    """:func:`read_frames` plus Hugging Face ``VideoMetadata`` fields (``total_num_frames``, ``fps``,
    ``frames_indices``, ``duration``), so processors that encode time (Qwen2.5-VL's ``second_per_grid_ts``)
    know the real spacing of the frames."""
    if fps is not None and fps > 0:
        how: Sampling = ("fps", float(fps))
    elif num_frames is not None and num_frames > 0:
        how = int(num_frames)
    else:
        raise ValueError(f"read_frames: pass num_frames >= 1 or fps > 0 (got num_frames={num_frames}, fps={fps})")
    clip = _sample_clip(Path(path), how)
    meta = {
        "total_num_frames": clip.total,
        "fps": clip.native_fps or None,
        "frames_indices": list(clip.indices),
        "duration": clip.duration,
    }
    return clip.frames, meta


def _decode_decord(path: Path, k: Sampling) -> _Clip | None:
    try:
        import decord
    except ImportError:
        return None
    try:
        reader = decord.VideoReader(str(path), ctx=decord.cpu(0), num_threads=1)
        total = len(reader)
        fps = float(reader.get_avg_fps() or 0.0)
        idx = _indices(total, fps, k)
        # get_batch seeks to the key frame before each needed frame; nothing else is converted.
        frames = reader.get_batch(idx.tolist()).asnumpy()
    except Exception:  # decord fails on some containers; PyAV reads them
        return None
    duration = total / fps if fps > 0 else float(total)
    return _Clip(np.ascontiguousarray(frames), duration, tuple(idx.tolist()), total, fps)


def _decode_pyav(path: Path, k: Sampling) -> _Clip:
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        total = stream.frames
        if not total:  # no frame count in the header: count packets (no decoding)
            total = sum(1 for p in container.demux(stream) if p.size)
            container.seek(0)
        if not total:
            raise ValueError(f"{path}: no video frames")
        rate = float(stream.average_rate or stream.guessed_rate or 0)
        idx = _indices(total, rate, k)
        n_out = len(idx)
        wanted: dict[int, list[int]] = {}
        for pos, frame_no in enumerate(idx.tolist()):
            wanted.setdefault(frame_no, []).append(pos)
        last = int(idx.max())
        frames: list[np.ndarray | None] = [None] * n_out
        seen = None
        for n, frame in enumerate(container.decode(stream)):
            # one sequential pass; frames not needed are never converted to RGB
            if n in wanted:
                arr = frame.to_ndarray(format="rgb24")
                for pos in wanted[n]:
                    frames[pos] = arr
                seen = arr
            if n >= last:
                break
        # a header frame count can exceed what decodes: reuse the last decoded frame
        for pos in range(n_out):
            if frames[pos] is None:
                if seen is None:
                    raise ValueError(f"{path}: no frame could be decoded")
                frames[pos] = seen
    duration = total / rate if rate > 0 else float(total)
    return _Clip(np.stack(frames), duration, tuple(idx.tolist()), total, rate)


# --------------------------------------------------------------------------- frames


def _even(x: int) -> int:
    return x + (x % 2)


def _letterbox(frames: np.ndarray, height: int, width: int) -> np.ndarray:
    """Resize keeping the aspect ratio, centred on a black ``height`` x ``width`` canvas."""
    h, w = frames.shape[1:3]
    if (h, w) == (height, width):
        return frames
    from PIL import Image

    scale = min(height / h, width / w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    out = np.zeros((len(frames), height, width, 3), dtype=np.uint8)
    top, left = (height - nh) // 2, (width - nw) // 2
    for i, frame in enumerate(frames):
        img = frame if (nh, nw) == (h, w) else np.asarray(Image.fromarray(frame).resize((nw, nh), Image.BILINEAR))
        out[i, top : top + nh, left : left + nw] = img
    return out


def _common_size(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    # the larger clip keeps its resolution; the other is letterboxed into it (even sizes for yuv420p)
    ha, wa = a.shape[1:3]
    hb, wb = b.shape[1:3]
    h, w = (ha, wa) if ha * wa >= hb * wb else (hb, wb)
    return _even(h), _even(w)


def _frame_rate(num_frames: int, seconds: float) -> Fraction:
    # constant rate, so time proportions equal frame proportions; about the official file's length
    fps = Fraction(num_frames / seconds).limit_denominator(1000) if seconds > 0 else Fraction(1)
    return min(max(fps, Fraction(1, 4)), Fraction(60))


def _codec() -> tuple[str, dict[str, str]]:
    import av

    if "libx264" in av.codecs_available:
        # no B-frames: every decoder counts and orders exactly the N frames written. ultrafast encodes
        # 32 frames of 720p about twice as fast as veryfast (bigger files); one thread per rank.
        return "libx264", {"crf": "18", "preset": "ultrafast", "bf": "0", "threads": "1"}
    return "mpeg4", {"qscale": "2"}


def _encode(frames: Sequence[np.ndarray], fps: Fraction, path: Path) -> None:
    import av

    height, width = frames[0].shape[:2]
    codec, options = _codec()
    with av.open(str(path), mode="w", format="mp4") as container:
        stream = container.add_stream(codec, rate=fps)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuv420p"
        stream.options = options
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def _atomic_write(frames: Sequence[np.ndarray], fps: Fraction, out_path: Path) -> Path:
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(f".{out_path.stem}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp.mp4")
    try:
        _encode(frames, fps, tmp)
        os.replace(tmp, out_path)  # atomic: concurrent readers see no file or the whole file
    finally:
        if tmp.exists():
            tmp.unlink()
    return out_path


# --------------------------------------------------------------------------- public API


def build_paired_video(
    first: str | os.PathLike, second: str | os.PathLike, out_path: str | os.PathLike, num_frames: int = 32
) -> Path:
    """Write ``out_path``: N = ``num_frames`` frames, ``first`` clip, black frames, ``second`` clip.

    Each clip gives ``(N-1)//2`` uniformly sampled frames (:func:`uniform_indices`); the
    ``N - 2*((N-1)//2)`` black frames sit between them. Always rebuilds (see
    :func:`cached_paired_video` for the cached form); the write is atomic. Returns ``out_path``.
    """
    k, gap = paired_layout(num_frames)
    first, second, out_path = Path(first), Path(second), Path(out_path)
    a, b = _sample_clip(first, k), _sample_clip(second, k)
    height, width = _common_size(a.frames, b.frames)
    black = np.zeros((gap, height, width, 3), dtype=np.uint8)
    frames = [*_letterbox(a.frames, height, width), *black, *_letterbox(b.frames, height, width)]
    fps = _frame_rate(num_frames, a.duration + GAP_SECONDS + b.duration)
    return _atomic_write(frames, fps, out_path)


_hash_memo: dict[tuple[str, int, int], str] = {}
_hash_lock = threading.Lock()


def content_hash(path: str | os.PathLike) -> str:
    """SHA-1 of a file's bytes, memoised per (path, size, mtime) in this process."""
    path = Path(path)
    key = _file_key(path)
    with _hash_lock:
        hit = _hash_memo.get(key)
    if hit is not None:
        return hit
    h = hashlib.sha1()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    with _hash_lock:
        _hash_memo[key] = digest
    return digest


def paired_cache_path(first: str | os.PathLike, second: str | os.PathLike, num_frames: int, cache_root: Path) -> Path:
    """Where the paired video of (``first``, ``second``, N) lives in ``cache_root``: keyed by contents, N, order."""
    codec, _ = _codec()
    raw = f"{content_hash(first)}|{content_hash(second)}|{num_frames}|{codec}|v{BUILDER_VERSION}"
    key = hashlib.sha1(raw.encode()).hexdigest()[:20]
    return Path(cache_root) / "paired_videos" / f"n{num_frames}" / f"{key}.mp4"


_LOCK_STALE_SECONDS = 600.0  # a lock whose owner cannot be checked (another host) is taken over after this
_HOST = socket.gethostname()


def _ready(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _lock_path(target: Path) -> Path:
    return target.with_name(f".{target.name}.lock")


def _try_lock(lock: Path) -> bool:
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as fh:
        fh.write(f"{_HOST} {os.getpid()}\n")
    return True


def _lock_is_stale(lock: Path) -> bool:
    """True when the lock's owner is gone (dead process on this host, or an old lock from elsewhere)."""
    try:
        owner = lock.read_text().split()
        age = time.time() - lock.stat().st_mtime
    except OSError:
        return False  # just released: the caller looks again
    if len(owner) == 2 and owner[0] == _HOST and owner[1].isdigit():
        try:
            os.kill(int(owner[1]), 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass
        return False
    return age > _LOCK_STALE_SECONDS


def _build_once(target: Path, build: Callable[[Path], object], *, wait: bool = True) -> str:
    """Make ``target`` exist with ``build(target)`` (an atomic writer), at most once across threads and processes.

    A lock file next to the target (created with ``O_EXCL``) names the one builder; everyone else
    waits for the target to appear (``wait=True``) or returns ``"busy"`` at once. A lock left by a
    dead process is taken over. Returns ``"cached"``, ``"built"`` or ``"busy"``.
    """
    lock = _lock_path(target)
    while True:
        if _ready(target):
            return "cached"
        target.parent.mkdir(parents=True, exist_ok=True)
        if _try_lock(lock):
            try:
                if _ready(target):  # finished by someone else between our check and the lock
                    return "cached"
                build(target)
                return "built"
            finally:
                lock.unlink(missing_ok=True)
        if _lock_is_stale(lock):
            lock.unlink(missing_ok=True)
            continue
        if not wait:
            return "busy"
        time.sleep(0.05)


@dataclass(frozen=True)
class FileBuild:
    """One cached file to build: ``key`` (its identity), ``target()`` (its path, computed when needed: it may
    hash the inputs), ``build(path)`` (an atomic writer), and ``what``/``hint`` naming it in an error."""

    key: Hashable
    target: Callable[[], Path]
    build: Callable[[Path], object]
    what: str
    hint: str = "Check that the clip decodes (re-download it if not)."


def cached_file(job: FileBuild) -> tuple[Path, bool]:
    """``job``'s file from the cache, built first if missing (once across processes); ``(path, built_now)``."""
    path = job.target()
    if _ready(path):
        return path, False
    return path, _build_once(path, job.build) == "built"


def _default_cache() -> Path:
    from temporal_tasks.data import cache_dir

    return cache_dir()


def paired_build(
    first: str | os.PathLike, second: str | os.PathLike, num_frames: int, cache_root: Path | None = None
) -> FileBuild:
    """The :class:`FileBuild` of the paired video of ``first`` and ``second`` with N = ``num_frames``."""
    first, second, n = Path(first), Path(second), int(num_frames)
    root = Path(cache_root) if cache_root is not None else _default_cache()
    return FileBuild(
        key=("paired", str(first), str(second), n, str(root)),
        target=lambda: paired_cache_path(first, second, n, root),
        build=lambda out: build_paired_video(first, second, out, n),  # looked up at call time (tests replace it)
        what=f"the paired video of {first} and {second} (N={n})",
        hint="Check that both clips decode (re-download them if not).",
    )


def cached_paired_video(
    first: str | os.PathLike, second: str | os.PathLike, num_frames: int, cache_root: Path | None = None
) -> tuple[Path, bool]:
    """The paired video from the cache, built first if missing; returns ``(path, built_now)``."""
    return cached_file(paired_build(first, second, num_frames, cache_root))


def build_paired_videos(
    pairs: Iterable[tuple[str | os.PathLike, str | os.PathLike]],
    num_frames: int,
    cache_root: Path | None = None,
    *,
    progress: bool = True,
    desc: str = "building paired videos",
    workers: int | None = None,
) -> list[Path]:
    """Cached paired videos for many ``(first, second)`` pairs, with a progress bar when 8+ are missing."""
    pairs = list(pairs)
    cache_root = cache_root if cache_root is not None else _default_cache()
    jobs = [paired_build(a, b, num_frames, cache_root) for a, b in pairs]
    targets = [job.target() for job in jobs]
    missing = [i for i, t in enumerate(targets) if not t.is_file()]
    bar = None
    if progress and len(missing) >= 8:
        from tqdm import tqdm

        bar = tqdm(total=len(missing), desc=desc, unit="video")

    def build(i: int) -> None:
        # another process (a running evaluation's background builds) may own or have built it meanwhile
        _build_once(targets[i], jobs[i].build)
        if bar is not None:
            bar.update(1)

    # decord and PyAV release the GIL while decoding/encoding, so threads use every core.
    workers = max(1, min(len(missing), workers or os.cpu_count() or 1))
    try:
        if workers == 1:
            for i in missing:
                build(i)
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(build, missing))
    finally:
        if bar is not None:
            bar.close()
    return targets


# --------------------------------------------------------------------------- background builds


def build_workers() -> int:
    """Background build threads for this process: the cores it may use / the ranks on this node, at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    try:
        local = int(os.environ.get("LOCAL_WORLD_SIZE", "") or 1)
    except ValueError:
        local = 1
    return max(1, cores // max(1, local))


class _Job:
    """One file to build (a :class:`FileBuild`); ``state`` moves pending -> running -> done/failed."""

    __slots__ = ("spec", "state", "event", "path", "error")

    def __init__(self, spec: FileBuild) -> None:
        self.spec = spec
        self.state = "pending"  # also "running", "busy" (another process builds it), "done", "failed"
        self.event = threading.Event()  # set whenever the job leaves "running"
        self.path: Path | None = None
        self.error: str | None = None


# How lmms-eval may order one rank's requests: as built (doc order; replay, dummy, API models), or
# sorted by its Collator, by prompt length, longest first (the simple Qwen/LLaVA models sort by
# token count, ties by prompt), or by prompt text (chat models). Characters stand in for tokens.
_ORDERINGS = (None, lambda text: (-len(text), text), lambda text: text)
_WINDOW = 3  # a step of 1..3 positions between two requests counts as "following" an ordering


class BackgroundBuilds:
    """Cached files (paired videos, shortcut variants' files) built ahead in background threads, in the
    order the model will ask for them.

    :meth:`plan_builds` registers one rank's requests (each a key, a prompt and the :class:`FileBuild` it
    needs, or ``None``); :meth:`plan` does so for paired videos (a clip pair per request). Up to
    ``workers`` daemon threads (:func:`build_workers`) then build the missing files; ``kind`` names one
    file in the log. :meth:`get_build` (:meth:`get` for paired videos) returns one request's file: at once
    when built, after waiting for it when it is being built, and built right there (ahead of the queue)
    when nobody has started it. Every request it sees (:meth:`observe` for those without a file) tells
    which candidate ordering the model follows (doc order, prompt length, prompt text) and where it is;
    the threads continue from there. Files are built by :func:`_build_once` (atomic, one builder across
    processes). A failed build stops the run at the next request, naming the file (its clips) from
    :attr:`FileBuild.what`; :meth:`shutdown` (also at exit) lets running builds finish and drops the rest.
    """

    def __init__(self, label: str, workers: int | None = None, kind: str = "paired video") -> None:
        self.label = label
        self.workers = workers
        self.kind = kind
        self._lock = threading.Lock()
        self._jobs: dict[Hashable, _Job] = {}
        self._entries: list[tuple[Hashable, str, _Job | None]] = []  # (request key, prompt, job)
        self._orders: list[list[Hashable]] = []
        self._positions: list[dict[Hashable, int]] = []
        self._by_key: dict[Hashable, _Job | None] = {}
        self._planned = 0
        self._seen: list[Hashable] = []
        self._active, self._cursor = 0, -1
        self._threads: list[threading.Thread] = []  # every thread started and maybe alive (joined at exit)
        self._workers: list[threading.Thread] = []  # those still taking jobs
        self._stopping = False
        self._failure: str | None = None
        self._counts = {"built": 0, "cached": 0}
        self._waits = [0, 0.0]  # requests that waited for their video, seconds waited in all
        self._done_keys: set[Hashable] = set()
        self._started_at = 0.0
        self._exit_hook = False

    # -- planning

    def _job(self, spec: FileBuild) -> _Job:
        job = self._jobs.get(spec.key)
        if job is None:
            job = self._jobs[spec.key] = _Job(spec)
        return job

    def plan(
        self,
        requests: Sequence[tuple[Hashable, str, tuple[str, str] | None]],
        num_frames: int,
        cache_root: Path | None = None,
        *,
        start: bool = True,
    ) -> int:
        """Paired videos: :meth:`plan_builds` with ``(key, prompt, (first, second) or None)`` requests."""
        root = cache_root if cache_root is not None else _default_cache()
        specs = [
            (key, prompt, None if pair is None else paired_build(*pair, num_frames, root))
            for key, prompt, pair in requests
        ]
        return self.plan_builds(specs, start=start)

    def plan_builds(self, requests: Sequence[tuple[Hashable, str, FileBuild | None]], *, start: bool = True) -> int:
        """Add ``(key, prompt, FileBuild or None)`` requests in lmms-eval's order; start building.

        Returns how many distinct files this plan needs.
        """
        with self._lock:
            jobs = set()
            for key, prompt, spec in requests:
                if key in self._by_key:  # the same task loaded again in this process
                    continue
                job = None if spec is None else self._job(spec)
                if job is not None:
                    jobs.add(id(job))
                self._entries.append((key, prompt, job))
            self._reorder()
            self._stopping = False
        if start:
            self.start()
        return len(jobs)

    def _reorder(self) -> None:
        self._orders = []
        for order_key in _ORDERINGS:
            if order_key is None:
                keys = [key for key, _p, _j in self._entries]
            else:
                keys = [key for key, _p, _j in sorted(self._entries, key=lambda e: order_key(e[1]))]
            self._orders.append(keys)
        self._positions = [{key: i for i, key in enumerate(order)} for order in self._orders]
        self._by_key = {key: job for key, _p, job in self._entries}
        self._planned = sum(job is not None for job in self._by_key.values())
        self._seen, self._active, self._cursor = [], 0, -1

    def _observe(self, key: Hashable) -> None:
        if key not in self._by_key:
            return
        self._seen = [*self._seen[-15:], key]
        best, best_score = self._active, -1
        for c, pos in enumerate(self._positions):
            steps = zip(self._seen, self._seen[1:], strict=False)
            score = sum(1 for a, b in steps if 0 < pos[b] - pos[a] <= _WINDOW)
            if score > best_score or (score == best_score and c == self._active):
                best, best_score = c, score
        self._active = best
        self._cursor = self._positions[best][key]

    def observe(self, key: Hashable) -> None:
        """Note that the model asked for request ``key`` (one that needs no file)."""
        with self._lock:
            self._observe(key)
        self._check_failure()

    def _next_job(self) -> _Job | None:
        order = self._orders[self._active] if self._orders else []
        n = len(order)
        for step in range(1, n + 1):  # from just after the model's position, then wrapping around
            job = self._by_key[order[(self._cursor + step) % n]]
            if job is not None and job.state == "pending":
                return job
        return None

    # -- threads

    def start(self) -> None:
        """Start the worker threads (idempotent; they end when nothing is left to build)."""
        with self._lock:
            if self._stopping or self._failure is not None or self._next_job() is None:
                return
            self._threads = [t for t in self._threads if t.is_alive()]
            wanted = (self.workers or build_workers()) - len(self._workers)
            if not self._workers:
                self._started_at, self._counts = time.perf_counter(), {"built": 0, "cached": 0}
            for i in range(max(0, wanted)):
                thread = threading.Thread(target=self._work, name=f"{self.label}-build-{i}", daemon=True)
                self._threads.append(thread)
                self._workers.append(thread)
                thread.start()
            if not self._exit_hook:
                atexit.register(self.shutdown)
                self._exit_hook = True

    def _work(self) -> None:
        try:  # Linux: a lower priority for this thread only, so the model's own work (main thread) comes first
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + 10))
        except (AttributeError, OSError):
            pass
        while True:
            with self._lock:
                job = None if self._stopping or self._failure is not None else self._next_job()
                if job is None:
                    self._workers.remove(threading.current_thread())  # stays in _threads until it returns
                    last = not self._workers and not self._stopping and self._failure is None
                    break
                job.state = "running"
                job.event.clear()
            self._run(job, wait=False)
        if last and sum(self._counts.values()):
            from temporal_tasks.log import logger

            logger.info(
                f"{self.label}: background build finished: {self._counts['built']} {self.kind}s built, "
                f"{self._counts['cached']} already cached ({time.perf_counter() - self._started_at:.1f} s)"
            )

    def _run(self, job: _Job, *, wait: bool) -> None:
        try:
            target = job.spec.target()
            outcome = _build_once(target, job.spec.build, wait=wait)
        except Exception as exc:  # noqa: BLE001 - any failure stops the run, named, at the next request
            with self._lock:
                job.state = "failed"
                job.error = (
                    f"{self.label}: could not build {job.spec.what}: {type(exc).__name__}: {exc}. {job.spec.hint}"
                )
                self._failure = self._failure or job.error
        except BaseException:  # interrupted: nobody owns it any more
            with self._lock:
                job.state = "pending"
            raise
        else:
            with self._lock:
                if outcome == "busy":
                    job.state = "busy"  # another process builds it; get() waits for the file
                else:
                    job.state, job.path = "done", target
                    self._counts[outcome] += 1
        finally:
            job.event.set()

    # -- requests

    def _check_failure(self) -> None:
        if self._failure is not None:
            from temporal_tasks.data import DataError, stop

            stop(DataError(self._failure))

    def get(
        self,
        key: Hashable,
        first: str | os.PathLike,
        second: str | os.PathLike,
        num_frames: int,
        cache_root: Path | None = None,
    ) -> tuple[Path, bool]:
        """Request ``key``'s paired video; returns ``(path, waited)`` (waited: it was not ready yet)."""
        return self.get_build(key, paired_build(first, second, num_frames, cache_root))

    def get_build(self, key: Hashable, spec: FileBuild) -> tuple[Path, bool]:
        """Request ``key``'s file (``spec``); returns ``(path, waited)`` (waited: it was not ready yet)."""
        with self._lock:
            self._observe(key)
            job = self._by_key.get(key)
            if job is None or job.spec.key != spec.key:
                job = self._job(spec)  # not planned: built on demand
        self._check_failure()
        waited, start = False, time.perf_counter()
        while True:
            with self._lock:
                state = job.state
                if state in ("pending", "busy"):
                    job.state = "running"  # ours now: build it here, ahead of the queue
                    job.event.clear()
            if state == "done":
                self._served(key, time.perf_counter() - start if waited else None)
                return job.path, waited
            if state == "failed":
                from temporal_tasks.data import DataError, stop

                stop(DataError(job.error or f"{self.label}: {job.spec.what} failed to build"))
            waited = True
            if state in ("pending", "busy"):
                self._run(job, wait=True)
            else:
                job.event.wait()

    def _served(self, key: Hashable, waited: float | None) -> None:
        with self._lock:
            if waited is not None:
                self._waits[0] += 1
                self._waits[1] += waited
            if key not in self._by_key or key in self._done_keys:
                return
            self._done_keys.add(key)
            if len(self._done_keys) < self._planned:
                return
            waits = self._waits
        from temporal_tasks.log import logger

        logger.info(
            f"{self.label}: every {self.kind.replace(' ', '-')} question of this rank served; {waits[0]} waited for "
            f"its file ({waits[1]:.1f} s in all)"
        )

    def shutdown(self, timeout: float = 60.0) -> None:
        """Stop after the builds under way (no torn files, no lock left), drop the rest; join the threads."""
        with self._lock:
            self._stopping = True
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout)

    def alive(self) -> int:
        """Worker threads still running."""
        with self._lock:
            return sum(t.is_alive() for t in self._threads)
