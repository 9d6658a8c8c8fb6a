"""overview.html's plots as inline SVG (self-contained: no script, no font, no network).

Why hand-written SVG: two plot kinds, a few dozen marks each; a plotting library would add a dependency (and
matplotlib's SVG embeds glyph paths, ~100 KB per plot) for what is a rect and a line per value. Each mark carries
`data-agent` (and `data-category`) and a <title> with its numbers, so a person hovering reads the exact value and a
test counts the marks.
"""

from __future__ import annotations

import html
import math
from typing import Any

PALETTE = ("#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e",
           "#9498a0")
FONT = "font-family='system-ui,sans-serif' font-size='11'"


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}%"


def legend(labels: list[str]) -> str:
    """An HTML legend (wraps with the page) in the plots' colours."""
    return "<div class=legend>" + "".join(
        f"<span><i style='background:{color(i)}'></i>{_e(lab)}</span>" for i, lab in enumerate(labels)) + "</div>"


def bar_chart(summary: dict[str, Any], stage: str, title: str) -> str:
    """Success rate per category (Overall first), one bar per agent/model with its ±SE bar; categories nobody ran
    are left out; a cell with no run is a bar of height 0 titled `no runs`."""
    rows = summary["rows"]
    cols = [c for c in summary["columns"] if any(r["columns"][c][stage]["n"] for r in rows)]
    bar_w, gap, left, top, h = 22, 20, 44, 24, 200
    group = max(1, len(rows)) * bar_w + gap
    width = left + group * max(1, len(cols)) + 10
    height = top + h + 40

    def y(v: float) -> float:
        return top + h * (1 - v)

    out = [f"<svg class=chart data-kind=bar data-stage={stage} xmlns='http://www.w3.org/2000/svg' "
           f"viewBox='0 0 {width} {height}' width='{width}' height='{height}' role=img {FONT}>",
           f"<title>{_e(title)}</title>"]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        out.append(f"<line x1='{left}' x2='{width - 10}' y1='{y(tick):.1f}' y2='{y(tick):.1f}' stroke='#ddd'/>"
                   f"<text x='{left - 4}' y='{y(tick) + 4:.1f}' text-anchor=end fill='#555'>{int(tick * 100)}%</text>")
    for ci, col in enumerate(cols):
        x0 = left + ci * group + gap / 2
        for ai, r in enumerate(rows):
            cell = r["columns"][col][stage]
            x = x0 + ai * bar_w
            rate = cell["rate"] if cell["rate"] is not None else 0.0
            tall = max(h * rate, 2.0) if cell["n"] else 0.0  # a 0% that was measured is seen, not missing
            tip = (f"{r['label']} · {col}: {_pct(cell['rate'])} ± {100 * cell['se']:.1f} (n={cell['n']})"
                   if cell["n"] else f"{r['label']} · {col}: no runs")
            out.append(f"<rect class=bar data-agent='{_e(r['label'])}' data-category='{_e(col)}' "
                       f"data-rate='{'' if cell['rate'] is None else round(cell['rate'], 6)}' "
                       f"x='{x + 1:.1f}' y='{y(0) - tall:.1f}' width='{bar_w - 2}' height='{tall:.1f}' "
                       f"fill='{color(ai)}'><title>{_e(tip)}</title></rect>")
            if cell["n"] and cell["se"]:
                lo, hi = max(0.0, rate - cell["se"]), min(1.0, rate + cell["se"])
                cx = x + bar_w / 2
                out.append(f"<path class=se d='M{cx:.1f} {y(lo):.1f}V{y(hi):.1f}M{cx - 3:.1f} {y(lo):.1f}h6"
                           f"M{cx - 3:.1f} {y(hi):.1f}h6' stroke='#222' fill='none'/>")
        label = col.capitalize() if col == "overall" else col
        out.append(f"<text x='{x0 + len(rows) * bar_w / 2:.1f}' y='{top + h + 16}' text-anchor=middle>"
                   f"{_e(label)}</text>")
    out.append(f"<line x1='{left}' x2='{width - 10}' y1='{y(0):.1f}' y2='{y(0):.1f}' stroke='#888'/></svg>")
    return "".join(out)


