"""``view --frames`` (``tools/view/thumbnails.py``): frames as JPEG data URIs, thumbnails only for the failed
groups' videos, the errors that name what to do (the page itself: tests/e2e/test_view.py)."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.view.thumbnails import add_thumbnails, jpeg_uri


def _image(uri: str) -> Image.Image:
    prefix = "data:image/jpeg;base64,"
    assert uri.startswith(prefix)
    return Image.open(io.BytesIO(base64.b64decode(uri[len(prefix) :])))


def test_a_frame_becomes_a_jpeg_scaled_to_the_height():
    frame = np.zeros((32, 48, 3), dtype=np.uint8)  # 48 x 32
    image = _image(jpeg_uri(frame))
    assert image.format == "JPEG" and image.size == (96, 64)  # 64 high, the aspect kept
    assert _image(jpeg_uri(frame, height=16)).size == (24, 16)
    assert _image(jpeg_uri(np.zeros((100, 1, 3), dtype=np.uint8), height=10)).size == (1, 10)  # never 0 wide


def _task(task: str, outcome: str, question: str) -> dict:
    member = {"q": question}
    return {"task": task, "runs": [None], "groups": [{"id": "g", "r": [{"o": outcome, "m": [member]}]}]}


def test_thumbnails_of_the_failed_groups_only(offline_env):
    data = {"tasks": [_task("timeblind_iacc", "failed", "0"), _task("timeblind_iacc", "right", "5")]}
    assert add_thumbnails(data, 2) == 2  # one video, two frames
    failed, right = data["tasks"]
    assert [name for name, _uris in failed["videos"]] == ["vid_00000_0.mp4"]  # row 0's video
    assert len(failed["videos"][0][1]) == 2 and failed["groups"][0]["r"][0]["m"][0]["v"] == [0]
    assert right["videos"] == [] and "v" not in right["groups"][0]["r"][0]["m"][0]


def test_errors_say_what_to_do(offline_env):
    with pytest.raises(DataError, match="--frames 0: give the number of thumbnails per video"):
        add_thumbnails({"tasks": []}, 0)
    with pytest.raises(DataError, match="question '999' of timeblind_iacc is not in the data here; point "):
        add_thumbnails({"tasks": [_task("timeblind_iacc", "failed", "999")]}, 1)
