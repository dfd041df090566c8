"""``compat/encode_cache.py``: the probe of lmms-eval's encode cache, the repair, and the contract they rely on.

Contract (``test_contract_*``): lmms-eval's ``ChatMessages.to_openai_messages`` encodes each video frame through
``media_encoder.encode_image_to_base64`` with a per-message cache whose key comes from the module attribute
``media_encoder._build_cache_key``, a tuple ``("obj", id(image), ...)`` for a PIL image; and ``protocol.fetch_video``
is the module attribute the method decodes with. When a release fixes the defect, the probe finds none and nothing is
patched: ``test_contract_installed_lmms_eval_still_repeats_frames`` then fails, saying so.
"""

from __future__ import annotations

import numpy as np
import pytest

from temporal_tasks.compat import encode_cache
from temporal_tasks.compat.encode_cache import EncodeCacheCheck, probe_repeats, repair_encode_cache

media_encoder = pytest.importorskip("lmms_eval.models.model_utils.media_encoder")


@pytest.fixture(autouse=True)
def lmms_eval_as_installed():
    """Each test starts and ends with lmms-eval's own cache key (no repair of an earlier test left in place)."""
    repair_encode_cache(enabled=False)
    yield
    repair_encode_cache(enabled=False)


def test_contract_cache_key_is_a_module_attribute_keyed_by_id():
    from PIL import Image

    image = Image.new("RGB", (2, 2))
    key = media_encoder._build_cache_key(image, image_format="PNG", convert_rgb=False, quality=None)
    assert key[0] == "obj" and key[1] == id(image)
    path_key = media_encoder._build_cache_key("/nonexistent.png", image_format="PNG", convert_rgb=False, quality=None)
    assert path_key[0] == "path"


def test_contract_installed_lmms_eval_still_repeats_frames():
    """The defect is there (lmms-eval 0.7.0 to 0.7.3 and main at 2026-08-06). If this fails, lmms-eval fixed it:
    the repair now turns itself off (the probe finds nothing); update docs/models.md and the README's models table."""
    assert probe_repeats() is True


def test_probe_finds_the_defect_when_no_address_is_reused(monkeypatch):
    """The probe must not hang on the allocator: with every decoded frame kept alive (no address reused, as in the
    fresh process where three plain tries repeated nothing), lmms-eval's own path sends every frame once, yet the
    probe still finds the id()-keyed cache, and the repair still takes."""
    protocol = pytest.importorskip("lmms_eval.protocol")
    kept = []

    def fromarray(*args, **kwargs):
        kept.append(real_fromarray(*args, **kwargs))
        return kept[-1]

    real_fromarray = protocol.Image.fromarray
    monkeypatch.setattr(protocol.Image, "fromarray", fromarray)
    video = encode_cache._probe_frames(encode_cache.PROBE_FRAMES)
    monkeypatch.setattr(protocol, "fetch_video", lambda _arg: video)
    message = protocol.ChatMessages(messages=[{"role": "user", "content": [{"type": "video", "url": "v.mp4"}]}])
    for _ in range(5):  # the premise: plain tries see no repeat here
        content = message.to_openai_messages(video_kwargs={"nframes": encode_cache.PROBE_FRAMES})[0]["content"]
        assert len({part["image_url"]["url"] for part in content}) == encode_cache.PROBE_FRAMES
    monkeypatch.undo()
    monkeypatch.setattr(protocol.Image, "fromarray", fromarray)
    assert probe_repeats(tries=1) is True
    assert repair_encode_cache().record() == {"defect": True, "repaired": True}


def test_one_address_only_in_the_probing_thread_and_only_while_probing():
    """Another thread encoding during a probe keeps real addresses; afterwards media_encoder has no ``id`` of ours."""
    import threading

    seen = {}
    obj = object()
    with encode_cache._every_object_at_one_address(media_encoder):
        seen["probe"] = media_encoder.id(obj)
        other = threading.Thread(target=lambda: seen.update(other=media_encoder.id(obj)))
        other.start()
        other.join()
    assert seen == {"probe": 0, "other": id(obj)}
    assert "id" not in vars(media_encoder)


