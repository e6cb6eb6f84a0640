"""The real model's mechanism kinds against their sources: ``rope``, ``gqa`` and ``sizes`` as chapter 3
(slides/real-heads.yaml, slides 2–4) draws them on SmolLM2-135M.

- the sizes, the rope base and the head counts are read here from the GGUF file with the ``gguf``
  package, independently of attention_talk.model;
- RoPE's angles are position × θᵢ with θᵢ = base^(−2i/d) written out as a loop; the scores are the
  rotated query · rotated key, the rotation written out pair by pair; the real pair's score is the
  model's own score of that query and key;
- the property RoPE is for (hypothesis): the angle between a query's and a key's arrow, and their
  score, depend only on their distance;
- the wiring is the engine's grouping of the file's 9 query heads onto its 3 key/value heads, the
  cache sizes a naive count of the numbers cached.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine.costs import costs
from attention_talk.engine.gqa import kv_head_of
from attention_talk.frames import build_deck, load_deck
from attention_talk.frames.kit.rope_gqa import drawn_angle, placed_columns
from attention_talk.paths import data_dir

DECK = Path(data_dir("slides")) / "real-heads.yaml"


@pytest.fixture(scope="module")
def gguf_meta(real_model) -> dict:
    """The metadata of the model file, read with the gguf package (not attention_talk.model)."""
    import gguf

    reader = gguf.GGUFReader(str(real_model.path))

    def field(key: str):
        f = reader.fields[key]
        return f.parts[f.data[0]].tolist()[0]

    arch = bytes(reader.fields["general.architecture"].parts[-1]).decode()
    return {"base": float(field(f"{arch}.rope.freq_base")), "heads": int(field(f"{arch}.attention.head_count")),
            "kv_heads": int(field(f"{arch}.attention.head_count_kv")),
            "d_model": int(field(f"{arch}.embedding_length")), "layers": int(field(f"{arch}.block_count")),
            "head_dim": int(field(f"{arch}.embedding_length")) // int(field(f"{arch}.attention.head_count"))}


@pytest.fixture(scope="module")
def frames(real_model):
    _deck, built = build_deck(load_deck(DECK), real_model)
    return built


def data(frames, slide: str, step: int, kind: str) -> dict:
    (w,) = [w for w in frames[slide][step - 1].widgets if w.type == kind]
    return w.model_dump(mode="json")["data"]


def naive_theta(base: float, d: int, i: int) -> float:
    return base ** (-2 * i / d)


def naive_rotate(x: np.ndarray, p: int, base: float) -> np.ndarray:
    """x turned pair by pair, (x[2i], x[2i+1]) by p·θᵢ: the rotation written out."""
    d, out = len(x), np.empty(len(x))
    for i in range(d // 2):
        a = p * naive_theta(base, d, i)
        out[2 * i] = x[2 * i] * math.cos(a) - x[2 * i + 1] * math.sin(a)
        out[2 * i + 1] = x[2 * i] * math.sin(a) + x[2 * i + 1] * math.cos(a)
    return out


def test_the_files_sizes_are_the_ones_drawn(gguf_meta, frames) -> None:
    assert (gguf_meta["heads"], gguf_meta["kv_heads"], gguf_meta["head_dim"]) == (9, 3, 64)
    rows = {r["title"]: r["bars"] for r in data(frames, "real-thing", 2, "sizes")["rows"]}
    assert len(next(iter(rows.values()))) == 1  # the file alone
    assert (rows["query heads × head width d_k"][0]["count"], rows["query heads × head width d_k"][0]["size"]) == (
        gguf_meta["heads"], gguf_meta["head_dim"])
    assert rows["key/value heads × d_k"][0]["count"] == gguf_meta["kv_heads"]
    assert rows["model width d"][0]["size"] == gguf_meta["d_model"]
    assert rows["layers"][0]["count"] == gguf_meta["layers"] == 30
    ds = costs("deepseek-v3.2").preset
    compared = {r["title"]: r["bars"] for r in data(frames, "real-thing", 3, "sizes")["rows"]}
    assert [b["count"] for b in compared["layers"]] == [gguf_meta["layers"], ds.layers]
    assert [b["count"] * b["size"] for b in compared["query heads × head width d_k"]] == [
        gguf_meta["heads"] * gguf_meta["head_dim"], ds.heads * ds.d_k]
    assert all(b["text"] for bars in compared.values() for b in bars)


def test_the_rope_angles_are_position_times_the_files_theta(gguf_meta, frames) -> None:
    drawn = data(frames, "rope", 1, "rope")
    base, d = gguf_meta["base"], gguf_meta["head_dim"]
    assert drawn["base"] == base == 100_000 and drawn["width"] == d and drawn["stage"] == "turn"
    assert [p["index"] for p in drawn["pairs"]] == [0, d // 16, d // 8, d // 2 - 1]
    for p in drawn["pairs"]:
        assert p["theta"] == pytest.approx(naive_theta(base, d, p["index"]), rel=1e-12)
    assert [c["q_pos"] for c in drawn["columns"]] == list(range(len(drawn["columns"])))
    for col in drawn["columns"]:
        for k, p in enumerate(drawn["pairs"]):
            want = col["q_pos"] * naive_theta(base, d, p["index"])
            assert col["q_angles"][k] == pytest.approx(want, rel=1e-12, abs=1e-15)
            assert drawn_angle(col["q"][k], col["q_angles"][k]) == pytest.approx(want, abs=1e-12)  # a unit arrow
    last = drawn["columns"][-1]["q_angles"]
    assert last[0] > 2 * math.pi and last[-1] < 1e-3  # the fast pair spins, the slow one barely moves


@pytest.mark.parametrize("step", [2, 3])
def test_the_rope_scores_are_the_rotated_dot_products(gguf_meta, frames, real_model, step) -> None:
    drawn = data(frames, "rope", step, "rope")
    base, d = gguf_meta["base"], gguf_meta["head_dim"]
    from attention_talk.frames.real_heads.analysis import analyse

    deck = load_deck(DECK)
    an = analyse(real_model, deck.story.sentence, deck.story.seed)
    job = an.jobs["previous"]
    maps = an.sentence.head(job.layer, job.head)
    m = drawn["columns"][0]["q_pos"]  # the focus token's own position: the first column's query
    assert an.sentence.tokens[m].strip() == deck.story.focus
    # one key throughout: the token the pair really is in the sentence (offsets: the outlined column)
    j = drawn["columns"][drawn["marked"] if drawn["stage"] == "offsets" else 0]["k_pos"]
    q0, k0 = naive_rotate(maps.q[m], -m, base), naive_rotate(maps.k[j], -j, base)  # both back at position 0
    for col in drawn["columns"]:
        want = naive_rotate(q0, col["q_pos"], base) @ naive_rotate(k0, col["k_pos"], base)
        assert col["score"] == pytest.approx(want, rel=1e-9, abs=1e-9)
        for k, p in enumerate(drawn["pairs"]):
            i = p["index"]
            assert col["q_angles"][k] == pytest.approx(col["q_pos"] * naive_theta(base, d, i), rel=1e-12, abs=1e-15)
            assert col["k_angles"][k] == pytest.approx(col["k_pos"] * naive_theta(base, d, i), rel=1e-12, abs=1e-15)
            np.testing.assert_allclose(col["q"][k], q0[2 * i: 2 * i + 2], atol=1e-9)
    scores = [c["score"] for c in drawn["columns"]]
    if drawn["stage"] == "offsets":
        real = drawn["columns"][drawn["marked"]]
        assert real["score"] == pytest.approx(float(maps.scores[real["q_pos"], real["k_pos"]]), abs=1e-4)
        assert np.ptp(scores) > 1.0  # other distances, other scores
    else:
        assert drawn["marked"] is None and np.ptp(scores) < 1e-6  # one distance, one score
        assert len({c["q_pos"] - c["k_pos"] for c in drawn["columns"]}) == 1


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(0, 500), gap=st.integers(0, 50), shift=st.integers(1, 5000))
def test_the_angle_between_q_and_k_depends_only_on_their_distance(seed, m, gap, shift) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=16), rng.normal(size=16)
    pairs = (0, 3, 7)
    a, b = placed_columns(q, k, [("here", m + gap, m), ("later", m + gap + shift, m + shift)], 10_000.0, pairs)
    for i in range(len(pairs)):
        between = [drawn_angle(c.k[i], c.k_angles[i]) - drawn_angle(c.q[i], c.q_angles[i]) for c in (a, b)]
        assert math.remainder(between[0] - between[1], 2 * math.pi) == pytest.approx(0, abs=1e-6)
    assert a.score == pytest.approx(b.score, rel=1e-7, abs=1e-7)


def test_the_wiring_is_the_engines_grouping_of_the_files_heads(gguf_meta, frames) -> None:
    for step in (1, 2, 3):
        drawn = data(frames, "gqa", step, "gqa")
        assert (drawn["heads"], drawn["kv_heads"]) == (gguf_meta["heads"], gguf_meta["kv_heads"]) == (9, 3)
        h, g = drawn["heads"], drawn["kv_heads"]
        assert drawn["groups"] == [kv_head_of(i, h, g) for i in range(h)] == [i // (h // g) for i in range(h)]
    assert data(frames, "gqa", 1, "gqa")["bars"] == []


def test_the_cache_bars_are_the_numbers_cached(gguf_meta, frames) -> None:
    L, h, g, d = gguf_meta["layers"], gguf_meta["heads"], gguf_meta["kv_heads"], gguf_meta["head_dim"]
    plain, grouped = L * h * (d + d) * 2, L * g * (d + d) * 2  # bytes per token, bf16: a K and a V per head
    bars = data(frames, "gqa", 2, "gqa")["bars"]
    assert [b["value"] for b in bars] == pytest.approx([1.0, grouped / plain])
    assert bars[0]["text"] == f"{plain:,} bytes" == "69,120 bytes"
    assert bars[1]["text"].startswith(f"{grouped:,} bytes") and "3.0× less" in bars[1]["text"]
    ds = costs("deepseek-v3.2").preset
    mla = data(frames, "gqa", 3, "gqa")["bars"]
    want = (ds.mla.kv_lora_rank + ds.mla.qk_rope_head_dim) / (ds.heads * (ds.d_k + ds.d_v))
    assert len(mla) == 3 and mla[2]["value"] == pytest.approx(want)
    assert mla[:2] == bars


def test_the_documented_examples_draw_their_kind(real_model, tmp_path) -> None:
    import yaml

    from attention_talk.frames.catalog import MECHANISM_EXAMPLES, MODEL_EXAMPLES

    deck = yaml.safe_load(DECK.read_text(encoding="utf-8"))
    deck["id"] = "examples"
    deck["slides"] = [{"id": k, "title": k, "notes": "an example", "steps": yaml.safe_load(MECHANISM_EXAMPLES[k])}
                      for k in MODEL_EXAMPLES]
    path = tmp_path / "examples.yaml"
    path.write_text(yaml.safe_dump(deck, allow_unicode=True), encoding="utf-8")
    _d, built = build_deck(load_deck(path), real_model)
    drawn = {k: [w.type for f in built[k] for w in f.widgets] for k in MODEL_EXAMPLES}
    assert drawn == {k: [k] for k in MODEL_EXAMPLES}
