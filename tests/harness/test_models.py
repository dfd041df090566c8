"""Our models' entry point (``harness/models.py``): lmms-eval finds both models."""

from __future__ import annotations

import pytest

pytest.importorskip("decord")
pytest.importorskip("torchvision")


def test_entry_point_registers_both_models():
    from lmms_eval.models import get_model

    from temporal_tasks.harness.first_token_prob import FirstTokenProb
    from temporal_tasks.harness.replay import TemporalReplay

    assert get_model("first_token_prob") is FirstTokenProb
    assert get_model("temporal_replay") is TemporalReplay
