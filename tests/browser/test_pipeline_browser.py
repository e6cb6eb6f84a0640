"""The walkthrough's pipeline figure (the ``pipeline`` widget, slide 6, four steps) in real Chromium:

- one frame stands around exactly the step's active stages (the frame's `first`…`active`);
- stepping moves that frame from the last step's place, on transform only;
- where the motion ends equals the reduced-motion drawing and loading the step by its URL."""

from __future__ import annotations

import pytest
from stage_probe import open_at, step_forward, tracked_page

DECK = "attention-walkthrough"
STEPS = ["#/6/1", "#/6/2", "#/6/3", "#/6/4"]

# The frame's box and the box around the active stages, both in the list's own (unscaled) units;
# the active stages' indices; the frame's style.
PLACE = """() => {
  const root = document.querySelector('.slide.active .widget-pipeline');
  const frame = root.querySelector('.pipe-frame');
  const lis = [...root.querySelectorAll('.pipe-stage')];
  const on = lis.map((li, i) => li.classList.contains('active') ? i : -1).filter((i) => i >= 0);
  const scale = root.getBoundingClientRect().height / root.offsetHeight;
  const top = root.getBoundingClientRect().top;
  const f = frame.getBoundingClientRect();
  const a = lis[on[0]].getBoundingClientRect(), b = lis[on[on.length - 1]].getBoundingClientRect();
  return { on, frame: [(f.top - top) / scale, f.height / scale],
           stages: [(a.top - top) / scale, (b.bottom - a.top) / scale],
           style: [frame.style.transform, frame.style.height] };
}"""
SETTLED = """async () => {
  const t0 = performance.now();
  const moving = () => document.getAnimations().some((a) => a.playState === 'running' || a.pending);
  while (moving() && performance.now() - t0 < 8000) await new Promise((r) => requestAnimationFrame(r));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""
# The frame's animations since the step began: the properties each keyframe changes.
FRAME_MOTION = """() => document.querySelector('.slide.active .pipe-frame').getAnimations()
  .map((a) => [...new Set(a.effect.getKeyframes().flatMap((k) => Object.keys(k)))]
  .filter((p) => !['offset', 'computedOffset', 'easing', 'composite'].includes(p)))"""


@pytest.fixture(scope="module")
def groups(browser, server_url):
    with tracked_page(browser) as page:
        frames = page.request.get(f"{server_url}/api/decks/{DECK}/slides/pipeline/frames").json()["frames"]
    return [next(w for w in f["widgets"] if w["type"] == "pipeline")["data"] for f in frames]


def test_the_frame_stands_around_the_active_stages(browser, server_url, groups) -> None:
    assert [(g["first"], g["active"]) for g in groups] == [(0, 2), (3, 3), (4, 6), (7, 8)]
    with tracked_page(browser) as page:
        for hash_, g in zip(STEPS, groups, strict=True):
            open_at(page, server_url, DECK, hash_)
            seen = page.evaluate(PLACE)
            assert seen["on"] == list(range(g["first"], g["active"] + 1)), hash_
            assert seen["frame"] == pytest.approx(seen["stages"], abs=1.0), hash_


def test_it_moves_on_transform_and_ends_as_the_reduced_motion_drawing(browser, server_url) -> None:
    with tracked_page(browser, motion="no-preference") as moving, tracked_page(browser) as still:
        open_at(moving, server_url, DECK, STEPS[0])
        moving.evaluate(SETTLED)
        for hash_ in STEPS[1:]:
            step_forward(moving, hash_)
            motion = moving.evaluate(FRAME_MOTION)
            assert motion, f"{hash_}: the frame did not move"
            assert all(props == ["transform"] for props in motion), (hash_, motion)
            moving.evaluate(SETTLED)
            open_at(still, server_url, DECK, hash_)
            end, loaded = moving.evaluate(PLACE), still.evaluate(PLACE)
            assert end["style"] == loaded["style"] and end["on"] == loaded["on"], hash_
            assert end["frame"] == pytest.approx(loaded["frame"], abs=0.5), hash_
