"""Chapter 4's figures (issue 34, FACTS.md's MLA and KV-cache lines) out of the cost model, and the
context-length counts of engine/costs_deepseek.py against sums written out here."""

from __future__ import annotations

import pytest

from attention_talk.engine import costs
from attention_talk.engine.costs_deepseek import (
    cache_bytes,
    cache_numbers_per_token_layer,
    curves,
    dsa_flops_per_token,
    flops_per_token,
    indexer_weights,
    mla_flops_per_token,
)
from attention_talk.formatting import count

DS = costs("deepseek-v3.2")
N = 131_072


def test_the_chapters_cache_figures() -> None:
    assert DS.kv_bytes_per_token_layer("mla").value == 1_152
    assert DS.kv_bytes_per_token_layer("mha").value == 65_536
    assert DS.kv_bytes_per_token("mla").value == 70_272
    assert DS.kv_bytes_per_token("mha").value == 3_997_696
    assert count(round(DS.kv_ratio("mha", "mla").value, 1)) == "56.9"


def test_the_chapters_projection_and_flop_figures() -> None:
    assert DS.mla_weights().value == 187_105_280
    assert DS.mla_flops().value == 374_210_560
    dense = mla_flops_per_token(DS).at(N).value
    sparse = dsa_flops_per_token(DS, N).value
    assert f"{dense / 1e9:.2f}" == "36.88"
    assert f"{sparse / 1e9:.2f}" == "3.12"


def test_counts_equal_the_sums_written_out() -> None:
    d, h, r_q, r_kv, d_r, heads_i, d_i, k = 7168, 128, 1536, 512, 64, 64, 128, 2048
    proj = 2 * (d * r_q + r_q * h * 192 + d * (r_kv + d_r) + r_kv * h * 256 + h * 128 * d)
    per_key = 2 * h * (r_kv + d_r) + 2 * h * r_kv
    assert mla_flops_per_token(DS).at(N).value == proj + per_key * N
    assert indexer_weights(DS).value == r_q * heads_i * d_i + d * d_i + d * heads_i
    idx = 2 * indexer_weights(DS).value
    for n in (0, 1, 2047, 2048, 2049, N):
        assert dsa_flops_per_token(DS, n).value == proj + idx + 2 * heads_i * d_i * n + per_key * min(n, k)
    assert flops_per_token(DS, "mha", N).value == 939_524_096 + 65_536 * N
    assert cache_numbers_per_token_layer(DS, "dsa").value == r_kv + d_r + d_i
    assert cache_bytes(DS, "mla", N).value == 1_152 * 61 * N
    assert cache_bytes(DS, "mha", 4).value == 65_536 * 61 * 4


def test_dsa_costs_no_more_than_dense_mla_until_the_indexer_catches_up() -> None:
    for n in (1, 1000, 2048):
        assert dsa_flops_per_token(DS, n).value > mla_flops_per_token(DS).at(n).value  # the indexer's extra work
    for n in (4096, 16_384, N):
        assert dsa_flops_per_token(DS, n).value < mla_flops_per_token(DS).at(n).value
    c = curves(DS, [1024, N])
    assert [x.value for x in c["flops"]["mla"]] == [mla_flops_per_token(DS).at(n).value for n in (1024, N)]
    assert c["cache"]["dsa"][1].value > c["cache"]["mla"][1].value


def test_bad_kinds_and_contexts_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown attention kind 'gqa'; expected one of mha, mla, dsa"):
        flops_per_token(DS, "gqa", 4)
    with pytest.raises(ValueError, match="context length n must be an integer >= 0"):
        dsa_flops_per_token(DS, -1)
    with pytest.raises(ValueError, match="has no DSA indexer shapes"):
        indexer_weights(costs("vaswani-base"))
