"""What the model keeps of recent texts, counted in bytes, and a run's maps handed out on demand.

A kept run's maps are views of its trace's arrays, and a view keeps its whole base alive, so what
is held is counted as base arrays, each once and in full (``held_buffers``). Runs and traces share
bases (a run views its trace; a trace extended from a longer one views that one's arrays), so the
bytes kept are those of the union of every kept entry's bases. ``Held`` keeps that union and its
size up to date as entries come and go, a count per base, so the bound on kept bytes is checked
in the time of one entry's bases, not of everything kept.

``HeadTable`` is a run's (layer, head) → ``HeadMaps``: each head's read-only views are made when
first read, not the 270 of them after every run (the lab reads one head, and every head's weights
once as a stack: ``stack``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from attention_talk.engine.gqa import GroupedAttention


@dataclass(frozen=True)
class HeadMaps:
    """One head of one layer. q and k are after RoPE; k and v are the head's key/value group's."""

    layer: int
    head: int
    kv_head: int
    weights: np.ndarray | None = None  # (n, n) softmax(q kᵀ/√d_k + causal mask)
    q: np.ndarray | None = None  # (n, d_k)
    k: np.ndarray | None = None  # (n, d_k)
    v: np.ndarray | None = None  # (n, d_k)
    scores: np.ndarray | None = None  # (n, n) q kᵀ before scaling and masking


def held_buffers(arrays: Iterable[np.ndarray | None]) -> dict[int, np.ndarray]:
    """id → array for every buffer ``arrays`` keep alive: a view's whole base (a head's map viewed
    out of its layer's (h, n, n) array keeps all h maps), each base once. Summing their ``nbytes``
    counts what is held, not what is seen through the views."""
    held: dict[int, np.ndarray] = {}
    for a in arrays:
        if a is None:
            continue
        while isinstance(a.base, np.ndarray):
            a = a.base
        held[id(a)] = a
    return held


class Held:
    """The buffers that kept entries hold, each counted once however many entries hold it; ``nbytes``
    their total. ``add`` and ``remove`` take an entry's ``held_buffers``; a buffer leaves when the
    last entry holding it does. (Held keeps a reference to every buffer it counts, so its id names
    it for as long as it is counted.)"""

    def __init__(self) -> None:
        self._held: dict[int, list] = {}  # id → [array, how many entries hold it]
        self.nbytes = 0

    def add(self, buffers: Mapping[int, np.ndarray]) -> None:
        for key, a in buffers.items():
            entry = self._held.get(key)
            if entry is None:
                self._held[key] = [a, 1]
                self.nbytes += a.nbytes
            else:
                entry[1] += 1

    def remove(self, buffers: Mapping[int, np.ndarray]) -> None:
        for key in buffers:
            entry = self._held[key]
            entry[1] -= 1
            if entry[1] == 0:
                del self._held[key]
                self.nbytes -= entry[0].nbytes

    def clear(self) -> None:
        self._held.clear()
        self.nbytes = 0


def _frozen(a: np.ndarray) -> np.ndarray:
    """A read-only contiguous view, or copy when ``a`` is not contiguous (cached results are shared by
    every caller; the kept traces they come from are read-only too)."""
    out = a.view() if a.flags.c_contiguous else np.array(a, order="C")
    out.flags.writeable = False
    return out


class HeadTable(Mapping):
    """(layer, head) → HeadMaps for the ``layers`` and ``heads`` of one run, in that order, each made
    on first read: read-only contiguous views of the trace's arrays, of the kinds in ``want``
    (q and k after RoPE; k and v the head's key/value group's). ``select`` is a smaller table over
    the same arrays and the same made maps. It holds only the arrays of ``want`` of its layers."""

    def __init__(self, attention: Sequence[GroupedAttention], want: tuple[str, ...], layers: Sequence[int],
                 heads: Sequence[int], made: dict | None = None) -> None:
        self._layers, self._heads, self._want = list(layers), list(heads), want
        self._in = (frozenset(self._layers), frozenset(self._heads))
        self._arrays = {layer: _wanted(attention[layer], want) for layer in self._layers}
        self._groups = {layer: attention[layer].kv_head_of for layer in self._layers}
        self._made: dict[tuple[int, int], HeadMaps] = {} if made is None else made

    def __getitem__(self, key: tuple[int, int]) -> HeadMaps:
        layer, head = key
        if layer not in self._in[0] or head not in self._in[1]:
            raise KeyError(key)
        maps = self._made.get(key)
        if maps is None:  # two threads may both make it: the same views, either kept
            maps = self._made[key] = self._make(layer, head)
        return maps

    def _make(self, layer: int, head: int) -> HeadMaps:
        g = self._groups[layer](head)
        arrays = self._arrays[layer]
        index = {"weights": head, "q": head, "k": g, "v": g, "scores": head}
        return HeadMaps(layer=layer, head=head, kv_head=g,
                        **{w: _frozen(arrays[w][index[w]]) for w in self._want})

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return ((layer, head) for layer in self._layers for head in self._heads)

    def __len__(self) -> int:
        return len(self._layers) * len(self._heads)

    def select(self, layers: Sequence[int], heads: Sequence[int]) -> HeadTable:
        """The table of these layers and heads (a subset of this one's)."""
        table = HeadTable.__new__(HeadTable)
        table._layers, table._heads, table._want = list(layers), list(heads), self._want
        table._in = (frozenset(table._layers), frozenset(table._heads))
        table._arrays = {layer: self._arrays[layer] for layer in table._layers}
        table._groups = {layer: self._groups[layer] for layer in table._layers}
        table._made = self._made
        return table

    def arrays(self) -> Iterator[np.ndarray]:
        """Every array the table may hand out views of (its layers' arrays of ``want``)."""
        for arrays in self._arrays.values():
            yield from arrays.values()

    def stack(self, what: str) -> np.ndarray:
        """Every layer's ``what`` (weights or scores) for every head, as one new (L·h, n, n) array in
        the table's order (layers, then heads)."""
        return np.stack([self._arrays[layer][what][self._heads] for layer in self._layers]).reshape(
            len(self), *self._arrays[self._layers[0]][what].shape[1:])


def _wanted(att: GroupedAttention, want: tuple[str, ...]) -> dict[str, np.ndarray]:
    return {w: getattr(att, w) for w in want}
