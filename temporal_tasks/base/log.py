"""One logger for the package: lmms-eval's loguru logger, so our lines sit in its output."""

from __future__ import annotations

from loguru import logger

from temporal_tasks.base.run_state import STATE, lock

__all__ = ["first_time", "info_once", "logger", "warn_once"]


def first_time(key: str) -> bool:
    """Whether ``key`` is new in this evaluation (and note it): the one warn-once test of the package."""
    with lock():
        if key in STATE.logged:
            return False
        STATE.logged.add(key)
        return True


def warn_once(message: str, key: str | None = None) -> None:
    """Log ``message`` as a warning the first time it (or ``key``) is seen in this evaluation."""
    if first_time(message if key is None else key):
        logger.warning(message)


def info_once(message: str, key: str | None = None) -> None:
    """Log ``message`` at INFO the first time it (or ``key``) is seen in this evaluation."""
    if first_time(message if key is None else key):
        logger.info(message)
