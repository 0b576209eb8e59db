"""Bars of text for probabilities, as a terminal and a Markdown handout show them."""
from __future__ import annotations


def bar(fraction: float, width: int = 40) -> str:
    """A horizontal bar of ``fraction`` (0..1) of ``width`` cells, with eighth-cell precision."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + ("" if part == 0 else "▏▎▍▌▋▊▉"[part - 1])