def test_repair_makes_every_frame_distinct_and_records_it():
    check = repair_encode_cache()
    assert check == EncodeCacheCheck(True, True, check.detail) and "repaired" in check.detail
    assert check.record() == {"defect": True, "repaired": True}
    assert not any(probe_repeats() for _ in range(50))
    again = repair_encode_cache()  # idempotent: checked, not wrapped twice
    assert again.record() == check.record()
    assert media_encoder._build_cache_key._temporal_tasks_original_key.__name__ == "_build_cache_key"


def test_switched_off_it_leaves_lmms_eval_as_it_is():
    repair_encode_cache()
    check = repair_encode_cache(enabled=False)  # and takes an earlier repair out
    assert check.record() == {"defect": True, "repaired": False} and "NOT repaired" in check.detail
    assert not hasattr(media_encoder._build_cache_key, "_temporal_tasks_original_key")
    assert probe_repeats() is True


def test_repaired_key_keeps_the_cache_semantics():
    """The same image object still hits the cache; another object (even with the same pixels) does not; paths are
    keyed as before; the key holds its image, so the image outlives a dropped reference while the key lives."""
    from PIL import Image

    repair_encode_cache()
    kw = {"image_format": "PNG", "convert_rgb": False, "quality": None}
    a, b = Image.new("RGB", (2, 2)), Image.new("RGB", (2, 2))
    key_a = media_encoder._build_cache_key(a, **kw)
    assert key_a == media_encoder._build_cache_key(a, **kw)
    assert key_a != media_encoder._build_cache_key(b, **kw)
    assert hash(key_a) == hash(media_encoder._build_cache_key(a, **kw))
    assert media_encoder._build_cache_key("/x.png", **kw)[:2] == ("path", "/x.png")
    cache: dict = {}
    first = media_encoder.encode_image_to_base64(a, cache=cache)
    assert media_encoder.encode_image_to_base64(a, cache=cache) == first and len(cache) == 1
    held = next(iter(cache))[1].obj
    del a
    assert held.size == (2, 2)  # alive through the key


def test_probe_sees_a_fixed_lmms_eval_and_patches_nothing(monkeypatch):
    """A release that keys images by content (one way upstream may fix it): no defect, no patch."""
    import hashlib

    def content_key(image, *, image_format, convert_rgb, quality):
        if isinstance(image, str):
            return ("path", image, image_format, convert_rgb, quality)
        return ("obj", hashlib.sha256(image.tobytes()).hexdigest(), image_format, convert_rgb, quality)

    monkeypatch.setattr(media_encoder, "_build_cache_key", content_key)
    check = repair_encode_cache()
    assert check.record() == {"defect": False, "repaired": False} and "nothing was changed" in check.detail
    assert media_encoder._build_cache_key is content_key


def test_probe_sees_a_protocol_fix_too(monkeypatch):
    """The one-line upstream fix of docs/models.md (no cache for freshly decoded frames) also reads as fixed."""
    protocol = pytest.importorskip("lmms_eval.protocol")
    original = protocol.ChatMessages.encode_image

    def encode_image(self, image, cache=None, image_format="PNG", quality=None):
        return original(self, image, None if not isinstance(image, str) else cache, image_format, quality)

    monkeypatch.setattr(protocol.ChatMessages, "encode_image", encode_image)
    assert probe_repeats() is False
    assert repair_encode_cache().record() == {"defect": False, "repaired": False}


def test_probe_without_a_video_path(monkeypatch):
    protocol = pytest.importorskip("lmms_eval.protocol")
    monkeypatch.setattr(protocol, "fetch_video", None)
    assert probe_repeats() is None
    check = repair_encode_cache()
    assert check.record() == {"defect": None, "repaired": False} and "nothing was changed" in check.detail


def test_probe_restores_fetch_video_and_frames_are_distinct():
    protocol = pytest.importorskip("lmms_eval.protocol")
    before = protocol.fetch_video
    probe_repeats()
    assert protocol.fetch_video is before
    frames = encode_cache._probe_frames(encode_cache.PROBE_FRAMES).numpy()
    assert len({f.tobytes() for f in frames}) == encode_cache.PROBE_FRAMES
    assert frames.dtype == np.uint8 and frames.shape[1] == 3
