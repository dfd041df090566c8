"""One logger for the package: lmms-eval's loguru logger, so our lines sit in its output."""

from __future__ import annotations

import threading

from loguru import logger

__all__ = ["logger", "warn_once"]

_seen: set[str] = set()
_lock = threading.Lock()


def warn_once(message: str) -> None:
    """Log ``message`` as a warning the first time it is seen in this process."""
    with _lock:
        if message in _seen:
            return
        _seen.add(message)
    logger.warning(message)
