"""VELOCITI's answer parsers: the official scorers' rules (``official`` mode) and our robust readings."""

from __future__ import annotations

from temporal_tasks.harness.kit import Parser, make_robust_letter, register_parser, robust_yes_no


def official_yes_no(text: str) -> str | None:
    """``gemini/closed_model_metrics.py``: case-sensitive substring test; both or neither is an error."""
    has_yes, has_no = "Yes" in text, "No" in text
    if has_yes and not has_no:
        return "yes"
    if has_no and not has_yes:
        return "no"
    return None


def official_mc(text: str) -> str | None:
    """``metrics.py::mcq``: the first whitespace token must be exactly ``A`` or ``B`` (empty is invalid)."""
    tokens = text.split()
    return tokens[0] if tokens and tokens[0] in ("A", "B") else None


YES_NO = register_parser(Parser("velociti_yes_no", ("yes", "no"), robust_yes_no, official_yes_no))
MC = register_parser(Parser("velociti_mc", ("A", "B"), make_robust_letter("AB"), official_mc))
