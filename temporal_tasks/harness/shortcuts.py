"""Shortcut analyses, as task hooks: the same questions with no visual input, one frame, or shuffled frames.

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
sees exactly these frames. The files (sampling, seeds, encoding, cache keys) are
:mod:`temporal_tasks.video.shortcut_files`; the variants' ``process_docs`` (:func:`load_variant_docs`) build
this rank's files ahead through the scheduler of derived visuals (:class:`temporal_tasks.video.schedule.BuildAhead`,
in the order the model asks; only for a model that reads visuals) and ``doc_to_visual`` waits only for its own
file. The YAMLs name these hooks through the author's kit (``!function temporal_tasks.harness.kit.blind_visual``).
"""

from __future__ import annotations

from pathlib import Path

from temporal_tasks.api.registry import of_task
from temporal_tasks.base.errors import DataError
from temporal_tasks.harness.task_configs import resolve_function, task_config
from temporal_tasks.harness.task_docs import building_task_name, docs_dataset, task_docs
from temporal_tasks.video.cache import FileBuild
from temporal_tasks.video.frame_count import request_num_frames
from temporal_tasks.video.schedule import BuildAhead, announce_frames
from temporal_tasks.video.shortcut_files import cached_visual, shortcut_build, shortcut_frames

# --------------------------------------------------------------------------- doc_to_visual hooks

_OWNER = "shortcuts"  # one background builder for every variant's files


def _single_frame_file(doc: dict, n: int) -> FileBuild:
    return shortcut_build(doc, "single_frame", n)


def _shuffled_file(doc: dict, n: int) -> FileBuild:
    return shortcut_build(doc, "shuffled", n)


# Each variant's files, built ahead of the requests (scope: the variant task, e.g. timeblind_iacc_shuffled).
SINGLE_FRAME = BuildAhead(_OWNER, "shortcut file", _single_frame_file, what="single_frame file")
SHUFFLED = BuildAhead(_OWNER, "shortcut file", _shuffled_file, what="shuffled file")


def _schedule(variant: str) -> BuildAhead:
    return SINGLE_FRAME if variant == "single_frame" else SHUFFLED


def blind_visual(doc: dict) -> list:  # noqa: ARG001 - the doc is the main task's, its video is left out
    """``doc_to_visual`` of ``<task>_blind``: nothing, so the model sees the prompt only."""
    return []


def _visual_file(doc: dict, variant: str) -> Path:
    """The file behind ``doc``'s visual: from this rank's background builds when its task planned them."""
    task = doc.get("shortcut_task")
    n = request_num_frames(
        task or "shortcuts", int(doc.get("shortcut_frames") or 0) or shortcut_frames(), "shortcut visuals"
    )
    if task:
        return _schedule(variant).visual(task, doc, n)  # waits only for this file
    return cached_visual(doc, variant, n)[0]


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


# --------------------------------------------------------------------------- process_docs


def main_docs(main: str) -> list[dict]:
    """The docs of the main task ``main``, from its task config's ``process_docs``, with no build started.

    Read through :func:`temporal_tasks.harness.task_docs.task_docs` (inside ``docs_only()``, where a loader starts no
    video builds: the variants never show the main task's own built videos).
    """
    ref = task_config(main).get("process_docs")
    return task_docs(resolve_function(ref, f"process_docs of {main}"))


def load_variant_docs(main: str, variant: str) -> list[dict]:
    """The docs of ``<main>_<variant>``: the main task's, tagged with the task and N; starts this rank's builds
    when the model reads visuals (:meth:`temporal_tasks.video.schedule.BuildAhead.decide`).

    Inside :func:`temporal_tasks.harness.task_docs.docs_only` it starts (and defers) no build: the docs alone.
    """
    task = f"{main}_{variant}"
    docs = main_docs(main)
    schedule = _schedule(variant)
    when = schedule.decide(task)
    n = shortcut_frames(task, log=announce_frames(when))
    for doc in docs:
        doc["shortcut_task"], doc["shortcut_frames"] = task, n
    schedule.plan(task, docs, n, when)
    return docs  # docs_only() (no builds) or a model that reads no visuals (none built ahead)


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
