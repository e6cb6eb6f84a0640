"""Chapter 2, the walkthrough: deck shape, layout, the engine's numbers through the API, MathML,
FlashAttention ending at exact attention, and derivations that recompute every cell they explain."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_talk.engine import attend
from attention_talk.frames import build_deck_frames, load_deck
from attention_talk.frames.contract import STAGE_H, STAGE_W
from attention_talk.frames.kit.derivations import derive_output, derive_projection, derive_scores, derive_weights
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.walkthrough.inputs import SENTENCE_MONEY, SENTENCE_RIVER, sentence
from attention_talk.paths import data_dir
from derivation_check import all_derivations, check_all, missing_derivations

DECK_ID = "attention-walkthrough"
DECK = data_dir("slides") / f"{DECK_ID}.yaml"
CAPTION_TOP = 780


def api_frames(client, slide: str) -> list[dict]:
    r = client.get(f"/api/decks/{DECK_ID}/slides/{slide}/frames")
    assert r.status_code == 200, r.text
    return r.json()["frames"]


def test_nine_sections_in_order_with_notes(deck) -> None:
    titles = [s.title for s in deck.slides[1:]]
    assert [t.split(" · ")[0] for t in titles] == [str(i) for i in range(1, 10)]
    assert 30 <= deck.step_count <= 40  # issue 31: a third shorter than the 59 steps it had
    for slide in deck.slides:
        assert slide.notes.strip()
        for step in slide.steps:
            assert len(step.caption) <= 60, step.caption
            assert step.narration.count(".") >= 1


def test_every_box_is_on_the_stage_and_above_the_caption_bar(frames) -> None:
    for slide_frames in frames.values():
        for f in slide_frames:
            for item in [*f.tensors, *f.notes, *f.widgets]:
                b = item.box
                assert b.x >= 0 and b.y >= 100 and b.x + b.w <= STAGE_W and b.y + b.h <= CAPTION_TOP, (
                    f.slide, f.step, getattr(item, "name", getattr(item, "id", "")))
                assert b.y + b.h <= STAGE_H


def test_bank_starts_equal_and_ends_different(deck) -> None:
    river, money = sentence(SENTENCE_RIVER, deck.story.seed), sentence(SENTENCE_MONEY, deck.story.seed)
    i, j = river.index("bank"), money.index("bank")
    np.testing.assert_array_equal(river.lookup[i], money.lookup[j])
    assert river.contextual[i][0] > river.contextual[i][1]  # by the river: more water than money
    assert money.contextual[j][1] > money.contextual[j][0]  # at the bank desk: more money
    assert river.attention.weights[i].sum() == pytest.approx(1.0)


def test_section_7_numbers_through_the_api(client) -> None:
    steps = api_frames(client, "multi-head")
    by_name = {t["name"]: t for t in steps[2]["tensors"]}  # head 2 step: A¹, outputs of both heads
    assert by_name["A1"]["values"][0] == pytest.approx([0.401, 0.198, 0.401], abs=5e-4)
    assert by_name["Z1"]["values"][0] == pytest.approx([0.802, 0.599], abs=5e-4)
    assert by_name["Z2"]["values"][0] == pytest.approx([0.503, 0.248], abs=5e-4)
    concat = {t["name"]: t for t in steps[4]["tensors"]}["cat"]  # step 4 draws the concat kind, step 5 the matrices
    assert concat["values"][0] == pytest.approx([0.802, 0.599, 0.503, 0.248], abs=5e-4)
    assert concat["shape"] == [3, 4]


def test_mathml_is_rendered_on_the_server(client) -> None:
    html = client.get(f"/talk/{DECK_ID}").text
    assert '<div class="equation-source" data-equation="attention">' in html
    assert "<math" in html and "<mfrac>" in html and "<msqrt>" in html
    assert "\\frac" not in html  # no LaTeX left for the browser


def test_flash_attention_is_causal_and_ends_equal_to_the_pipelines_z(client, deck) -> None:
    z = sentence(SENTENCE_RIVER, deck.story.seed, causal=True).attention.output  # the pipeline's Z = A·V
    steps = [f for f in api_frames(client, "the-cost") if any(w["type"] == "flash" for w in f["widgets"])]
    assert len(steps) >= 3
    datas = [next(w for w in f["widgets"] if w["type"] == "flash")["data"] for f in steps]
    final = datas[-1]
    assert final["final"] is True
    out = np.zeros_like(z)
    for t in final["tiles"]:  # the running Z of each query block after its last tile
        out[t["rows"][0]:t["rows"][1]] = t["o"]
        for i, row in enumerate(t["s"]):  # the causal mask inside a tile: −∞ (null) exactly above the diagonal
            for j, v in enumerate(row):
                assert (v is None) == (t["cols"][0] + j > t["rows"][0] + i)
    np.testing.assert_allclose(out, z, atol=1e-12)
    np.testing.assert_allclose(final["exact"], z, atol=1e-12)
    assert final["skipped"] == [{"rows": [0, 4], "cols": [4, 7]}]  # the tile above the diagonal
    assert not any(d.get("show_skip", False) for d in datas)
    currents = [d["current"] for d in datas[:-1]]
    assert currents == [0, len(final["tiles"]) - 1]  # the first tile, then the last (the middle one in its words)
    pipe_z = next(t for t in api_frames(client, "pipeline")[3]["tensors"] if t["name"] == "Z")
    np.testing.assert_allclose(pipe_z["values"], final["exact"], atol=5e-4)  # the matrix is sent rounded


def test_token_picker_is_causal_like_the_pipeline(frames, deck) -> None:
    causal = sentence(SENTENCE_RIVER, deck.story.seed, causal=True)
    picker = next(w for f in frames["self-cross-masks"] for w in f.widgets if w.type == "token-picker")
    rows = np.array(picker.data.rows)
    np.testing.assert_allclose(rows, causal.attention.weights, atol=1e-12)
    assert np.all(rows[np.triu_indices(len(rows), k=1)] == 0.0)  # no weight on a later token, exactly
    assert picker.data.causal is True and picker.data.scale_max == 1.0
    assert all(s == pytest.approx(1.0) for s in picker.data.sums)


def test_pipeline_names_follow_the_notation(frames) -> None:
    """S and S/√d_k + M keep the name S (one map changing); A, Z and O are tensors of their own. Each
    step draws its stages' inputs beside their output (stage 4: Q and Kᵀ beside S)."""
    names = [[t.name for t in f.tensors] for f in frames["pipeline"]]
    assert names == [["X", "Q"], ["Q", "Kt", "S"], ["S", "A"], ["Z", "O"]]
    labels = [[t.label for t in f.tensors] for f in frames["pipeline"]]
    assert labels[1] == ["Q = X·W_Q", "Kᵀ", "S = Q·Kᵀ"] and labels[2] == ["S / √d_k + M", "A = softmax(rows)"]
    assert labels[3] == ["Z = A·V", "O = Z·W_O"]
    pipe = [next(w for w in f.widgets if w.type == "pipeline").data for f in frames["pipeline"]]
    assert [(d.first, d.active) for d in pipe] == [(0, 2), (3, 3), (4, 6), (7, 8)]  # every stage, once, in order


