"""The FLOP counter in the corner of chapter 1's slides: the attention work shown so far, added up
in the order the talk introduces it (one layer, the story's n tokens).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from attention_talk.engine.costs import Costs
from attention_talk.formatting import count
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import Counter
from attention_talk.frames.step_by_step.shared import preset

CounterStage = Literal["q1", "q_all", "k_all", "scores", "v_all", "mix", "w_o", "heads", "per_token"]
COUNTER_STAGES: tuple[str, ...] = CounterStage.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class CounterValue:
    value: int
    formula: str
    label: str
    scope: str = "1-head"  # what the number counts; a new scope is a new counter (its own id), never the old one grown




def _one_head(c: Costs, n: int) -> dict[str, CounterValue]:
    """The running total of one head's work, stage by stage up to W_O."""
    p = c.preset
    proj = c.flops_projection_per_head("W_Q").value  # 2·d·d_k
    proj_v = c.flops_projection_per_head("W_V").value  # 2·d·d_v
    proj_o = c.flops_projection_per_head("W_O").value  # 2·d_v·d
    qk = 2 * p.d_k * n * n  # one head, n queries × n keys
    av = 2 * p.d_v * n * n
    d, dk, tok = count(p.d_model), count(p.d_k), f"{count(n)} tokens"
    steps = [  # (stage, FLOPs added, formula, label)
        ("q_all", proj * n, f"2·d·d_k·n = {count(proj)} × {count(n)}", f"1 head · {tok} · W_Q"),
        ("k_all", proj * n, f"+ W_K: 2 × {count(proj * n)}", f"1 head · {tok} · W_Q W_K"),
        ("scores", qk, f"+ QKᵀ: 2·d_k·n² = 2 × {dk} × {count(n)}² = {count(qk)}", f"1 head · {tok} · W_Q W_K QKᵀ"),
        ("v_all", proj_v * n, f"+ W_V: 2·d·d_v·n = {count(proj_v * n)}", f"1 head · {tok} · … + W_V"),
        ("mix", av, f"+ A·V: 2·d_v·n² = {count(av)}", f"1 head · {tok} · … + A·V"),
        ("w_o", proj_o * n, f"+ W_O: 2·d_v·d·n = {count(proj_o * n)}", f"1 head · {tok} · all of it"),
    ]
    out = {"q1": CounterValue(proj, f"2·d·d_k = 2 × {d} × {dk}", "1 head · 1 token · W_Q", "1-token")}
    total = 0
    for stage, added, formula, label in steps:
        total += added
        out[stage] = CounterValue(total, formula, label)
    return out


def flop_counter(c: Costs, n: int, stage: str) -> CounterValue:
    """Total attention FLOPs of the work shown so far, for n tokens (2 FLOPs per multiply-add).

    q1: one head's W_Q on one token (2·d·d_k) · q_all: on all n tokens · k_all: + W_K ·
    scores: + QKᵀ (2·d_k·n²) · v_all: + W_V · mix: + A·V (2·d_v·n²) · w_o: + W_O
    (2·d_v·d·n) · heads: × h · per_token: ÷ n, which is the cost model's 939,524,096 + 65,536·n.
    """
    running = _one_head(c, n)
    if stage in running:
        return running[stage]
    one_head, h = running["w_o"].value, c.preset.heads
    if stage == "heads":
        return CounterValue(one_head * h, f"{count(one_head)} × h = {count(one_head)} × {count(h)}",
                            f"{count(h)} heads · {count(n)} tokens · all of it", "all-heads")
    if stage == "per_token":
        total = c.flops_per_token()
        return CounterValue(int(total.at(n).value),
                            f"{total.formula} at n = {count(n)}: ({count(one_head * h)}) ÷ {count(n)}",
                            f"per token · {count(h)} heads · 1 layer", "per-token")
    raise KeyError(stage)


def counter(ctx: BuildContext, stage: CounterStage) -> Counter:
    """The counter at ``stage`` for the deck's preset and story."""
    c = preset(ctx)
    v = flop_counter(c, len(ctx.tokens), stage)
    return Counter(id=f"flops-{v.scope}", label=f"FLOPs · {v.label}", value=v.value, formula=v.formula,
                   source=c.flop_source, unit="")
