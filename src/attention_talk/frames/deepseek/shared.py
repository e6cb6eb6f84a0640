"""Chapter 4's helpers: bars and cards widgets, counters from the cost model, row and column names."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_talk.engine import Count
from attention_talk.formatting import number
from attention_talk.frames.contract import Box, Counter, Widget
from attention_talk.frames.kit.widgets import widget


def bars(wid: str, b: Box, title: str, labels: list[str], values: Sequence[float], *, kind: str = "neutral",
         value_labels: list[str] | None = None, highlight: int | None = None,
         greyed: Sequence[bool] | None = None, scale_max: float | None = None) -> Widget:
    """Labelled horizontal bars scaled to the largest (or to ``scale_max``); ``greyed`` bars drawn with the
    masked look (a key the selection leaves out)."""
    data = {"title": title, "labels": labels, "values": [float(v) for v in values], "digits": 0,
            "highlight": highlight, "sum": None, "value_labels": value_labels,
            "future": list(map(bool, greyed)) if greyed is not None else None}
    return widget("weight-bars", wid, b, data | ({"scale_max": scale_max} if scale_max else {}), kind=kind)


def cards(wid: str, b: Box, items: list[dict], *, columns: int = 3, arrows: bool = False) -> Widget:
    return widget("cards", wid, b, {"cards": items, "columns": columns, "arrows": arrows, "active": None},
                  kind="neutral")


def counter(cid: str, count: Count, label: str | None = None) -> Counter:
    """A cost-model count (value, formula, source) as a counter on the stage."""
    return Counter(id=cid, label=label or count.label, value=float(count.value), formula=count.formula,
                   source=count.source, unit=count.unit)


def nums(prefix: str, n: int) -> list[str]:
    """Column names prefix1 … prefixn."""
    return [f"{prefix}{i + 1}" for i in range(n)]


def pos(t) -> list[str]:
    """The keys by position, 1 … n: a map's column labels (token names do not fit side by side)."""
    return [str(i + 1) for i in range(len(t.tokens))]


def gigabytes(x: float) -> str:
    """Bytes as GB with one decimal (10⁹ bytes)."""
    return f"{number(x / 1e9, 1)} GB"


def max_gap(a: np.ndarray, b: np.ndarray) -> float:
    """The largest |a − b| over the finite cells (equal −∞ cells count as equal)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    both = np.isfinite(a) & np.isfinite(b)
    if np.any(np.isfinite(a) != np.isfinite(b)):
        raise ValueError("the two arrays block different cells")
    return float(np.max(np.abs(a[both] - b[both]))) if both.any() else 0.0