def test_pipeline_stage_4_lines_kt_up_with_the_map(frames, deck) -> None:
    """Kᵀ sits above S with the same columns (each key's column over its column of scores), Q to
    its left with the same rows, and every score is the naive dot product of that row and column."""
    f = frames["pipeline"][1]
    q, kt, sc = (next(t for t in f.tensors if t.name == n) for n in ("Q", "Kt", "S"))
    assert kt.box.x == sc.box.x and kt.box.w == sc.box.w and q.box.y == sc.box.y and q.box.h == sc.box.h
    assert q.box.x + q.box.w <= sc.box.x and kt.box.y + kt.box.h <= sc.box.y
    qv, kv, sv = np.array(q.values), np.array(kt.values), np.array(sc.values)
    assert qv.shape == (7, 3) and kv.shape == (3, 7) and sv.shape == (7, 7)
    for r in range(7):
        for c in range(7):
            assert sv[r, c] == pytest.approx(sum(qv[r, t] * kv[t, c] for t in range(3)), abs=2e-6)


def test_probability_bars_fill_the_track_at_one(frames) -> None:
    for slide_frames in frames.values():
        for f in slide_frames:
            for w in f.widgets:
                if w.type == "weight-bars" and w.kind == "weights":
                    assert w.data.scale_max == 1.0, (f.slide, f.step, w.id)


