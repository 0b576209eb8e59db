"""The handout's blocks as Markdown or as one self-contained HTML page.

Every text from a document is escaped: Markdown outside code spans gets ``&lt;`` and ``&amp;`` (a title ``<script>`` is shown, never run), table cells their ``|``; HTML escapes all.
The HTML names a Japanese font stack of system fonts (nothing is fetched), prints on A4 (``@page``,
no table or bar cut across pages) and draws probabilities as inline SVG bars, which print as they
show (no background colours to lose)."""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

MARK = "★"
_CODE = re.compile(r"(`[^`]+`)")


@dataclass
class Block:
    """One piece of the handout: a heading, a paragraph, a note (an interpretation), a table or
    probability bars."""

    kind: str  # "heading" | "para" | "note" | "table" | "bars"
    text: str = ""
    level: int = 2
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    marks: list[bool] = field(default_factory=list)
    bars: list[tuple[str, float, float | None]] = field(default_factory=list)  # label, p, base p
    anchor: str | None = None
    links: list[str | None] = field(default_factory=list)  # per row: the anchor its title links to
    link_column: int = 1
    label: str = ""  # a note's label (解釈)


def _percent(p: float) -> str:
    return f"{p * 100:.2f}%"


def md_text(text: str) -> str:
    """Text for Markdown: ``&`` and ``<`` escaped outside code spans (which show their text as it
    is), so no text of a document can open a tag or an entity (``>`` alone opens nothing)."""
    return "".join(part if _CODE.fullmatch(part) else part.replace("&", "&amp;").replace("<", "&lt;")
                   for part in _CODE.split(text))


def _md_cell(text: str) -> str:
    return md_text(text).replace("|", "\\|").replace("\n", "<br>")


def _bar(p: float, width: int = 20) -> str:
    # start-up: interpreter.reports.bars loads only when _bar() runs
    from interpreter.reports.bars import bar

    return bar(p, width)


