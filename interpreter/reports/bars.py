"""Bars of text for probabilities, as a terminal and a Markdown handout show them."""
from __future__ import annotations

from functools import lru_cache  # loaded already (re and the expression functions load it)


def bar(fraction: float, width: int = 40) -> str:
    """A horizontal bar of ``fraction`` (0..1) of ``width`` cells, with eighth-cell precision."""
    return _cells(round(max(0.0, min(1.0, fraction)) * width * 8))


@lru_cache(maxsize=1024)
def _cells(eighths: int) -> str:
    """The bar of ``eighths`` eighths of a cell (made once each: a long table has few)."""
    full, part = divmod(eighths, 8)
    return "█" * full + ("" if part == 0 else "▏▎▍▌▋▊▉"[part - 1])