def _ticks(hi: float) -> list[float]:
    """About five round ticks from 0 to at least `hi`."""
    if hi <= 0:
        return [0.0, 1.0]
    step = 10 ** math.floor(math.log10(hi / 4))
    for m in (1, 2, 2.5, 5, 10):
        if hi / (m * step) <= 5:
            step *= m
            break
    n = math.ceil(hi / step - 1e-9)
    return [round(i * step, 10) for i in range(n + 1)]


def scatter(points: list[dict[str, Any]], x_title: str, y_title: str, fmt_x: Any, title: str) -> str:
    """One point per agent/model: x (cost, duration; None = not reported, drawn at 0 hollow) against the success rate
    y with its ±SE bar. `points`: {label, index, x, y, se, n}."""
    left, top, w, h = 52, 16, 380, 200
    width, height = left + w + 20, top + h + 44
    xs = [p["x"] for p in points if p["x"] is not None]
    ticks = _ticks(max(xs, default=0.0) * 1.05)
    x_hi = ticks[-1] or 1.0

    def px(v: float) -> float:
        return left + w * (v / x_hi)

    def py(v: float) -> float:
        return top + h * (1 - v)

    out = [f"<svg class=chart data-kind=scatter xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' "
           f"width='{width}' height='{height}' role=img {FONT}><title>{_e(title)}</title>"]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        out.append(f"<line x1='{left}' x2='{left + w}' y1='{py(tick):.1f}' y2='{py(tick):.1f}' stroke='#eee'/>"
                   f"<text x='{left - 4}' y='{py(tick) + 4:.1f}' text-anchor=end fill='#555'>{int(tick * 100)}%</text>")
    for tick in ticks:
        out.append(f"<line x1='{px(tick):.1f}' x2='{px(tick):.1f}' y1='{top}' y2='{top + h}' stroke='#eee'/>"
                   f"<text x='{px(tick):.1f}' y='{top + h + 14}' text-anchor=middle fill='#555'>{_e(fmt_x(tick))}</text>")
    out.append(f"<text x='{left + w / 2}' y='{height - 6}' text-anchor=middle>{_e(x_title)}</text>"
               f"<text transform='rotate(-90)' x='{-(top + h / 2)}' y='12' text-anchor=middle>{_e(y_title)}</text>"
               f"<path d='M{left} {top}V{top + h}H{left + w}' stroke='#888' fill='none'/>")
    placed: list[tuple[float, float]] = []  # labels already drawn: a point on another's spot gets its label lower
    if not xs:
        out.append(f"<text x='{left + w / 2}' y='{top + 14}' text-anchor=middle fill='#a60'>no agent reported "
                   f"its {_e(x_title.split(' (')[0])}</text>")
    for p in points:
        if p["y"] is None:
            continue
        cx, cy = px(p["x"] or 0.0), py(p["y"])
        ly = cy - 6
        while any(abs(ly - qy) < 12 and abs(cx - qx) < 60 for qx, qy in placed):
            ly += 12
        placed.append((cx, ly))
        c = color(p["index"])
        if p.get("se"):
            lo, hi = max(0.0, p["y"] - p["se"]), min(1.0, p["y"] + p["se"])
            out.append(f"<path class=se d='M{cx:.1f} {py(lo):.1f}V{py(hi):.1f}' stroke='{c}' fill='none'/>")
        x_text = fmt_x(p["x"]) if p["x"] is not None else "not reported"
        tip = f"{p['label']}: {_pct(p['y'])} ± {100 * (p.get('se') or 0):.1f} (n={p['n']}), {x_title} {x_text}"
        fill = c if p["x"] is not None else "white"
        out.append(f"<circle class=pt data-agent='{_e(p['label'])}' cx='{cx:.1f}' cy='{cy:.1f}' r='5' fill='{fill}' "
                   f"stroke='{c}' stroke-width='2'><title>{_e(tip)}</title></circle>"
                   f"<text x='{cx + 8:.1f}' y='{ly:.1f}'>{_e(p['label'])}</text>")
    out.append("</svg>")
    return "".join(out)