def render_markdown(blocks: list[Block]) -> str:
    out: list[str] = []
    for b in blocks:
        if b.kind == "heading":
            out += [f"{'#' * b.level} {md_text(b.text)}", ""]
        elif b.kind == "para":
            out += [md_text(b.text), ""]
        elif b.kind == "note":
            out += [f"【{b.label}】{md_text(b.text)}", ""]
        elif b.kind == "table":
            out.append("| " + " | ".join(b.header) + " |")
            out.append("|" + "---|" * len(b.header))
            for row, marked in zip(b.rows, b.marks or [False] * len(b.rows)):
                cells = [_md_cell(c) for c in row]
                if marked and not any(MARK in c for c in cells):
                    cells[0] = f"{MARK} {cells[0]}"
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
        elif b.kind == "bars":
            out += [f"**{md_text(b.text)}**", "", "| 結果 | 確率 | |", "|---|---:|---|"]
            for label, p, old in b.bars:
                moved = old is not None and abs(old - p) > 1e-12
                cell = _percent(p) + (f" {MARK}（基本: {_percent(old)}）" if moved else "")  # type: ignore[arg-type]
                out.append(f"| {_md_cell(label)} | {cell} | `{_bar(p) or '·'}` |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


FONTS = ('"Hiragino Sans", "Hiragino Kaku Gothic ProN", "Yu Gothic", YuGothic, Meiryo, '
         '"Noto Sans CJK JP", "Noto Sans JP", "IPAexGothic", "IPAGothic", sans-serif')
BAR_EM = 20  # a bar of 100% is this wide
CSS = ("body{font-family:" + FONTS + ";max-width:60em;margin:2em auto;line-height:1.6;color:#222}"
       """
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #bbb;padding:.2em .5em;vertical-align:top;overflow-wrap:anywhere}
tr.changed td{background:#fff3cd}.mark{color:#b8860b;font-weight:bold}
p.note{border-left:.3em solid #6a8caf;background:#f2f6fa;padding:.3em .6em}.note-label{font-weight:bold;color:#2f5d8a}
table.bars{width:100%;table-layout:fixed}table.bars td{white-space:normal;overflow:hidden}svg.bar{display:block;max-width:100%}td.p{text-align:right;white-space:nowrap}td.label{min-width:10em}
code{background:#f3f3f3;padding:0 .2em}td:first-child{white-space:nowrap}nav.toc a{color:inherit}
@page{size:A4;margin:15mm 14mm}
@media print{body{max-width:none;margin:0;font-size:10pt;line-height:1.45}
h1,h2,h3{break-after:avoid}table,tr,p,svg{break-inside:avoid}
nav.toc{break-after:page}a{color:inherit;text-decoration:none}
tr.changed td,p.note{-webkit-print-color-adjust:exact;print-color-adjust:exact}}""")
LABEL_HEADERS = frozenset({"内容", "説明"})  # columns of prose, kept wide
LABEL_CELL = ' class="label"'


def _html_text(text: str) -> str:
    escaped = html.escape(text).replace("\n", "<br>")
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return escaped.replace(MARK, f'<span class="mark">{MARK}</span>')


def svg_bar(p: float, old: float | None) -> str:
    """An inline SVG bar of ``p`` (and a thin grey one of the base's ``old``), ``BAR_EM`` em wide
    at 100%."""
    width = max(p, 0.0) * BAR_EM
    parts = [f'<svg class="bar" width="{BAR_EM}em" height="{"1.3em" if old is not None else "1em"}" '
             f'role="img" aria-label="{_percent(p)}">',
             f'<rect x="0" y="0.1em" width="{width:.2f}em" height="0.8em" fill="#4a7bd0"/>']
    if old is not None:
        parts.append(f'<rect x="0" y="0.95em" width="{max(old, 0.0) * BAR_EM:.2f}em" height="0.3em" fill="#999"/>')
    return "".join(parts) + "</svg>"


def render_html(blocks: list[Block]) -> str:
    title = next((b.text for b in blocks if b.kind == "heading"), "mprules")
    out = ['<!DOCTYPE html>', '<html lang="ja"><head><meta charset="utf-8">',
           f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"]
    for b in blocks:
        if b.kind == "heading":
            anchor = f' id="{html.escape(b.anchor)}"' if b.anchor else ""
            out.append(f"<h{b.level}{anchor}>{_html_text(b.text)}</h{b.level}>")
        elif b.kind == "para":
            out.append(f"<p>{_html_text(b.text)}</p>")
        elif b.kind == "note":
            out.append(f'<p class="note"><span class="note-label">【{html.escape(b.label)}】</span>'
                       f"{_html_text(b.text)}</p>")
        elif b.kind == "table":
            toc = bool(b.links)
            out.append(('<nav class="toc">' if toc else "") + "<table><tr>"
                       + "".join(f"<th>{html.escape(h)}</th>" for h in b.header) + "</tr>")
            for i, (row, marked) in enumerate(zip(b.rows, b.marks or [False] * len(b.rows))):
                cells = [_html_text(c) for c in row]
                if marked and not any(MARK in c for c in row):
                    cells[0] = f'<span class="mark">{MARK}</span> {cells[0]}'
                link = b.links[i] if i < len(b.links) else None
                if link:
                    cells[b.link_column] = f'<a href="#{html.escape(link)}">{cells[b.link_column]}</a>'
                cls = ' class="changed"' if marked else ""
                out.append(f"<tr{cls}>" + "".join(
                    f"<td{LABEL_CELL if h in LABEL_HEADERS else ''}>{c}</td>"
                    for h, c in zip(b.header, cells)) + "</tr>")
            out.append("</table>" + ("</nav>" if toc else ""))
        elif b.kind == "bars":
            out.append(f"<p><strong>{_html_text(b.text)}</strong></p><table class=\"bars\">"
                       f'<colgroup><col><col style="width:13em"><col style="width:{BAR_EM + 1}em"></colgroup>')
            for label, p, old in b.bars:
                moved = old is not None and abs(old - p) > 1e-12
                cls = ' class="changed"' if moved else ""
                base = (f' <span class="mark">{MARK}</span>（基本: {_percent(old)}）'  # type: ignore[arg-type]
                        if moved else "")
                out.append(f"<tr{cls}><td>{html.escape(label)}</td><td class=\"p\">{_percent(p)}{base}</td>"
                           f"<td>{svg_bar(p, old if moved else None)}</td></tr>")
            out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
