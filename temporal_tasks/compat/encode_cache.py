"""lmms-eval's per-message encode cache repeats video frames: probe it, repair it, say what was done.

The defect (lmms-eval 0.7.0 to 0.7.3, and its main branch at 2026-08-06): ``models/model_utils/media_encoder.
_build_cache_key`` keys a PIL image by ``("obj", id(image), ...)``. ``ChatMessages.to_openai_messages`` (and
``to_qwen3_vl_openai_messages``) make one cache per message and encode each video frame from a fresh
``Image.fromarray(...)``, which is freed an iteration later. CPython reuses the freed object's address, so a later
frame gets the same ``id()`` and the cache hands back the base64 of an earlier frame: the model is sent one frame
twice and another never. Every adapter that sends frames through ``to_openai_messages`` is affected
(:data:`AFFECTED_ADAPTERS`); local Hugging Face models pass tensors and are not.

:func:`probe_repeats` reproduces it: the real ``to_openai_messages`` on a synthetic video of
:data:`PROBE_FRAMES` distinct frames (its ``fetch_video`` stood in for, so nothing is decoded); any repeated frame is
the defect. Whether CPython hands a freed frame's address to the next one depends on the allocator's state, so a
plain try can miss it (on lmms-eval 0.7.3 a 32-frame try repeated a frame in 2,000 of 2,000 tries in one process, and
none of three in a freshly forked one: the probe then said "no defect" and nothing was repaired). The first try
therefore runs with ``media_encoder``'s ``id`` stood in for, in the probing thread only, by one address for every
object, the case the allocator may always produce: an ``id()``-keyed cache then repeats a frame every time, and a
cache that tells images apart some other way (by content, by a held object, or no cache) does not. The other tries
are plain, for a release that reaches addresses some other way.

:func:`repair_encode_cache` applies the repair only when the probe finds the defect, then probes again: the cache
key of a PIL image holds the image itself (compared by identity, as ``id()`` meant), so a keyed image stays alive as
long as its cache entry and its address cannot be reused. Same images, same cache hits; no other behaviour changes.
When an lmms-eval release fixes the defect, the probe finds none and nothing is patched.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "AFFECTED_ADAPTERS",
    "PROBE_FRAMES",
    "EncodeCacheCheck",
    "probe_repeats",
    "repair_encode_cache",
]

# The lmms-eval model modules whose requests send video frames through ChatMessages.to_openai_messages (0.7.3):
# chat `openai` (and `litellm`, its subclass), `async_openai` and `vllm`. `simple/openai.py` encodes without a
# cache, and `vllm_generate` builds Hugging Face messages: neither is affected.
AFFECTED_ADAPTERS = (
    "lmms_eval.models.chat.openai",
    "lmms_eval.models.chat.async_openai",
    "lmms_eval.models.chat.vllm",
    "lmms_eval.models.chat.litellm",
)
PROBE_FRAMES = 32
_PROBE_TRIES = 3
_REPAIRED = "_temporal_tasks_original_key"
# The thread whose media_encoder lookups of `id` see one address for every object (probe_repeats' first try).
_ONE_ADDRESS = threading.local()
# One probe or patch at a time (lmms-eval's --process_docs_parallel builds tasks in threads).
_LOCK = threading.Lock()


@dataclass(frozen=True)
class EncodeCacheCheck:
    """What the probe found in the installed lmms-eval and what was done about it."""

    defect: bool | None  # the encode cache repeated frames (None: no to_openai_messages video path to probe)
    repaired: bool  # our repair is in place and the probe then sent every frame once, in order
    detail: str  # one sentence for the log

    def record(self) -> dict[str, bool | None]:
        """The provenance record's ``encode_cache`` part."""
        return {"defect": self.defect, "repaired": self.repaired}


class _Held:
    """A cache-key part that holds an object and compares by identity (what ``id(obj)`` meant), so the object
    lives as long as the key and its address cannot be handed to another image meanwhile."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Held) and other.obj is self.obj


def _holding_key(original: Callable[..., tuple]) -> Callable[..., tuple]:
    @functools.wraps(original)
    def build_cache_key(image: Any, **kwargs: Any) -> tuple:
        key = original(image, **kwargs)
        if isinstance(image, str) or not key or key[0] != "obj":
            return key  # file paths are keyed by path, size and mtime: not affected
        return (key[0], _Held(image), *key[2:])

    setattr(build_cache_key, _REPAIRED, original)
    return build_cache_key


def _probe_frames(count: int) -> Any:
    """``count`` distinct 4x4 RGB frames as ``fetch_video`` returns them (a uint8 tensor, T x C x H x W)."""
    import torch

    frames = torch.zeros((count, 3, 4, 4), dtype=torch.uint8)
    for i in range(count):
        frames[i, 0, i // 16 % 4, i % 4] = 255  # where the dot is says which frame it is
        frames[i, 1, 0, 0] = i
    return frames


def _one_address_id(obj: object) -> int:
    """``media_encoder``'s ``id`` during a probe: 0 for every object in the probing thread (as if each frame took the
    freed address of the one before), the real ``id`` in any other thread."""
    return 0 if getattr(_ONE_ADDRESS, "on", False) else id(obj)


@contextlib.contextmanager
def _every_object_at_one_address(module: Any) -> Iterator[None]:
    """Within the block, ``module``'s global ``id`` gives one address for every object, in this thread only."""
    missing = object()
    before = module.__dict__.get("id", missing)
    module.id = _one_address_id
    _ONE_ADDRESS.on = True
    try:
        yield
    finally:
        _ONE_ADDRESS.on = False
        if before is missing:
            del module.id
        else:
            module.id = before