def test_slider_counts_come_from_the_cost_model(frames) -> None:
    slider = next(w for f in frames["the-cost"] for w in f.widgets if w.type == "slider")
    for o in slider.data.options:
        assert o.cells == o.n ** 2 and o.bytes == 2 * o.n ** 2


def test_kv_cache_bytes_per_token_per_layer(frames) -> None:
    bars = next(w for f in frames["the-cost"] for w in f.widgets if w.id == "kvbars")
    assert bars.data.values == [65_536, 1_152]


# ---- derivations (checker shared with chapter 1: tests/derivation_check.py) -----------------------
@pytest.mark.parametrize("deck_id", [DECK_ID, "attention-step-by-step"])
def test_every_derivation_recomputes_its_cell(deck_id) -> None:
    assert check_all(build_deck_frames(load_deck(data_dir("slides") / f"{deck_id}.yaml"))) > 0


def test_walkthrough_derivations_cover_every_kind(frames) -> None:
    kinds = {t.derivation.kind for _, t in all_derivations(frames)}
    assert {"projection", "scores", "scaled", "masked", "weights", "output", "copy"} <= kinds


def test_long_sums_show_a_few_terms_and_the_rest() -> None:
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 7168)), rng.standard_normal((7168, 3))
    t = derive_projection(tensor("q", "q", "query", x @ w, (0, 0, 100, 100)), x, w)
    part = t.derivation.cells[0].parts[0]
    assert len(part.terms) == 3 and part.more == 7165
    assert sum(tm.a * tm.b for tm in part.terms) + part.more_sum == pytest.approx((x @ w)[0, 0])


def test_helpers_on_a_tiny_masked_head() -> None:
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    a = attend(q, q, q, causal=True)
    s = derive_scores(tensor("s", "s", "mask", a.masked, (0, 0, 9, 9)), a.q, a.k, scale=a.scale, mask=a.mask)
    blocked = next(c for c in s.derivation.cells if (c.r, c.c) == (0, 1))
    assert blocked.value is None and "hidden" in blocked.parts[-1].text
    w = derive_weights(tensor("w", "w", "weights", a.weights, (0, 0, 9, 9)), a.masked)
    assert next(c for c in w.derivation.cells if (c.r, c.c) == (0, 0)).value == pytest.approx(1.0)
    o = derive_output(tensor("o", "o", "output", a.output, (0, 0, 9, 9)), a.weights, a.v)
    assert [c.value for c in o.derivation.cells] == pytest.approx(a.output.ravel().tolist())


def test_ids_are_unique_within_each_frame(frames) -> None:
    for slide_frames in frames.values():
        for f in slide_frames:
            for items in ([t.name for t in f.tensors], [n.id for n in f.notes], [w.id for w in f.widgets]):
                assert len(items) == len(set(items)), (f.slide, f.step, items)


def test_every_walkthrough_matrix_explains_its_cells(frames) -> None:
    assert missing_derivations(frames) == set()


def test_equations_colour_each_role(client) -> None:
    """Q, K, V, M, A, Z, O and W_O carry their role (the stylesheet colours [mathcolor=role])."""
    html = client.get(f"/talk/{DECK_ID}").text
    for role, letter in [("query", "Q"), ("key", "K"), ("value", "V"), ("mask", "M"), ("weights", "A"),
                         ("output", "Z"), ("output", "O")]:
        assert f'<mstyle mathcolor="{role}"><mi>{letter}</mi></mstyle>' in html, (role, letter)
    assert '<mstyle mathcolor="weight"><msub><mi>W</mi><mi>O</mi></msub></mstyle>' in html


def test_mathcolor_takes_role_names_only() -> None:
    from attention_talk import mathml

    mathml.check(r"{\color{query}Q}")
    with pytest.raises(ValueError, match="mathcolor=red"):
        mathml.check(r"{\color{red}Q}")


