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
sees exactly these frames. :func:`cached_paired_video` keys built files by the clips' contents,
N and the order, writes them atomically (temporary file, then rename) and skips a rebuild on a
cache hit. Only the needed frames are decoded (decord seeks; PyAV fallback decodes once).
"""

from __future__ import annotations

import hashlib
import os
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Sequence
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


def num_frames_from_env(default: int = DEFAULT_NUM_FRAMES) -> int:
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
    if n < 3:
        raise ValueError(
            f"{ENV_NUM_FRAMES}={n}: a paired video needs at least 3 frames (one per clip and one black frame)."
        )
    return n


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


def cached_paired_video(
    first: str | os.PathLike, second: str | os.PathLike, num_frames: int, cache_root: Path | None = None
) -> tuple[Path, bool]:
    """The paired video from the cache, built first if missing; returns ``(path, built_now)``."""
    if cache_root is None:
        from temporal_tasks.data import cache_dir

        cache_root = cache_dir()
    path = paired_cache_path(first, second, num_frames, cache_root)
    if path.is_file() and path.stat().st_size > 0:
        return path, False
    return build_paired_video(first, second, path, num_frames), True


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
    if cache_root is None:
        from temporal_tasks.data import cache_dir

        cache_root = cache_dir()
    targets = [paired_cache_path(a, b, num_frames, cache_root) for a, b in pairs]
    missing = [i for i, t in enumerate(targets) if not t.is_file()]
    bar = None
    if progress and len(missing) >= 8:
        from tqdm import tqdm

        bar = tqdm(total=len(missing), desc=desc, unit="video")

    def build(i: int) -> None:
        if not targets[i].is_file():  # another process may have built it meanwhile
            build_paired_video(pairs[i][0], pairs[i][1], targets[i], num_frames)
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
