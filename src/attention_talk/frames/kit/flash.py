"""The data of the ``flash`` widget (FlashAttention's sweep), computed from ``engine.flash_attend``:
per tile, each query row's running max m, sum ℓ and output Z before and after it, the factor
e^(m_before − m) that rescales the old sum and output when a larger score arrives, the part of ℓ
kept (the old sum rescaled) and the part added (the tile's own sum, rescaled to the new max), and a
derivation of every number drawn, written with the engine's numbers. Nothing here types a number;
tests/test_flash_sweep.py checks every field against the engine and a naive softmax."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_talk.engine import FlashAttention, flash_attend
from attention_talk.engine.flash import rescale
from attention_talk.formatting import number, scientific
from attention_talk.frames.widgets.diagrams import FlashData, FlashStage, FlashTile

__all__ = ["flash_sweep", "sweep_stage"]


def _none_for_inf(a: np.ndarray) -> list:
    """Floats (rows of floats) for JSON, None where the value is −∞ (masked, or nothing seen yet)."""
    if a.ndim == 2:
        return [_none_for_inf(r) for r in a]
    return [None if x == -np.inf else float(x) for x in a]


def _span(a: int, b: int) -> str:
    """1-based, inclusive: [4, 7) → "5–7", [6, 7) → "7"."""
    return f"{a + 1}" if b - a == 1 else f"{a + 1}–{b}"


def _times(a: float, b: float, digits: int = 2) -> str:
    """a×b, a negative factor in brackets: 0.39×(−0.01)."""
    x, y = number(a, digits), number(b, digits)
    return "×".join(f"({t})" if t.startswith("−") else t for t in (x, y))


def _score_why(q: np.ndarray, k: np.ndarray, scale: float, s: float, who: str) -> str:
    """S(query, key) = q·k × scale, its products written out; −∞ where the causal mask blocks."""
    if s == -np.inf:
        return f"S({who}) = −∞: this key comes after the query (causal mask)"
    terms = " + ".join(_times(a, b) for a, b in zip(q, k, strict=True))
    return f"S({who}) = q·k / √d_k = ({terms}) / {number(1 / scale, 3)} = {number(s, 2)}"


def _row_whys(t, vb: np.ndarray, r: int, before: dict, keys: str, beta: float, pv: np.ndarray
              ) -> tuple[str, str, list[str]]:
    """The derivations of row ``r`` of tile ``t``: its m, its ℓ and each coordinate of its Z."""
    m, l, o = float(t.m[r]), float(t.l[r]), t.o[r]  # noqa: E741
    p = t.p_tilde[r]
    if before["m"] == -np.inf:  # the row's first tile: m, ℓ and Z start here
        why_m = f"m = max of the row's scores over keys {keys} = {number(m, 3)}"
        why_l = f"ℓ = Σ e^(S − m) over keys {keys} = {' + '.join(number(x, 2) for x in p)} = {number(l, 3)}"
        why_o = [f"Z = Σ e^(S − m)·v / ℓ = ({' + '.join(_times(a, b) for a, b in zip(p, col, strict=True))}) / "
                 f"{number(l, 3)} = {number(z, 2)}" for col, z in zip(vb.T, o, strict=True)]
        return why_m, why_l, why_o
    m0, l0, alpha = before["m"], before["l"], before["alpha"]
    why_m = f"m = max(m before {number(m0, 3)}, tile max m̃ {number(float(t.m_tilde[r]), 3)}) = {number(m, 3)}"
    why_l = (f"ℓ = e^(m before − m)·ℓ before + e^(m̃ − m)·Σ e^(S − m̃) = {number(alpha, 3)}×{number(l0, 3)} + "
             f"{number(beta, 3)}×{number(float(t.l_tilde[r]), 3)} = {number(l, 3)}")
    why_o = [f"Z = (kept ℓ·Z before + e^(m̃ − m)·Σ e^(S − m̃)·v) / ℓ = ({number(alpha * l0, 3)}×{number(z0, 2)} + "
             f"{number(beta, 3)}×{number(x, 3)}) / {number(l, 3)} = {number(z, 2)}"
             for z0, x, z in zip(before["o"], pv, o, strict=True)]
    return why_m, why_l, why_o


def _sweep_tiles(fa: FlashAttention, q: np.ndarray, k: np.ndarray, v: np.ndarray, tokens: Sequence[str]
                 ) -> list[FlashTile]:
    n_q, d_v = fa.output.shape
    m, l, o = np.full(n_q, -np.inf), np.zeros(n_q), np.zeros((n_q, d_v))  # noqa: E741  before any tile
    out = []
    for number_, t in enumerate(fa.tiles, start=1):
        r, vb = slice(*t.rows), v[t.cols[0]:t.cols[1]]  # the query rows; the tile's V block (b_c, d_v)
        alpha = rescale(m[r], t.m)  # (b_r,)  e^(m_before − m), 0 where nothing was seen
        beta = rescale(t.m_tilde, t.m)  # (b_r,)  e^(m̃ − m)
        pv = t.p_tilde @ vb  # (b_r, d_v)  Σ e^(S − m̃)·v over the tile's keys
        keys = _span(*t.cols)
        whys = [_row_whys(t, vb, i, {"m": m[r][i], "l": l[r][i], "o": o[r][i], "alpha": alpha[i]}, keys, beta[i], pv[i])
                for i in range(len(alpha))]
        rows_new_max = [tokens[t.rows[0] + i] for i in range(len(alpha)) if np.isfinite(m[r][i]) and t.m[i] > m[r][i]]
        story = f"tile {number_} of {len(fa.tiles)} · query rows {_span(*t.rows)} × keys {keys}"
        if rows_new_max:
            i = tokens.index(rows_new_max[0], t.rows[0]) - t.rows[0]
            story += (f" · “{rows_new_max[0]}”: new max {number(float(t.m[i]), 3)} > {number(float(m[r][i]), 3)}, "
                      f"old ℓ × {number(float(alpha[i]), 3)} before adding")
        elif np.isfinite(m[r]).any():
            story += " · no larger score: old ℓ kept, the tile's sum scaled to the old max"
        else:
            story += " · the first scores of these rows: m, ℓ and Z start here"
        scores = [[_score_why(q[t.rows[0] + i], k[t.cols[0] + j], fa.scale, float(t.s[i, j]),
                              f"{tokens[t.rows[0] + i]}, {tokens[t.cols[0] + j]}") for j in range(t.s.shape[1])]
                  for i in range(t.s.shape[0])]
        out.append(FlashTile(
            i=t.i, j=t.j, rows=t.rows, cols=t.cols, s=_none_for_inf(t.s), m_tilde=[float(x) for x in t.m_tilde],
            l_tilde=[float(x) for x in t.l_tilde], m=[float(x) for x in t.m], l=[float(x) for x in t.l],
            o=[[float(x) for x in row] for row in t.o], m_before=_none_for_inf(m[r]),
            l_before=[float(x) for x in l[r]], o_before=[[float(x) for x in row] for row in o[r]],
            alpha=[float(x) for x in alpha], kept=[float(x) for x in alpha * l[r]],
            added=[float(x) for x in beta * t.l_tilde], why_s=scores, why_m=[w[0] for w in whys],
            why_l=[w[1] for w in whys], why_o=[w[2] for w in whys], story=story))
        m[r], l[r], o[r] = t.m, t.l, t.o
    return out


def sweep_stage(tile: int, skip: bool, tiles: int) -> tuple[FlashStage, int]:
    """The stage a builder's ``tile`` (1-based; 0 for the end) and ``skip`` ask for, and the index of
    the current tile: the end shows every tile done; a tile past the last is the last."""
    if tile == 0:
        return "done", tiles - 1
    return ("skip" if skip else "tile"), min(tile, tiles) - 1


def flash_sweep(q: np.ndarray, k: np.ndarray, v: np.ndarray, tokens: Sequence[str], exact: np.ndarray, *,
                block_size: int, causal: bool, stage: FlashStage, current: int) -> FlashData:
    """FlashAttention's sweep over a head (``engine.flash_attend``, self-attention: one token list for
    queries and keys), every tile with its running state before and after and a derivation of each
    number drawn; ``exact`` is the head's Z computed whole (the pipeline's A·V) that the end equals."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if not (len(tokens) == q.shape[0] == k.shape[0] == v.shape[0]):
        raise ValueError(f"flash_sweep draws self-attention: {len(tokens)} tokens for {q.shape[0]} queries "
                         f"and {k.shape[0]} keys")
    fa = flash_attend(q, k, v, block_size=block_size, causal=causal)
    exact = np.asarray(exact, dtype=np.float64)  # (n, d_v)
    if exact.shape != fa.output.shape:
        raise ValueError(f"exact must have the output's shape {fa.output.shape}, got {exact.shape}")
    if not 0 <= current < len(fa.tiles):
        raise ValueError(f"current must index one of the {len(fa.tiles)} tiles, got {current}")
    n = len(tokens)
    span = [(s, min(s + fa.block_size, n)) for s in range(0, n, fa.block_size)]
    diff = np.abs(fa.output - exact)  # (n, d_v)
    names = list(tokens)
    exact_why = [[f"pipeline's Z({names[r]}, {c + 1}) = Σ A·v over the row = {number(float(exact[r, c]), 2)}; "
                  f"Z from the tiles − it = {scientific(float(fa.output[r, c] - exact[r, c]))}"
                  for c in range(exact.shape[1])] for r in range(n)]
    return FlashData(
        tokens=names, n=n, block=fa.block_size, tiles=_sweep_tiles(fa, q, k, v, names), current=current,
        final=stage == "done", show_skip=stage == "skip", stage=stage,
        exact=[[float(x) for x in row] for row in exact], max_diff=float(diff.max()),
        row_diff=[scientific(float(d)) for d in diff.max(axis=1)],
        skipped=[{"rows": list(span[i]), "cols": list(span[j])} for i, j in fa.skipped], exact_why=exact_why,
        skip_story=(f"query rows {_span(*span[fa.skipped[0][0]])} × keys {_span(*span[fa.skipped[0][1]])}: every key "
                    "is after every query, so the tile is never computed") if fa.skipped else "",
        done_story=(f"all {len(fa.tiles)} tiles done: Z from the tiles equals the pipeline's Z, largest "
                    f"difference {scientific(float(diff.max()))}"))