def test_concept_cards_borrow_no_qkv_colour(frames) -> None:
    """Only cards that ARE a query, key or value (section 3's jobs, the equation's legend) use those colours."""
    allowed = {("queries-keys-values", "qkv"), ("the-equation", "legend")}
    for slide, slide_frames in frames.items():
        for f in slide_frames:
            for w in f.widgets:
                if w.type == "cards" and (slide, w.id) not in allowed:
                    assert {c.kind for c in w.data.cards} & {"query", "key", "value"} == set(), (slide, f.step, w.id)


# ---- section 7: heads that specialise (designed heads, engine-computed maps) ------------------------
def test_the_caveat_reads_the_sections_own_two_heads(frames) -> None:
    """One toy setup for section 7: the caveat's maps are the selector heads' A¹, A² of river, bank,
    flooded (head i reads two of X's four features; its scores q·k / √2, softmaxed with plain loops)."""
    from attention_talk.frames.walkthrough.inputs import MH_TOKENS, MH_X

    caveat = frames["multi-head"][-1]
    maps = {t.name: t for t in caveat.tensors}
    assert set(maps) == {"map1", "map2"} and caveat.widgets[0].type != "head-picker"
    for i, cols in enumerate(([0, 1], [2, 3])):
        x = [[MH_X[r][c] for c in cols] for r in range(3)]
        for r in range(3):
            scores = [sum(x[r][t] * x[c][t] for t in range(2)) / 2 ** 0.5 for c in range(3)]
            exps = [float(np.exp(v - max(scores))) for v in scores]
            np.testing.assert_allclose(maps[f"map{i + 1}"].values[r], [e / sum(exps) for e in exps], atol=1e-6)
        assert maps[f"map{i + 1}"].rows == maps[f"map{i + 1}"].cols == list(MH_TOKENS)
    builders = {f.builder for f in frames["multi-head"]}
    assert builders == {"walk.heads"}  # no second example inside the section


def test_the_output_is_a_blend_not_a_copy_of_a_row(frames, deck) -> None:
    """The pipeline's Z (the blend its last step says it is) equals no value row: each output row is
    a weighted average of the value rows it may see, recomputed here with plain loops."""
    s = sentence(SENTENCE_RIVER, deck.story.seed, causal=True)
    z = np.array(next(t for t in frames["pipeline"][3].tensors if t.name == "Z").values)
    a, v = s.attention.weights, s.attention.v
    n = len(s.tokens)
    naive = np.array([[sum(a[r, j] * v[j, c] for j in range(r + 1)) for c in range(v.shape[1])] for r in range(n)])
    np.testing.assert_allclose(z, naive, atol=1e-6)
    assert all(np.abs(v - z[r]).sum(axis=1).min() > 0.05 for r in range(1, n))  # beyond the first: no token's row


def test_one_notation_a_z_o(frames, deck) -> None:
    """A = the weights, Z = A·V a head's output, O = concat(Z…)·W_O; no Y, no 'weights·V'."""
    words = [s.caption + s.narration for sl in deck.slides for s in sl.steps]
    for slide_frames in frames.values():
        for f in slide_frames:
            words += [t.label for t in f.tensors] + [n.text for n in f.notes]
            assert "Y" not in {t.name for t in f.tensors}, (f.slide, f.step)
    assert not [w for w in words if "Y =" in w or "weights·V" in w or "Attention(" in w]
    labels = {t.name: t.label for f in frames["multi-head"] for t in f.tensors}
    assert labels["Z1"].startswith("head 1: Z¹ = A¹·V¹") and labels["O"].startswith("O = concat(Z¹, Z²)·W_O")


def _placed(f) -> dict[str, tuple]:
    """What a frame draws, by identity: each tensor, note and widget with its box."""
    out = {f"tensor {t.name}": t.box for t in f.tensors}
    out |= {f"note {n.id}": n.box for n in f.notes}
    out |= {f"widget {w.id}": w.box for w in f.widgets}
    return {k: (b.x, b.y, b.w, b.h) for k, b in out.items()}


