"""Every figure in FACTS.md comes out of the cost model exactly, with a formula and a source."""

from __future__ import annotations

import json
import math
import re

import pytest

from attention_talk.engine import PRESETS, Count, PerContext, costs, get_preset

DS = costs("deepseek-v3.2")


def test_presets_carry_the_published_dimensions():
    ds = get_preset("deepseek-v3.2")
    assert (ds.d_model, ds.heads, ds.d_k, ds.d_v, ds.layers) == (7168, 128, 128, 128, 61)
    assert (ds.vocab, ds.max_positions) == (129_280, 163_840)
    assert (ds.mla.q_lora_rank, ds.mla.kv_lora_rank, ds.mla.qk_rope_head_dim) == (1536, 512, 64)
    vas = get_preset("vaswani-base")
    assert (vas.d_model, vas.heads, vas.d_k, vas.d_v) == (512, 8, 64, 64)
    sm = get_preset("smollm2-135m")
    assert (sm.d_model, sm.heads, sm.h_kv, sm.d_k, sm.layers) == (576, 9, 3, 64, 30)
    assert set(PRESETS) == {"deepseek-v3.2", "vaswani-base", "smollm2-135m"}


def test_unknown_preset_lists_known_names():
    known = "deepseek-v3.2, smollm2-135m, vaswani-base"
    with pytest.raises(ValueError, match=re.escape(f"unknown preset 'gpt-5'; known presets: {known}")):
        get_preset("gpt-5")


def test_weights():
    assert DS.weights_per_head("W_Q").value == 917_504
    assert DS.weights_per_matrix("W_Q").value == 117_440_512
    assert DS.weights_per_matrix("W_O").value == 117_440_512
    assert DS.weights_attention().value == 469_762_048


def test_flops_per_token():
    assert DS.flops_projection_per_head("W_Q").value == 1_835_008
    for m in ("W_Q", "W_K", "W_V", "W_O"):
        assert DS.flops_projection(m).value == 234_881_024
    assert DS.flops_scores().per_n == 32_768 and DS.flops_scores().constant == 0
    assert DS.flops_weighted_values().per_n == 32_768
    total = DS.flops_per_token()
    assert (total.constant, total.per_n) == (939_524_096, 65_536)
    assert total.formula == "939,524,096 + 65,536·n"


def test_n_4096_is_about_1_208_gflop():
    at = DS.flops_per_token().at(4096)
    assert at.value == 939_524_096 + 65_536 * 4096 == 1_207_959_552
    assert round(at.value / 1e9, 3) == 1.208


def test_context_part_equals_projections_at_14336():
    assert DS.context_equals_projections_at().value == 14_336
    total = DS.flops_per_token()
    assert total.per_n * 14_336 == total.constant


def test_real_mla_shapes():
    assert DS.mla_matrices() == {"wq_a": (7168, 1536), "wq_b": (1536, 24576), "wkv_a": (7168, 576),
                                 "wkv_b": (512, 32768), "wo": (16384, 7168)}
    assert DS.mla_weights().value == 187_105_280
    assert DS.mla_flops().value == 374_210_560
    assert DS.mla_score_scale().value == pytest.approx(1 / math.sqrt(192))


def test_kv_cache():
    assert DS.kv_numbers_per_token_layer("mla").value == 576
    assert DS.kv_bytes_per_token_layer("mla").value == 1_152
    assert DS.kv_numbers_per_token_layer("mha").value == 32_768
    assert DS.kv_bytes_per_token_layer("mha").value == 65_536
    assert DS.kv_bytes_per_token("mla").value == 70_272
    assert DS.kv_bytes_per_token("mha").value == 3_997_696
    assert round(DS.kv_ratio("mha", "mla").value, 1) == 56.9


def test_gqa_for_smollm2():
    sm = costs("smollm2-135m")
    assert sm.kv_bytes_per_token_layer("gqa").value == 3 * (64 + 64) * 2 == 768
    assert sm.kv_bytes_per_token_layer("mha").value == 9 * 128 * 2
    assert sm.kv_bytes_per_token("gqa").value == 768 * 30
    assert sm.weights_per_matrix("W_K").value == 576 * 3 * 64
    assert sm.weights_attention().value == 2 * 576 * 576 + 2 * 576 * 192
    with pytest.raises(ValueError, match="has no MLA shapes"):
        sm.kv_bytes_per_token_layer("mla")
    with pytest.raises(ValueError, match="counter_steps assumes plain multi-head"):
        sm.counter_steps()


def test_vaswani_base():
    vas = costs("vaswani-base")
    assert vas.weights_per_matrix("W_Q").value == 512 * 512
    assert vas.flops_per_token().formula == "2,097,152 + 2,048·n"  # 2 × 4 × 512², 2 × 2 × 8 × 64


def test_attention_map_quadruples_when_context_doubles():
    assert DS.attention_map_cells(4096).value == 4096**2
    assert DS.attention_map_bytes(4096).value == 4096**2 * 2
    assert DS.attention_map_cells(8192).value == 4 * DS.attention_map_cells(4096).value


def test_counter_steps():
    steps = DS.counter_steps(7)
    assert [s.value for s in steps] == [
        1_835_008,  # W_Q, one head, one token
        12_845_056,  # × 7 tokens
        25_690_112,  # W_Q + W_K
        38_535_168,  # + W_V
        4_932_501_504,  # all 128 heads
        6_576_668_672,  # + W_O
        6_576_668_672 + 65_536 * 49,  # + QKᵀ and weights × V, 7 tokens against 7 keys
        939_524_096 + 65_536 * 7,  # per token
    ]
    assert steps[-2].value == 7 * steps[-1].value
    assert "939,524,096 + 65,536·n" in steps[-1].formula
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        DS.counter_steps(0)


def every_count(c):
    return [c.weights_per_head(), c.weights_per_matrix(), c.weights_attention(),
            c.flops_projection_per_head(), c.flops_projection(), c.flops_projections(), c.flops_scores(),
            c.flops_weighted_values(),
            c.flops_per_token(), c.context_equals_projections_at(), c.kv_bytes_per_token_layer(),
            c.kv_bytes_per_token(), c.attention_map_cells(5), c.attention_map_bytes(5), *c.counter_steps(3)]


def test_every_count_carries_a_formula_and_a_source():
    counts = [*every_count(DS), DS.mla_weights(), DS.mla_flops(), DS.kv_ratio(), DS.mla_score_scale()]
    for c in counts:
        assert isinstance(c, (Count, PerContext))
        assert c.formula and c.source and c.label
    assert "arXiv:2001.08361" in DS.flops_projection().source  # Kaplan et al. eq 2.2
    assert "arXiv:2405.04434" in DS.kv_bytes_per_token_layer("mla").source  # DeepSeek-V2
    assert DS.weights_per_head().formula == "d·d_k = 7,168 × 128"


def test_summary_is_json_ready():
    summary = DS.summary(4096)
    json.dumps(summary)
    assert summary["flops_per_token"]["value"] == 1_207_959_552
    assert summary["kv_ratio_mha_mla"]["formula"] == "65,536 / 1,152 bytes"
    assert "mla_weights" not in costs("vaswani-base").summary(7)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown matrix 'W_X'"):
        DS.weights_per_head("W_X")
    with pytest.raises(ValueError, match="unknown KV cache kind 'paged'; expected one of mha, gqa, mla"):
        DS.kv_bytes_per_token_layer("paged")
    with pytest.raises(ValueError, match="context length n must be an integer >= 0"):
        DS.flops_per_token().at(-1)
