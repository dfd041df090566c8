"""Shortcut analyses: the same questions with no visual input, one frame, or shuffled frames.

Every benchmark paper checks that its questions need the video's temporal order (TimeBlind
Table 4, VELOCITI §5.5, Vinoground's 0-frame row). The variant tasks ``<task>_blind``,
``<task>_single_frame`` and ``<task>_shuffled`` reuse the main task's YAML (``include:``), so
docs, prompt, parser and aggregation are the main task's; only ``doc_to_visual`` changes:

* :func:`blind_visual`: no visual at all (API models send 0 images);
* :func:`single_frame_visual`: one PIL image, one of the N uniformly sampled frames, picked with a seed
  derived from the question id (reproducible; different questions get independent picks);
* :func:`shuffled_visual`: a video of the same N uniformly sampled frames in a seeded random order.

N is the paired-video rule (:func:`temporal_tasks.video.num_frames_in_force`: ``TEMPORAL_TASKS_NUM_FRAMES``,
else the model's frame argument in ``--model_args``, else 32), so a model sampling N frames uniformly
sees exactly these frames. The shuffle is seeded by the clip's contents: every question on one clip
(VELOCITI's C+ and C-, TimeBlind's two questions per video) sees the same shuffled video, and the
cache holds one file per clip. Built files are keyed by content, N and seed, written atomically,
built once across processes and reused; :func:`shortcut_build` describes each file, so the variants'
``process_docs`` (:func:`load_variant_docs`) build this rank's files in the background
(:class:`temporal_tasks.video.BackgroundBuilds`, in the order the model asks; only for a model that reads
visuals, :mod:`temporal_tasks.video.watching`) and ``doc_to_visual`` waits only for its own file;
:func:`prebuild` fills the cache before a run.

Vinoground's video-score questions show two clips in one paired video (clip A, black, clip B).
There, ``single_frame`` is a 3-frame paired video (one seeded frame of each clip, one black frame
between), and ``shuffled`` shuffles each clip's frames *within* its half and keeps the black gap:
the model can still tell which clip is A and which is B, only the temporal order is gone.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from temporal_tasks.api.registry import of_task
from temporal_tasks.base.errors import DataError
from temporal_tasks.base.log import logger
from temporal_tasks.base.run_state import STATE
from temporal_tasks.compat.run_context import rank_share
from temporal_tasks.harness.provenance import SEED_VERSION
from temporal_tasks.harness.task_configs import resolve_function, task_config
from temporal_tasks.harness.task_docs import building_task_name, builds_allowed, docs_dataset, task_docs
from temporal_tasks.video.builds import BackgroundBuilds, build_workers
from temporal_tasks.video.cache import FileBuild, atomic_write, cache_folder, cached_file, content_hash
from temporal_tasks.video.encode import BUILDER_VERSION, codec, frame_rate, save_video
from temporal_tasks.video.frame_count import num_frames_in_force, request_num_frames
from temporal_tasks.video.frames import common_size, letterbox, sample_clip
from temporal_tasks.video.paired import paired_layout
from temporal_tasks.video.watching import AHEAD, AT_FIRST_REQUEST, NOT_AHEAD, when_to_build


def num_frames(label: str = "shortcuts", log: bool = False) -> int:
    """N: the paired-video rule (:func:`temporal_tasks.video.num_frames_in_force`: ``TEMPORAL_TASKS_NUM_FRAMES``,
    else the model's frame argument in ``--model_args``, else 32); a clear error if it is malformed."""
    return num_frames_in_force(label, log=log, what="shortcut visuals")


def seed_for(*parts: object) -> int:
    """A 64-bit seed from ``parts`` (stable across processes and Python versions, unlike ``hash``)."""
    raw = "|".join(["temporal-tasks/shortcuts", f"v{SEED_VERSION}", *map(str, parts)])
    return int.from_bytes(hashlib.sha256(raw.encode()).digest()[:8], "little")


def frame_choice(question_id: str, n: int) -> int:
    """Which of the N sampled frames the single-frame variant shows for ``question_id``."""
    return int(np.random.default_rng(seed_for("single_frame", question_id, n)).integers(n))


def shuffle_order(content: str, n: int) -> np.ndarray:
    """The seeded permutation of ``n`` frames for a clip whose content hash is ``content`` (never the identity)."""
    order = np.random.default_rng(seed_for("shuffled", content, n)).permutation(n)
    if n > 1 and np.array_equal(order, np.arange(n)):
        order = np.roll(order, 1)  # "shuffled" must differ from the original order
    return order


def _key(*parts: object) -> str:
    raw = "|".join(map(str, (*parts, codec()[0], f"v{BUILDER_VERSION}", f"s{SEED_VERSION}")))
    return hashlib.sha1(raw.encode()).hexdigest()[:20]


def _write_png(frame: np.ndarray, out: Path) -> Path:
    from PIL import Image

    return atomic_write(out, lambda tmp: Image.fromarray(frame).save(tmp, format="PNG"))


# --------------------------------------------------------------------------- single clips


def shuffled_cache_path(video: str | os.PathLike, n: int, cache_root: Path | None = None) -> Path:
    """Where the shuffled N-frame video of ``video`` lives (keyed by its contents, N and the seed)."""
    key = _key("shuffled", content_hash(video), n)
    return cache_folder(cache_root) / "shortcuts" / "shuffled" / f"n{n}" / f"{key}.mp4"


def build_shuffled_video(video: str | os.PathLike, out: str | os.PathLike, n: int) -> Path:
    """Write ``out``: the N uniformly sampled frames of ``video`` in :func:`shuffle_order` (always rebuilds)."""
    clip = sample_clip(Path(video), n)
    order = shuffle_order(content_hash(video), n)
    return save_video(list(clip.frames[order]), frame_rate(n, clip.duration), Path(out))


def _shuffled_build(video: str | os.PathLike, n: int, cache_root: Path | None = None) -> FileBuild:
    video, root = Path(video), cache_folder(cache_root)
    return FileBuild(
        key=("shuffled", str(video), n, str(root)),
        target=lambda: shuffled_cache_path(video, n, root),
        build=lambda out: build_shuffled_video(video, out, n),
        what=f"the shuffled video of {video} (N={n})",
    )


def _single_frame_build(
    video: str | os.PathLike, question_id: str, n: int, cache_root: Path | None = None
) -> FileBuild:
    video, root, pick = Path(video), cache_folder(cache_root), frame_choice(question_id, n)

    def target() -> Path:
        key = _key("single_frame", content_hash(video), n, pick)
        return root / "shortcuts" / "single_frame" / f"n{n}" / f"{key}.png"

    return FileBuild(
        key=("single_frame", str(video), n, pick, str(root)),
        target=target,
        build=lambda out: _write_png(sample_clip(video, n).frames[pick], out),
        what=f"the single frame of {video} (frame {pick} of N={n})",
    )


def cached_shuffled_video(video: str | os.PathLike, n: int, cache_root: Path | None = None) -> tuple[Path, bool]:
    """The shuffled video from the cache, built first if missing; returns ``(path, built_now)``."""
    return cached_file(_shuffled_build(video, n, cache_root))


# --------------------------------------------------------------------------- Vinoground paired videos


def _paired_frames(first: Path, second: Path, k: int, gap: int, pick_first, pick_second) -> list[np.ndarray]:
    """Clip A's chosen frames, ``gap`` black frames, clip B's chosen frames, letterboxed to one size."""
    a, b = sample_clip(first, k).frames, sample_clip(second, k).frames
    height, width = common_size(a, b)
    a, b = letterbox(a[pick_first], height, width), letterbox(b[pick_second], height, width)
    return [*a, *np.zeros((gap, height, width, 3), dtype=np.uint8), *b]


def _paired_layout(first: Path, second: Path, variant: str, question_id: str, n: int, root: Path):
    """``(path, k, gap, total, picks)`` of a paired shortcut video (hashes both clips)."""
    k, gap = paired_layout(n)
    ha, hb = content_hash(first), content_hash(second)
    if variant == "shuffled":
        picks, total = (shuffle_order(ha, k), shuffle_order(hb, k)), n
    elif variant == "single_frame":
        picks, gap, total = ([frame_choice(f"{question_id}/A", k)], [frame_choice(f"{question_id}/B", k)]), 1, 3
    else:
        raise ValueError(f"no paired video for the {variant!r} variant")
    key = _key("paired", variant, ha, hb, n, *(p.tolist() if hasattr(p, "tolist") else p for p in picks))
    return root / "shortcuts" / f"paired_{variant}" / f"n{n}" / f"{key}.mp4", k, gap, total, picks


def _paired_build(
    first: str | os.PathLike, second: str | os.PathLike, variant: str, question_id: str, n: int,
    cache_root: Path | None = None,
) -> FileBuild:  # fmt: skip
    first, second, root = Path(first), Path(second), cache_folder(cache_root)
    if variant not in ("shuffled", "single_frame"):
        raise ValueError(f"no paired video for the {variant!r} variant")

    def build(out: Path) -> Path:
        _path, k, gap, total, picks = _paired_layout(first, second, variant, question_id, n, root)
        seconds = sample_clip(first, k).duration + sample_clip(second, k).duration
        return save_video(_paired_frames(first, second, k, gap, *picks), frame_rate(total, seconds), out)

    # single_frame picks depend on the question; shuffled ones only on the clips (one file per clip order)
    ident = question_id if variant == "single_frame" else ""
    return FileBuild(
        key=("paired", variant, str(first), str(second), ident, n, str(root)),
        target=lambda: _paired_layout(first, second, variant, question_id, n, root)[0],
        build=build,
        what=f"the {variant} paired video of {first} and {second} (N={n})",
        hint="Check that both clips decode (re-download them if not).",
    )


# --------------------------------------------------------------------------- doc_to_visual hooks


def _single_video(doc: dict, variant: str) -> str:
    videos: Sequence[str] = doc.get("videos") or []
    if len(videos) != 1:
        raise DataError(
            f"{variant}: question {doc.get('question_id')!r} has {len(videos)} videos; this variant needs exactly one."
        )
    return videos[0]


def blind_visual(doc: dict) -> list:  # noqa: ARG001 - the doc is the main task's, its video is left out
    """``doc_to_visual`` of ``<task>_blind``: nothing, so the model sees the prompt only."""
    return []


def _visual_file(doc: dict, variant: str) -> Path:
    """The file behind ``doc``'s visual: from this rank's background builds when its task planned them."""
    task = doc.get("shortcut_task")
    n = request_num_frames(
        task or "shortcuts", int(doc.get("shortcut_frames") or 0) or num_frames(), "shortcut visuals"
    )
    deferred = STATE.deferred.pop((_OWNER, task), None) if task else None
    if deferred is not None:
        for d in deferred:
            d["shortcut_frames"] = n
        start_background_builds(deferred, variant)
    spec = shortcut_build(doc, variant, n)
    if task:
        return _builds().get_build((task, doc["question_id"]), spec)[0]  # waits only for this file
    return cached_file(spec)[0]


def single_frame_visual(doc: dict) -> list:
    """``doc_to_visual`` of ``<task>_single_frame``: one PIL image (a paired video for two-clip questions)."""
    path = _visual_file(doc, "single_frame")
    if doc.get("paired"):
        return [str(path)]
    from PIL import Image

    with Image.open(path) as img:
        return [img.convert("RGB")]


def shuffled_visual(doc: dict) -> list[str]:
    """``doc_to_visual`` of ``<task>_shuffled``: the path of the shuffled N-frame video."""
    return [str(_visual_file(doc, "shuffled"))]


def shortcut_build(doc: dict, variant: str, n: int, cache_root: Path | None = None) -> FileBuild:
    """The :class:`~temporal_tasks.video.FileBuild` of ``doc``'s ``variant`` file (N = ``n``)."""
    if variant not in ("single_frame", "shuffled"):
        raise ValueError(f"the {variant!r} variant has no file to build (known: single_frame, shuffled)")
    if doc.get("paired"):
        return _paired_build(*doc["videos"], variant, doc["question_id"], n, cache_root)
    if variant == "shuffled":
        return _shuffled_build(_single_video(doc, variant), n, cache_root)
    return _single_frame_build(_single_video(doc, variant), doc["question_id"], n, cache_root)


def cached_visual(doc: dict, variant: str, n: int) -> tuple[Path, bool]:
    """The cached file behind ``doc``'s ``variant`` visual (built first if missing): ``(path, built_now)``.

    The one build-or-reuse entry point: :func:`single_frame_visual`, :func:`shuffled_visual`, the
    background builds and :func:`prebuild` all go through :func:`shortcut_build`, so they read the same files.
    """
    return cached_file(shortcut_build(doc, variant, n))


# --------------------------------------------------------------------------- process_docs: background builds

_OWNER = "shortcuts"


def _builds() -> BackgroundBuilds:
    """This evaluation's background builder of shortcut files."""
    return STATE.builder(_OWNER, lambda: BackgroundBuilds(_OWNER, kind="shortcut file"))


def main_docs(main: str) -> list[dict]:
    """The docs of the main task ``main``, from its task config's ``process_docs``, with no build started.

    Read through :func:`temporal_tasks.harness.task_docs.task_docs` (inside ``docs_only()``, where a loader starts no
    video builds: the variants never show the main task's own built videos).
    """
    ref = task_config(main).get("process_docs")
    return task_docs(resolve_function(ref, f"process_docs of {main}"))


def load_variant_docs(main: str, variant: str) -> list[dict]:
    """The docs of ``<main>_<variant>``: the main task's, tagged with the task and N; starts this rank's builds
    when the model reads visuals (:func:`temporal_tasks.video.watching.when_to_build`).

    Inside :func:`temporal_tasks.harness.task_docs.docs_only` it starts (and defers) no build: the docs alone.
    """
    task = f"{main}_{variant}"
    docs = main_docs(main)
    when = when_to_build(task, f"{variant} file") if builds_allowed() else None
    n = num_frames(task, log=when in (AHEAD, NOT_AHEAD))
    for doc in docs:
        doc["shortcut_task"], doc["shortcut_frames"] = task, n
    if when == AHEAD:
        start_background_builds(docs, variant)
    elif when == AT_FIRST_REQUEST:  # tasks built before `evaluate(lm, task_dict)`: N is known at the first request
        STATE.deferred[(_OWNER, task)] = docs
    return docs  # docs_only() (no builds) or a model that reads no visuals (none built ahead)


def start_background_builds(docs: list[dict], variant: str) -> int:
    """Build this rank's share of ``docs``' ``variant`` files in the background, in request order.

    ``docs`` come from :func:`load_variant_docs`; the share follows lmms-eval's sharding (see
    :func:`temporal_tasks.compat.run_context.rank_share`). Returns the number of distinct files planned.
    """
    share = rank_share(docs)
    if not share:
        return 0
    requests = [
        (
            (d["shortcut_task"], d["question_id"]),
            str(d.get("prompt", "")),
            shortcut_build(d, variant, d["shortcut_frames"]),
        )
        for d in share
    ]
    builds = _builds()
    planned = builds.plan_builds(requests)
    logger.info(
        f"{share[0]['shortcut_task']}: {planned} {variant} files of this rank are checked and built in the "
        f"background ({builds.workers or build_workers()} threads); a question waits only for its own file"
    )
    return planned


def variant_dataset(main: str, variant: str):
    """What the ``process_docs`` of ``<main>_<variant>`` returns: the main task's docs, this rank's files built
    ahead (:func:`load_variant_docs`)."""
    return docs_dataset(lambda: load_variant_docs(main, variant))


def variant_main(variant: str) -> str:
    """The main task of the ``<main>_<variant>`` task whose docs are being built (lmms-eval's, or ``task_docs``')."""
    task = building_task_name()
    main = task.removesuffix(f"_{variant}")
    spec = of_task(task)
    if not task.endswith(f"_{variant}") or spec is None or spec.shortcut_main != main:
        raise DataError(
            f"process_docs_{variant} serves the {variant} variant of a benchmark's shortcut main task "
            f"(<spec.shortcut_main>_{variant}), not {task or 'a task it cannot name'}: point that task's "
            "process_docs at its own loader."
        )
    return main


def process_docs_single_frame(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
    """lmms-eval ``process_docs`` of every ``<main>_single_frame`` task: the main task's docs, files built ahead."""
    return variant_dataset(variant_main("single_frame"), "single_frame")


def process_docs_shuffled(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
    """lmms-eval ``process_docs`` of every ``<main>_shuffled`` task: the main task's docs, files built ahead."""
    return variant_dataset(variant_main("shuffled"), "shuffled")


def prebuild(docs: Sequence[dict], variant: str, n: int | None = None, workers: int | None = None) -> list[Path]:
    """Build every cached visual of ``variant`` for ``docs`` now (e.g. before a GPU run); returns their paths.

    Threads, as for the paired videos: decord and PyAV release the GIL while decoding and encoding.
    """
    n = n or num_frames()
    workers = max(1, min(len(docs), workers or os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [path for path, _built in pool.map(lambda d: cached_visual(d, variant, n), docs)]