def test_what_stays_on_screen_keeps_its_place_and_the_grid(frames) -> None:
    """VISUAL.md §3–4: a tensor, note or widget a slide shows on two steps in a row has the same box on
    both (a note or a matrix that stays does not jump), and every box keeps inside the grid's edges."""
    from attention_talk.frames.kit.layout import LEFT, RIGHT

    # the pipeline's outputs move on purpose: stage 1's Q becomes stage 4's left operand, stage 4's S the
    # input of stages 5–7 (each flies from where it was made to where it is used)
    flies = {("pipeline", 2, "tensor Q"), ("pipeline", 3, "tensor S")}
    moved, off_grid = [], []
    for slide_frames in frames.values():
        before: dict[str, tuple] = {}
        for f in slide_frames:
            now = _placed(f)
            for what, b in now.items():
                if before.get(what, b) != b and (f.slide, f.step, what) not in flies:
                    moved.append((f.slide, f.step, what, before[what], b))
                if b[0] < LEFT or b[0] + b[2] > RIGHT + 0.5:
                    off_grid.append((f.slide, f.step, what, b))
            before = now
    assert moved == []
    assert off_grid == []


def test_the_summary_cards_stack_from_the_top(frames) -> None:
    """Section 9 adds one card per step; stacked from the box's top, the earlier ones never move."""
    for f in frames["one-view"]:
        sums = [w for w in f.widgets if w.id == "sum"]
        assert len(sums) == 1 and sums[0].data.align == "top", f.step


# ---- slide 9's pictures: every pair one score (9/1), the toy sparse map (9/9) ---------------------
def test_the_pairs_map_is_every_score_of_the_river_sentence(frames, deck) -> None:
    river = sentence(SENTENCE_RIVER, deck.story.seed)
    pairs = next(t for t in frames["the-cost"][0].tensors if t.name == "pairs")
    oracle = river.q @ river.k.T / np.sqrt(river.q.shape[1])  # every pair scored, no mask
    np.testing.assert_allclose(pairs.values, oracle, atol=5e-4)
    assert tuple(pairs.shape) == (7, 7) and pairs.label.startswith("7 tokens → 7² = 49 scores")


def test_the_sparse_map_keeps_each_querys_top_keys(frames, deck) -> None:
    from attention_talk.frames.walkthrough.cost import SPARSE_KEEP

    river = sentence(SENTENCE_RIVER, deck.story.seed, causal=True)
    sparse = next(t for t in frames["the-cost"][-1].tensors if t.name == "sparse")
    s = river.q @ river.k.T / np.sqrt(river.q.shape[1])
    for i, row in enumerate(np.asarray(sparse.values)):
        allowed = s[i, : i + 1]  # causal: keys up to the query
        keep = np.argsort(-allowed, kind="stable")[:SPARSE_KEEP]
        e = np.exp(allowed[keep] - allowed[keep].max())
        want = np.zeros(len(row))
        want[keep] = e / e.sum()
        np.testing.assert_allclose(row, want, atol=5e-4)
        assert np.count_nonzero(row) == min(SPARSE_KEEP, i + 1)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 9), st.data())
def test_top_keys_property(n_q, n_k, keep, data) -> None:
    """The additive mask keeps exactly min(keep, allowed) keys per row, the largest allowed ones."""
    from attention_talk.frames.walkthrough.cost import top_keys

    scores = data.draw(arrays(np.float64, (n_q, n_k), elements=st.floats(-5, 5, allow_nan=False)))
    blocked = data.draw(arrays(np.bool_, (n_q, n_k)))
    masked = np.where(blocked, -np.inf, scores)
    m = top_keys(masked, keep)
    assert set(np.unique(m)) <= {0.0, -np.inf}
    for r in range(n_q):
        kept, allowed = np.isfinite(m[r]), np.isfinite(masked[r])
        assert kept.sum() == min(keep, allowed.sum()) and not (kept & ~allowed).any()
        if kept.any() and (allowed & ~kept).any():
            assert masked[r][kept].min() >= masked[r][allowed & ~kept].max()
