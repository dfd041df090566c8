"""The package's error for bad inputs and the one way a run is ended because of one.

A leaf module: every layer raises :class:`DataError`, and only code running inside lmms-eval calls
:func:`exit_run` (lmms-eval would otherwise swallow the exception and exit 0).
"""

from __future__ import annotations

from typing import NoReturn

from loguru import logger

__all__ = ["DataError", "exit_run"]


class DataError(RuntimeError):
    """A problem with the inputs (benchmark files, answers, settings); the message names the file and the fix."""


def exit_run(exc: DataError) -> NoReturn:
    """End the process with ``exc``'s message and exit status 1.

    lmms-eval catches ordinary exceptions while it builds tasks and models, retries them, and
    then exits 0 unless ``--verbosity DEBUG``. A ``SystemExit`` passes through, so a broken input
    never looks like a successful run.
    """
    logger.error(f"temporal-tasks: {exc}")
    raise SystemExit(f"temporal-tasks: {exc}") from None
