"""The stage's type scale is stated twice, as CSS custom properties (static/css/talk.css --type-*)
for the style sheets and as static/js/lib/type.js TYPE for the views that size text from script:
the two must say the same numbers, and the stage's style sheets set no text below the floor
except where they say it is an index number."""

from __future__ import annotations

import re

from attention_talk.paths import data_dir

CSS = data_dir("static") / "css"
STAGE_SHEETS = ("talk.css", "walkthrough.css", "mechanisms.css")  # what draws on the stage (the others: chrome)
# Selectors whose text may sit under the floor: index numbers, and chrome off the stage.
OFF_THE_FLOOR = re.compile(r"axis-label|index|tick|position|skip-link|help|first-hint|lede|deck-list|lab-cta|not\(\.js")


def css_scale() -> dict[str, float]:
    text = (CSS / "talk.css").read_text()
    return {m[1]: float(m[2]) for m in re.finditer(r"--type-([a-z]+):\s*([\d.]+)px", text)}


def js_scale() -> dict[str, float]:
    text = (data_dir("static") / "js" / "lib" / "type.js").read_text()
    body = text[text.index("Object.freeze({"):]
    return {m[1]: float(m[2]) for m in re.finditer(r"^\s*([a-z]+):\s*([\d.]+),", body, re.M)}


def test_the_css_and_js_scales_agree() -> None:
    assert css_scale() == js_scale()
    assert set(css_scale()) >= {"title", "caption", "label", "dense", "index"}


def test_the_scale_meets_the_visual_floor() -> None:
    s = {k: v * 0.8 for k, v in css_scale().items()}  # CSS px at 1280 × 720
    assert s["title"] >= 44 and s["caption"] >= 34 and s["label"] >= 22
    assert s["dense"] >= 20 and s["index"] >= 16


def test_stage_sheets_set_no_text_below_the_floor() -> None:
    """A literal size under 25 stage units (20 CSS px at 1280 × 720) only for index numbers (a rule
    whose selector names an axis label, an index or a tick) and the page's chrome off the stage
    (the position line, help, the index page, the talk read without scripts), sized in CSS px."""
    low = []
    for name in STAGE_SHEETS:
        text = re.sub(r"/\*.*?\*/", "", (CSS / name).read_text(), flags=re.S)
        for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
            for px in re.findall(r"font-size:\s*([\d.]+)px", body):
                if float(px) < 25 and not OFF_THE_FLOOR.search(sel):
                    low.append((name, sel.strip(), px))
    assert low == []