def probe_repeats(frames: int = PROBE_FRAMES, tries: int = _PROBE_TRIES) -> bool | None:
    """Whether ``ChatMessages.to_openai_messages`` sends some frame of a ``frames``-frame video twice (in any of
    ``tries`` messages; the first with every frame at one address, see the module docstring). None: this lmms-eval
    has no such video path (no ``ChatMessages``, no ``fetch_video``).

    The real method runs with its module's ``fetch_video`` stood in for by the synthetic frames: no file, no decoder.
    """
    try:  # imported here: this module loads without lmms-eval (tools, rescore); the probe runs at task build
        import lmms_eval.protocol as protocol
    except ImportError:
        return None
    chat = getattr(protocol, "ChatMessages", None)
    if chat is None or getattr(protocol, "fetch_video", None) is None:
        return None
    try:
        from lmms_eval.models.model_utils import media_encoder
    except ImportError:
        media_encoder = None
    video = _probe_frames(frames)
    message = chat(messages=[{"role": "user", "content": [{"type": "video", "url": "temporal-tasks-probe.mp4"}]}])

    def repeats() -> bool:
        content = message.to_openai_messages(video_kwargs={"nframes": frames})[0]["content"]
        urls = [part["image_url"]["url"] for part in content if part.get("type") == "image_url"]
        if len(urls) != frames:
            raise RuntimeError(f"the probe's {frames}-frame video came back as {len(urls)} images")
        return len(set(urls)) < len(urls)

    original = protocol.fetch_video
    protocol.fetch_video = lambda _arg: video
    try:
        for attempt in range(tries):
            if attempt == 0 and media_encoder is not None:
                with _every_object_at_one_address(media_encoder):
                    found = repeats()
            else:
                found = repeats()
            if found:
                return True
    finally:
        protocol.fetch_video = original
    return False


def repair_encode_cache(enabled: bool = True) -> EncodeCacheCheck:
    """Probe the installed lmms-eval and, when it repeats frames and ``enabled``, repair its cache key (idempotent).

    Costs one probe (about 1 ms on lmms-eval 0.7.3, where the first try repeats a frame, always) and, after a
    repair, a second one that must find every frame once. A repair already in place is checked, not re-applied; with
    ``enabled`` False it is taken out again (lmms-eval's own key back), so the run sees lmms-eval as it is.
    """
    with _LOCK:
        try:
            from lmms_eval.models.model_utils import media_encoder
        except ImportError:
            media_encoder = None
        key = getattr(media_encoder, "_build_cache_key", None)
        original = getattr(key, _REPAIRED, None)
        if original is not None:
            if enabled:
                fixed = probe_repeats() is False
                return EncodeCacheCheck(True, fixed, _detail(True, fixed, enabled))
            media_encoder._build_cache_key = key = original  # an earlier evaluation of this process repaired it
        repeats = probe_repeats()
        if not repeats or not enabled or key is None:
            return EncodeCacheCheck(repeats, False, _detail(repeats, False, enabled))
        media_encoder._build_cache_key = _holding_key(key)
        fixed = probe_repeats() is False
        return EncodeCacheCheck(True, fixed, _detail(True, fixed, enabled))


def _detail(defect: bool | None, repaired: bool, enabled: bool) -> str:
    if defect is None:
        return "this lmms-eval has no ChatMessages video path to probe; nothing was changed"
    if not defect:
        return "lmms-eval's encode cache sent every frame once, in order; nothing was changed"
    found = (
        f"lmms-eval's encode cache repeated a video frame in a {PROBE_FRAMES}-frame probe (media_encoder keys images "
        "by id(); docs/models.md)"
    )
    if repaired:
        return f"{found}: repaired (each cached image is held by its key); API and vLLM chat models get every frame"
    if not enabled:
        return (
            f"{found}: NOT repaired (the repair is switched off); the openai, async_openai, vllm and litellm chat "
            "models may be sent repeated frames, and their numbers are not comparable with a repaired run"
        )
    return (
        f"{found}: the repair did not take (the probe still repeats a frame); the openai, async_openai, vllm and "
        "litellm chat models may be sent repeated frames"
    )
