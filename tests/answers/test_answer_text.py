"""Which part of an answer is read (``answers/answer_text.py``): reasoning cut off inside an opened ``<think>``."""

from __future__ import annotations

import pytest

from temporal_tasks.answers.answer_text import truncated_thinking
from tests.helpers.payloads import CUT_KIMI, CUT_OFF


@pytest.mark.parametrize(
    ("answer", "cut"),
    [
        (CUT_OFF, True),
        (CUT_KIMI, True),
        ("<think>reasoning</think>No", False),
        ("reasoning closed by the template\n</think>\nNo", False),
        ("No", False),
        ("", False),
        (None, False),
        ("<think>a</think><think>second block never closed", True),
    ],
)
def test_truncated_thinking(answer, cut):
    assert truncated_thinking(answer) is cut
