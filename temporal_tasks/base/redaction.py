"""Keep access tokens out of logs.

lmms-eval 0.7.3 logs its "Evaluation tracker args" at INFO level, including ``HF_TOKEN``.
When lmms-eval is imported we add a loguru patcher that blanks every token value found in the
environment and anything shaped like a Hugging Face token, in every log record.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from loguru import logger

from temporal_tasks.base.settings import secret_values

if TYPE_CHECKING:  # loguru declares its record type in its stubs only
    from loguru import Record

_HF_SHAPE = re.compile(r"\bhf_[A-Za-z0-9]{16,}\b")
MASK = "***"


def redact(text: str) -> str:
    """``text`` with token values (from the environment, or ``hf_...``-shaped) masked."""
    for value in secret_values():
        if len(value) >= 8 and value in text:
            text = text.replace(value, MASK)
    return _HF_SHAPE.sub(MASK, text)


def _patch_record(record: Record) -> None:
    record["message"] = redact(record["message"])


def install_log_redaction() -> None:
    """Add the redacting patcher to loguru's logger (idempotent)."""
    if getattr(install_log_redaction, "_done", False):
        return
    logger.configure(patcher=_patch_record)
    install_log_redaction._done = True  # type: ignore[attr-defined]  # a mark on the function: once per process
