"""The report's tables (``tools/report/tables.py``): how a value is written."""

from __future__ import annotations

import math

from temporal_tasks.tools import report
from temporal_tasks.tools.report import (
    fmt_value,
)


def test_fmt_value():
    assert fmt_value(report.Value(31.25, 27.0, 35.5)) == "31.2 [27.0, 35.5]"
    assert fmt_value(report.Value(31.25)) == "31.2"
    assert fmt_value(report.Value(50.0, math.nan, 60.0)) == "50.0"
    assert fmt_value(report.Value(math.nan)) == "NaN"
    assert fmt_value(None) == "–"
