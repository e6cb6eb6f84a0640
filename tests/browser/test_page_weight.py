"""The first load stays light: what Chromium fetched before a deck's first step was painted (the
resource timings against that paint, as ``benchmarks/page.py`` measures them) weighs under its
TARGET_GZIP (64 kB; it says why) gzip on the wire, and the frames fetched by then are the first
slide's alone: the rest prefetch after the paint. Bytes, not times: the same page always weighs the same."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import page as page_bench

DECKS = ["attention-step-by-step", "attention-walkthrough", "real-heads"]


@pytest.mark.parametrize("deck", DECKS)
def test_the_first_paint_needs_under_the_byte_target_and_one_slides_frames(browser, server_url, deck) -> None:
    first, everything = page_bench.fetched(browser, f"{server_url}/talk/{deck}")
    frames = [u for u in first if "/api/decks/" in u and u.endswith("/frames")]
    manifest = httpx.get(f"{server_url}/api/decks/{deck}", timeout=60).json()
    assert [u.split("/slides/")[1].split("/")[0] for u in frames] == [manifest["slides"][0]["id"]]
    assert len(everything) > len(first)  # the other slides' frames and the later modules came after
    with httpx.Client() as client:
        totals, _ = page_bench.weigh(client, first, server_url)
    gzip = sum(t["gzip"] for t in totals.values())
    assert 10_000 < gzip < page_bench.TARGET_GZIP, totals
