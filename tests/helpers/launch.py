"""What the several-process tests share: a free local port for the launcher, and metrics compared with NaN equal."""

from __future__ import annotations

import math
import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (the launcher's rendezvous port)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def comparable(metrics: dict) -> dict:
    """``metrics`` with NaN as None, so two runs' dicts compare equal when both have NaN for a key."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in metrics.items()}
