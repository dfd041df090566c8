"""``first_token_prob``: an lmms-eval model that scores single-token answers at the first generated position.

``--model first_token_prob --model_args pretrained=CHECKPOINT[,max_frames=N | fps=F][,dtype=…][,scores=…]``
loads any Hugging Face video-language checkpoint that works with ``AutoProcessor`` and
``AutoModelForImageTextToText`` (LLaVA-OneVision-hf, Qwen2-VL, Qwen2.5-VL, …) and does what VELOCITI's
official code does for e(V,C):

- one user turn, the video(s) first then the text, through the checkpoint's own chat template with the
  generation prompt (the template may add its default system prompt, as it does officially);
- frames decoded by the package's shared reader (:func:`temporal_tasks.video.read_frames`): ``max_frames``
  uniformly spaced frames, or ``fps=F`` = one frame mid-way through each ``1/F`` seconds (VELOCITI's
  ``fps=1``: t = 0.5, 1.5, … s);
- one ``generate(max_new_tokens=1)`` call, i.e. one forward pass, and the distribution over the whole
  vocabulary at the first generated position. ``scores=processed`` (default) takes it after the
  checkpoint's logits processors (``repetition_penalty`` from its ``generation_config``), as the official
  ``generate(...).scores[0]``; ``scores=raw`` takes the raw logits.

``loglikelihood`` returns ``(-log softmax[token], is_greedy)`` for a continuation that tokenizes (no leading
space, no special tokens) to exactly one token, and stops with a clear error otherwise. All continuations of
one (context, document) share one forward pass: ``velociti_strictvle_prob`` asks ``Yes`` and ``No`` per
question and the model runs once per question.

``generate_until`` is plain greedy decoding on the same inputs (``max_new_tokens`` and ``until`` from the
task; sampling settings are ignored). For the generated rows of a paper use the checkpoint's own lmms-eval
model, whose preprocessing the papers' numbers were produced with.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from lmms_eval.api.model import lmms
from tqdm import tqdm

from temporal_tasks.base.errors import DataError, exit_run
from temporal_tasks.base.log import logger, warn_once
from temporal_tasks.compat import generate_args, loglikelihood_args
from temporal_tasks.compat.run_context import launcher
from temporal_tasks.video import read_frames_with_metadata

DTYPES = ("auto", "float32", "float16", "bfloat16")
SCORES = ("processed", "raw")


def _as_bool(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes")


def _as_positive(name: str, value: Any, kind: type) -> Any:
    try:
        out = kind(value)
    except (TypeError, ValueError):
        exit_run(DataError(f"first_token_prob: {name}={value!r} is not a number."))
    if out <= 0:
        exit_run(DataError(f"first_token_prob: {name}={value!r} must be positive."))
    return out


class FirstTokenProb(lmms):
    """First-token probabilities (and plain greedy generation) for any ``AutoModelForImageTextToText`` checkpoint."""

    is_simple = True

    def __init__(
        self,
        pretrained: str = "",
        device: str | None = None,
        dtype: str = "auto",
        batch_size: int | str = 1,
        max_frames: int | str = 32,
        fps: float | str | None = None,
        attn_implementation: str | None = None,
        scores: str = "processed",
        trust_remote_code: bool | str = False,
        max_batch_size: Any = None,  # passed by lmms-eval's CLI; batches are fixed-size here
        **kwargs: Any,
    ) -> None:
        super().__init__()
        if kwargs:
            # a typo (max_frames_num, max_num_frames) would otherwise silently run with the default frames
            exit_run(
                DataError(
                    f"first_token_prob: unknown model_args {sorted(kwargs)}. Known: pretrained, device, dtype, "
                    "batch_size (use --batch_size), max_frames, fps, attn_implementation, scores, trust_remote_code."
                )
            )
        if not pretrained:
            exit_run(DataError("first_token_prob: pass --model_args pretrained=<HF checkpoint id or folder>."))
        if str(dtype) not in DTYPES:
            exit_run(DataError(f"first_token_prob: dtype={dtype!r}; use one of {', '.join(DTYPES)}."))
        if str(scores) not in SCORES:
            exit_run(DataError(f"first_token_prob: scores={scores!r}; use processed (official) or raw."))
        self.max_frames = _as_positive("max_frames", max_frames, int)
        self.fps = None if fps in (None, "", "None") else _as_positive("fps", fps, float)
        self.batch_size_per_gpu = _as_positive("batch_size", 1 if batch_size in (None, "") else batch_size, int)
        self.scores = str(scores)
        self.pretrained = str(pretrained)

        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        # Several processes (torchrun or accelerate launch): each scores the shard of documents lmms-eval gives
        # its rank, on its own device. The launchers' variables are the source of truth: inside lmms-eval's CLI
        # a fresh Accelerator() can report a single process on CPU runs.
        launched = launcher()
        if launched.world_size > 1:
            self._rank = launched.rank
            self._world_size = launched.world_size
            on_gpu = device != "cpu" and torch.cuda.is_available()
            self._device = torch.device(f"cuda:{launched.local_rank}") if on_gpu else torch.device("cpu")
        else:
            self._device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        load_kwargs: dict[str, Any] = {"dtype": "auto" if dtype == "auto" else getattr(torch, dtype)}
        if attn_implementation:
            load_kwargs["attn_implementation"] = str(attn_implementation)
        remote = _as_bool(trust_remote_code)
        self.processor = AutoProcessor.from_pretrained(self.pretrained, trust_remote_code=remote)
        self.model = AutoModelForImageTextToText.from_pretrained(
            self.pretrained, trust_remote_code=remote, **load_kwargs
        )
        self.model.to(self._device).eval()
        self.tokenizer = getattr(self.processor, "tokenizer", None) or self.processor
        # Left padding: every row of a batch ends at its generation prompt, so position -1 is the first answer.
        self.tokenizer.padding_side = "left"
        if getattr(self.processor, "chat_template", None) is None and getattr(self.tokenizer, "chat_template", None):
            self.processor.chat_template = self.tokenizer.chat_template
        self._token_ids: dict[str, int] = {}
        logger.info(
            f"first_token_prob: {self.pretrained} on {self._device} (rank {self._rank}/{self._world_size}), "
            f"{f'fps={self.fps}' if self.fps else f'max_frames={self.max_frames}'}, scores={self.scores}, "
            f"batch_size={self.batch_size_per_gpu}"
        )

    @property
    def device(self):
        """The torch device the model runs on."""
        return self._device

    @property
    def batch_size(self) -> int:
        """Documents per forward pass."""
        return self.batch_size_per_gpu

    # ------------------------------------------------------------------ inputs

    def _visual_paths(self, doc_to_visual: Any, doc_id: int, task: str, split: str) -> list[str]:
        if not callable(doc_to_visual):
            return []
        visuals = doc_to_visual(self.task_dict[task][split][doc_id]) or []
        if isinstance(visuals, str):
            visuals = [visuals]
        for v in visuals:
            if not isinstance(v, str):
                exit_run(
                    DataError(
                        f"first_token_prob: task {task} gives a {type(v).__name__} visual; only video file paths "
                        "are supported."
                    )
                )
        return list(visuals)

    def _frames(self, path: str):
        try:
            return read_frames_with_metadata(path, num_frames=self.max_frames, fps=self.fps)
        except Exception as exc:  # an unreadable video must not become a blind answer
            exit_run(DataError(f"first_token_prob: cannot decode {path} ({type(exc).__name__}: {exc})."))

    def prompt(self, context: str, n_videos: int) -> str:
        """The chat-templated prompt: one user turn, the videos first then the text, plus the generation prompt."""
        content: list[dict] = [{"type": "video"} for _ in range(n_videos)]
        content.append({"type": "text", "text": context})
        messages = [{"role": "user", "content": content}]
        return self.processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def _inputs(self, contexts: Sequence[str], videos: Sequence[Sequence[str]]):
        texts = [self.prompt(c, len(v)) for c, v in zip(contexts, videos, strict=True)]
        clips = [self._frames(p) for paths in videos for p in paths]
        kwargs: dict[str, Any] = {"text": texts, "return_tensors": "pt", "padding": True}
        if clips:
            kwargs["videos"] = [frames for frames, _ in clips]
            # the real timing of the sampled frames: without it Qwen2.5-VL assumes 24 fps for its time positions
            kwargs["video_metadata"] = [meta for _, meta in clips]
        inputs = self.processor(**kwargs)
        dtype = self.model.dtype
        # only pixels take the model's dtype: timing tensors (second_per_grid_ts) keep full precision
        return {
            k: (v.to(self._device, dtype) if k.startswith("pixel_values") else v.to(self._device))
            if hasattr(v, "to")
            else v
            for k, v in inputs.items()
        }

    # ------------------------------------------------------------------ scoring

    def first_token_log_probs(self, contexts: Sequence[str], videos: Sequence[Sequence[str]]):
        """``[B, V]`` float32 log-softmax at the first generated position, one forward pass for the batch."""
        import torch

        inputs = self._inputs(contexts, videos)
        with torch.inference_mode():
            out = self.model.generate(
                **inputs,
                max_new_tokens=1,
                do_sample=False,
                num_beams=1,
                output_scores=True,
                output_logits=True,
                return_dict_in_generate=True,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        step = out.scores[0] if self.scores == "processed" else out.logits[0]
        return torch.log_softmax(step.float(), dim=-1).cpu()

    def token_id(self, continuation: str) -> int:
        """The one token of ``continuation`` (tokenized as the paper does: as is, no special tokens)."""
        if continuation not in self._token_ids:
            ids = self.tokenizer.encode(continuation, add_special_tokens=False)
            if len(ids) != 1:
                pieces = self.tokenizer.convert_ids_to_tokens(ids)
                exit_run(
                    DataError(
                        f"first_token_prob: the continuation {continuation!r} is {len(ids)} tokens {pieces} for "
                        f"{self.pretrained}; this model scores single-token answers only (e.g. 'Yes'/'No' with "
                        'target_delimiter: ""). Use the checkpoint\'s own lmms-eval model for longer continuations.'
                    )
                )
            self._token_ids[continuation] = int(ids[0])
        return self._token_ids[continuation]

    def loglikelihood(self, requests) -> list[tuple[float, bool]]:
        """``(-log p(token), token is the argmax)`` per request; one forward pass per (context, document)."""
        keys: list[tuple] = []
        docs: dict[tuple, tuple[str, list[str]]] = {}
        wanted: dict[tuple, set[int]] = {}
        for req in requests:
            ctx, continuation, doc_to_visual, doc_id, task, split = loglikelihood_args(req)
            if callable(continuation):  # plain `loglikelihood` tasks pass doc_to_target itself
                continuation = continuation(self.task_dict[task][split][doc_id])
            token = self.token_id(str(continuation))
            key = (task, split, doc_id, ctx)
            if key not in docs:
                docs[key] = (ctx, self._visual_paths(doc_to_visual, doc_id, task, split))
                wanted[key] = set()
            wanted[key].add(token)
            keys.append((key, token))
        scored: dict[tuple, dict[int, tuple[float, bool]]] = {}
        order = list(docs)
        pbar = tqdm(total=len(order), disable=self.rank != 0, desc="first_token_prob")
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            logp = self.first_token_log_probs([docs[k][0] for k in chunk], [docs[k][1] for k in chunk])
            best = logp.argmax(dim=-1)
            for row, key in enumerate(chunk):
                scored[key] = {t: (-float(logp[row, t]), int(best[row]) == t) for t in wanted[key]}
            pbar.update(len(chunk))
        pbar.close()
        out = []
        for key, token in keys:
            loss, greedy = scored[key][token]
            if math.isnan(loss):
                warn_once("first_token_prob: the model produced NaN scores (try dtype=bfloat16 or float32).")
            out.append((loss, greedy))
        logger.info(f"first_token_prob: {len(requests)} continuation(s) scored with {len(order)} forward pass(es)")
        return out

    # ------------------------------------------------------------------ generation

    def generate_until(self, requests) -> list[str]:
        """Plain greedy decoding on the same inputs (``max_new_tokens`` and ``until`` from the task)."""
        import torch

        out: list[str] = []
        pbar = tqdm(total=len(requests), disable=self.rank != 0, desc="first_token_prob generate")
        reqs = list(requests)
        for start in range(0, len(reqs), self.batch_size):
            chunk = reqs[start : start + self.batch_size]
            contexts, videos, settings = [], [], []
            for req in chunk:
                ctx, gen_kwargs, doc_to_visual, doc_id, task, split = generate_args(req)
                contexts.append(ctx)
                videos.append(self._visual_paths(doc_to_visual, doc_id, task, split))
                settings.append(dict(gen_kwargs or {}))
            if any(float(s.get("temperature") or 0) > 0 for s in settings):
                warn_once("first_token_prob: generation is greedy; the task's temperature is ignored.")
            max_new = max(int(s.get("max_new_tokens") or 128) for s in settings)
            inputs = self._inputs(contexts, videos)
            with torch.inference_mode():
                seqs = self.model.generate(
                    **inputs, max_new_tokens=max_new, do_sample=False, num_beams=1,
                    pad_token_id=self.tokenizer.pad_token_id,
                )  # fmt: skip
            new = seqs[:, inputs["input_ids"].shape[1] :]
            for row, s in enumerate(settings):
                limit = int(s.get("max_new_tokens") or 128)
                text = self.tokenizer.decode(new[row, :limit], skip_special_tokens=True)
                out.append(_cut(text, s.get("until")))
            pbar.update(len(chunk))
        pbar.close()
        return out

    def generate_until_multi_round(self, requests) -> list[str]:
        """Not supported: the tasks of this package are single-turn."""
        raise NotImplementedError("first_token_prob: multi-round generation is not supported.")


def _cut(text: str, until: str | Iterable[str] | None) -> str:
    """``text`` up to the first stop string."""
    if isinstance(until, str):
        until = [until]
    for stop_at in until or ():
        if stop_at and stop_at in text:
            text = text.split(stop_at, 1)[0]
    return text
