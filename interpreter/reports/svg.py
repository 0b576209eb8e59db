"""A self-contained SVG bar chart of exact distributions, for a GM to paste into a handout:
one section per table, one bar per outcome with its label and percentage (Japanese text is fine)."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from xml.sax.saxutils import escape

FONT = "'Noto Sans CJK JP', 'Hiragino Sans', 'Yu Gothic', Meiryo, sans-serif"
FONT_SIZE = 13
ROW = 22  # height of one bar row
TITLE = 30  # height of a section title
PAD = 12
BAR_WIDTH = 320
PERCENT_WIDTH = 64
MAX_LABEL_WIDTH = 520
MAX_WIDTH = 1200  # a title longer than this is cut (…)
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class Section:
    """A titled list of (label, probability) rows."""

    title: str | None
    rows: Sequence[tuple[str, Fraction | float]]


def text_width(text: str, size: int = FONT_SIZE) -> float:
    """An estimate of the drawn width: wide East Asian characters (and ambiguous ones such as
    ★ or …, which Japanese fonts draw wide) one em, others about 0.6 em."""
    if text.isascii():
        return len(text) * size * 0.6
    return sum(size if unicodedata.east_asian_width(c) in "WFA" else size * 0.6 for c in text)


def _clip(text: str, width: float, size: int = FONT_SIZE) -> str:
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…"


def _text(value: str) -> str:
    return escape(_INVALID_XML.sub("", value), {'"': "&quot;"})


def render(sections: Sequence[Section]) -> str:
    """The SVG document (a string) drawing every section, one under the other."""
    labels = [label for s in sections for label, _ in s.rows]
    label_width = min(MAX_LABEL_WIDTH, max([text_width(lb) for lb in labels] + [40.0]))
    titles = [text_width(s.title, FONT_SIZE + 2) for s in sections if s.title]
    width = max([PAD * 3 + label_width + BAR_WIDTH + PERCENT_WIDTH]
                + [t + 2 * PAD for t in titles if t + 2 * PAD <= MAX_WIDTH])
    body: list[str] = []
    y = PAD
    for section in sections:
        if section.title:
            y += TITLE
            body.append(f'<text x="{PAD}" y="{y - 10}" font-weight="bold" font-size="{FONT_SIZE + 2}">'
                        f'{_text(_clip(section.title, width - 2 * PAD, FONT_SIZE + 2))}</text>')
        top = max((float(p) for _, p in section.rows), default=0.0) or 1.0
        for label, p in section.rows:
            length = BAR_WIDTH * float(p) / top
            bar_x = PAD * 2 + label_width
            mid = y + ROW / 2
            body.append(f'<text x="{PAD + label_width}" y="{mid + 4:.1f}" text-anchor="end">'
                        f'{_text(_clip(label, label_width))}</text>')
            body.append(f'<rect x="{bar_x:.1f}" y="{y + 3}" width="{length:.2f}" height="{ROW - 6}" '
                        f'fill="#3b6ea5"><title>{_text(label)}: {_percent(p)}</title></rect>')
            body.append(f'<text x="{bar_x + length + 6:.1f}" y="{mid + 4:.1f}">{_percent(p)}</text>')
            y += ROW
        y += PAD
    height = y + PAD
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
            f'viewBox="0 0 {width:.0f} {height}" font-family="{_text(FONT)}" font-size="{FONT_SIZE}">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def _percent(p: Fraction | float) -> str:
    return f"{float(p) * 100:.2f}%"


def bar_chart(rows: Sequence[tuple[str, Fraction | float]], title: str | None = None) -> str:
    """One section's chart."""
    return render([Section(title, rows)])
