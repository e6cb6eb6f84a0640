"""Frames travel light: a frame carries each explained cell's title and value, and the terms of
its computation come from ``GET …/slides/{slide}/derivations``; put back together they are exactly
the derivations the chapters built."""

from __future__ import annotations

import pytest

from attention_talk.frames import build_deck_frames
from attention_talk.frames.contract import CellDerivation

DECKS = ["attention-step-by-step", "attention-walkthrough", "deepseek-attention"]


@pytest.mark.parametrize("deck_id", DECKS)
def test_frames_and_derivations_rejoin_into_the_built_derivations(client, store, deck_id) -> None:
    built = build_deck_frames(store.decks[deck_id])
    checked = 0
    for slide in store.decks[deck_id].slides:
        frames = client.get(f"/api/decks/{deck_id}/slides/{slide.id}/frames").json()["frames"]
        parts = client.get(f"/api/decks/{deck_id}/slides/{slide.id}/derivations").json()
        assert parts["deck"] == deck_id and parts["slide"] == slide.id and len(parts["steps"]) == len(frames)
        for k, (served, original) in enumerate(zip(frames, built[slide.id], strict=True)):
            for t, t0 in zip(served["tensors"], original.tensors, strict=True):
                if t0.derivation is None:
                    assert t["derivation"] is None and t["name"] not in parts["steps"][k]
                    continue
                assert all("parts" not in c for c in t["derivation"]["cells"])  # the frame stays light
                for i, c0 in enumerate(t0.derivation.cells):
                    c = t["derivation"]["cells"][i]
                    whole = CellDerivation.model_validate({**c, "parts": parts["steps"][k][t["name"]][i]})
                    assert whole == c0  # exactly what the chapter built (derivation_check redoes those)
                    checked += 1
    assert checked > 100


def test_derivations_of_an_unknown_slide_or_deck_are_404(client) -> None:
    r = client.get("/api/decks/attention-walkthrough/slides/nope/derivations")
    assert r.status_code == 404 and "unknown slide 'nope'" in r.json()["detail"]
    assert client.get("/api/decks/nope/slides/x/derivations").status_code == 404


def test_frames_are_much_lighter_than_with_their_derivations(client, store) -> None:
    for deck_id in DECKS:
        frames = sum(len(client.get(f"/api/decks/{deck_id}/slides/{s.id}/frames").content)
                     for s in store.decks[deck_id].slides)
        parts = sum(len(client.get(f"/api/decks/{deck_id}/slides/{s.id}/derivations").content)
                    for s in store.decks[deck_id].slides)
        assert parts > frames  # the terms were most of the bytes
