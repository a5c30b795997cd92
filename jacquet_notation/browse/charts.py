"""Charts drawn on the server as plain SVG: a game's race, a player's years, an archive's games.

Why SVG written here rather than a charting library: the pages must open offline (no CDN), the
charts are three simple shapes (lines over plies or years, bars by label), and SVG made on the
server needs no script, prints, and reads in any browser. Each mark carries its figures as
``data-`` attributes and a ``<title>``, so that a reader (and a test) can read the numbers the
picture draws, not only see it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

#: the drawing's margins, in pixels: room for the axes' numbers and labels
_LEFT, _RIGHT, _TOP, _BOTTOM = 44, 12, 26, 34


@dataclass(frozen=True)
class Series:
    """One line of a chart: a name for its legend, its points (x, y) and a CSS class."""

    name: str
    points: Sequence[tuple[int, int]]
    css: str


@dataclass(frozen=True)
class Chart:
    """A chart's frame: its title, its axes' words and its size."""

    title: str
    x_label: str
    y_label: str
    width: int = 640
    height: int = 220
    #: x positions marked by a vertical rule and a word (a game's cube actions)
    marks: Sequence[tuple[int, str]] = field(default_factory=tuple)
    #: room under the plot for the x axis' words (more where they are turned to fit)
    bottom: int = _BOTTOM


def _ticks(low: int, high: int, most: int = 6) -> list[int]:
    """Round numbers between low and high, at most about ``most`` of them, for an axis."""
    span = max(high - low, 1)
    step = 1
    for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000):
        step = candidate
        if span / candidate <= most:
            break
    first = (low + step - 1) // step * step
    return list(range(first, high + 1, step))


class _Frame:
    """The mapping from figures to pixels of one chart, so that marks and axes agree."""

    def __init__(self, chart: Chart, x_range: tuple[int, int], y_range: tuple[int, int]) -> None:
        self.chart = chart
        self.x_low, self.x_high = x_range
        self.y_low, self.y_high = y_range
        self.inner_width = chart.width - _LEFT - _RIGHT
        self.inner_height = chart.height - _TOP - chart.bottom

    def x(self, value: float) -> float:
        span = max(self.x_high - self.x_low, 1)
        return round(_LEFT + (value - self.x_low) * self.inner_width / span, 1)

    def y(self, value: float) -> float:
        span = max(self.y_high - self.y_low, 1)
        return round(_TOP + self.inner_height - (value - self.y_low) * self.inner_height / span, 1)

    def axes(self, x_ticks: Sequence[tuple[float, str]], turned: bool = False) -> list[str]:
        """The title, the two axes with their numbers, and the axes' words (the x numbers
        ``turned`` aslant where they are too long to stand side by side)."""
        chart = self.chart
        bottom = _TOP + self.inner_height
        parts = [
            f'<text class="jacquet-chart-title" x="{_LEFT}" y="16">{escape(chart.title)}</text>',
            f'<line class="jacquet-chart-axis" x1="{_LEFT}" y1="{bottom}" '
            f'x2="{chart.width - _RIGHT}" y2="{bottom}"/>',
            f'<line class="jacquet-chart-axis" x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" '
            f'y2="{bottom}"/>',
        ]
        for value in _ticks(self.y_low, self.y_high):
            y = self.y(value)
            parts.append(
                f'<text class="jacquet-chart-tick" x="{_LEFT - 4}" y="{y + 4}" '
                f'text-anchor="end">{value}</text>'
            )
        for x, text in x_ticks:
            turn = f' transform="rotate(-35 {x} {bottom + 12})"' if turned else ""
            anchor = "end" if turned else "middle"
            parts.append(
                f'<text class="jacquet-chart-tick" x="{x}" y="{bottom + 14}" '
                f'text-anchor="{anchor}"{turn}>{escape(text)}</text>'
            )
        parts.append(
            f'<text class="jacquet-chart-label" x="{_LEFT + self.inner_width / 2}" '
            f'y="{chart.height - 4}" text-anchor="middle">{escape(chart.x_label)}</text>'
        )
        parts.append(
            f'<text class="jacquet-chart-label" x="12" y="{_TOP + self.inner_height / 2}" '
            f'text-anchor="middle" transform="rotate(-90 12 {_TOP + self.inner_height / 2})">'
            f"{escape(chart.y_label)}</text>"
        )
        return parts


def _svg(chart: Chart, kind: str, parts: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="jacquet-chart" data-chart="{kind}" '
        f'width="{chart.width}" height="{chart.height}" viewBox="0 0 {chart.width} '
        f'{chart.height}" role="img" aria-label="{escape(chart.title)}">'
        f"<title>{escape(chart.title)}</title>" + "".join(parts) + "</svg>"
    )


def line_chart(chart: Chart, series: Sequence[Series]) -> str:
    """Lines over a numeric x (plies, years), each point a dot carrying its figures."""
    points = [point for line in series for point in line.points]
    if not points:
        return ""
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    frame = _Frame(chart, (min(xs), max(xs)), (min(0, min(ys)), max(ys)))
    ticks = [(frame.x(value), str(value)) for value in _ticks(min(xs), max(xs), 8)]
    parts = frame.axes(ticks)
    bottom = _TOP + frame.inner_height
    for x, word in chart.marks:
        px = frame.x(x)
        parts.append(
            f'<line class="jacquet-chart-mark" data-x="{x}" x1="{px}" y1="{_TOP}" x2="{px}" '
            f'y2="{bottom}"><title>{escape(word)}</title></line>'
        )
    for index, line in enumerate(series):
        path = " ".join(f"{frame.x(x)},{frame.y(y)}" for x, y in line.points)
        css = escape(line.css)
        parts.append(f'<polyline class="jacquet-chart-line {css}" points="{path}"/>')
        for x, y in line.points:
            parts.append(
                f'<circle class="jacquet-chart-point {css}" data-series="{escape(line.name)}" '
                f'data-x="{x}" data-y="{y}" cx="{frame.x(x)}" cy="{frame.y(y)}" r="2">'
                f"<title>{escape(line.name)}: {y} at {x}</title></circle>"
            )
        # the legend on the title's line, at the right, clear of the lines
        legend_x = chart.width - _RIGHT - (len(series) - index) * 70
        parts.append(
            f'<text class="jacquet-chart-legend {css}" x="{legend_x}" y="16">'
            f"&#9679; {escape(line.name)}</text>"
        )
    return _svg(chart, "line", parts)


def bar_chart(chart: Chart, bars: Sequence[tuple[str, int]]) -> str:
    """Bars by label (a year, a ruleset), each carrying its label and count."""
    if not bars:
        return ""
    frame = _Frame(chart, (0, len(bars)), (0, max(count for _, count in bars)))
    slot = frame.inner_width / len(bars)
    # a label under every bar while they fit, else under every n-th
    every = max(1, round(len(bars) * 40 / max(frame.inner_width, 1)))
    ticks = [
        (round(_LEFT + (index + 0.5) * slot, 1), label)
        for index, (label, _) in enumerate(bars)
        if index % every == 0
    ]
    # words wider than their bar's slot (about 6 pixels a letter) are turned to fit
    turned = max(len(label) for label, _ in bars) * 6 > slot
    parts = frame.axes(ticks, turned)
    bottom = _TOP + frame.inner_height
    for index, (label, count) in enumerate(bars):
        top = frame.y(count)
        parts.append(
            f'<rect class="jacquet-chart-bar" data-label="{escape(label)}" data-y="{count}" '
            f'x="{round(_LEFT + index * slot + slot * 0.15, 1)}" y="{top}" '
            f'width="{round(slot * 0.7, 1)}" height="{round(bottom - top, 1)}">'
            f"<title>{escape(label)}: {count}</title></rect>"
        )
    return _svg(chart, "bar", parts)
