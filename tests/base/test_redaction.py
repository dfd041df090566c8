"""Access tokens kept out of logs (``base/redaction.py``): the environment's token values and Hugging Face-shaped
tokens are masked in every log record."""

from __future__ import annotations

from loguru import logger

from temporal_tasks.base import redaction


def test_token_values_from_the_environment_and_hf_shaped_tokens_are_masked(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "secret-value-123")
    monkeypatch.setenv("OPENAI_API_KEY", "short")  # under 8 characters: too likely to be an ordinary word
    text = "args: token=secret-value-123 other=hf_abcdefghijklmnopqrst key=short"
    assert redaction.redact(text) == "args: token=*** other=*** key=short"
    assert redaction.redact("hf_short and hf-like words") == "hf_short and hf-like words"


def test_the_patcher_masks_every_log_record(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "secret-value-456")
    redaction.install_log_redaction()
    redaction.install_log_redaction()  # idempotent
    seen: list[str] = []
    sink = logger.add(lambda message: seen.append(str(message)), format="{message}")
    try:
        logger.info("Evaluation tracker args: token=secret-value-456")
    finally:
        logger.remove(sink)
    assert seen == ["Evaluation tracker args: token=***\n"]
