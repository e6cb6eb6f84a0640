"""The colour table (static/css/colours.css, docs/colours.md): the one place a colour is written.

Every colour the views use is read here: colour literals in static/css/*.css and static/js/**/*.js,
and the fill / stroke / colour values JS sets. A literal outside the table, or a var() naming a
colour the table does not hold, fails. The table's own promises are computed from its numbers, in
both themes: each role's strongest tint stands ≥ 3:1 against the page with its number ≥ 4.5:1 on
it, the masked look stays visible with its "−∞" / "0" readable, and every frame kind has its role.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from attention_talk.frames.primitives import Kind

ROOT = Path(__file__).resolve().parents[1]
CSS = ROOT / "static" / "css"
JS = ROOT / "static" / "js"
TABLE = CSS / "colours.css"
THEMES = ("dark", "light")
# Custom properties that carry a colour from the table to one element: the role of a kind-* class
# (--c, its strongest tint --top, a cell's place on the scale --a) and the HTML hatch.
INDIRECT = {"--c", "--top", "--a", "--f"}
LENGTHS = {"--px"}  # a length in a border shorthand (reading.css), not a colour
NAMED = ("white", "black", "red", "green", "blue", "yellow", "orange", "purple", "pink", "gray", "grey",
         "silver", "navy", "teal", "maroon", "olive", "lime", "aqua", "fuchsia", "magenta", "cyan", "gold",
         "crimson", "coral", "tomato", "salmon", "violet", "indigo", "brown", "tan", "beige", "ivory")
LITERAL = re.compile(r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(")
COLOUR_PROPS = (r"(?:color|background(?:-color)?|fill|stroke|border(?:-[a-z]+)*|outline(?:-color)?|box-shadow"
                r"|accent-color|caret-color|text-shadow)")


def _strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def _strip_js_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)(^|[^:\"'`\\])//.*$", r"\1", text)


def _declarations(block: str) -> dict[str, str]:
    return {m[1]: m[2].strip() for m in re.finditer(r"(--[\w-]+)\s*:\s*([^;]+);", block)}


def table() -> dict[str, dict[str, str]]:
    """{theme: {custom property: value}}: the light theme is the dark one with its own rows over it."""
    text = _strip_comments(TABLE.read_text())
    root = re.search(r":root\s*\{(.*?)\}", text, flags=re.S)[1]
    light = re.search(r'\[data-theme="light"\]\s*\{(.*?)\}', text, flags=re.S)[1]
    dark = _declarations(root)
    return {"dark": dark, "light": {**dark, **_declarations(light)}}


def resolve(theme: dict[str, str], value: str) -> str:
    """A table value with its var() references followed (one theme)."""
    for _ in range(8):
        m = re.fullmatch(r"var\((--[\w-]+)\)", value.strip())
        if not m:
            return value.strip()
        value = theme[m[1]]
    raise AssertionError(f"var() loop at {value}")


def rgb(value: str) -> tuple[float, float, float, float]:
    value = value.strip()
    if value.startswith("#"):
        h = value[1:]
        if len(h) in (3, 4):
            h = "".join(c * 2 for c in h)
        parts = [int(h[i:i + 2], 16) for i in range(0, len(h), 2)]
        return (*parts[:3], parts[3] / 255 if len(parts) > 3 else 1.0)
    m = re.fullmatch(r"rgba?\(([^)]*)\)", value)
    assert m, value
    p = [float(x) for x in re.split(r"[ ,/]+", m[1].strip()) if x]
    return (p[0], p[1], p[2], p[3] if len(p) > 3 else 1.0)


def luminance(c) -> float:
    def f(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2])


def ratio(a, b) -> float:
    x, y = luminance(a), luminance(b)
    return (max(x, y) + 0.05) / (min(x, y) + 0.05)


def over(top, alpha: float, bottom) -> tuple[float, float, float]:
    return tuple(t * alpha + b * (1 - alpha) for t, b in zip(top[:3], bottom[:3], strict=True))


def colour(theme: str, name: str):
    t = table()[theme]
    return rgb(resolve(t, t[name]))


def number_of(theme: str, name: str) -> float:
    t = table()[theme]
    return float(resolve(t, t[name]))


def kind_roles() -> dict[str, str]:
    """kind → role custom property, from talk.css's .kind-* rules (a rule may name several kinds)."""
    text = _strip_comments((CSS / "talk.css").read_text())
    roles = {}
    for m in re.finditer(r"((?:\.kind-[\w-]+\s*,\s*)*\.kind-[\w-]+)\s*\{\s*--c:\s*var\((--[\w-]+)\);\s*"
                         r"--top:\s*var\((--[\w-]+)\);\s*\}", text):
        assert m[3] == f"{m[2]}-top", m[0]
        for kind in re.findall(r"\.kind-([\w-]+)", m[1]):
            roles[kind] = m[2]
    return roles


ROLE_NAMES = ("--query", "--key", "--value", "--weight", "--scores", "--weights", "--output", "--input",
              "--neutral", "--negative")


# ---------- one table ----------

def _sources():
    for f in sorted(CSS.glob("*.css")):
        if f != TABLE:
            yield f, _strip_comments(f.read_text())
    for f in sorted(JS.rglob("*.js")):
        yield f, _strip_js_comments(f.read_text())


def colour_literals(text: str) -> list[str]:
    found = [m[0] for m in LITERAL.finditer(text)]
    found += re.findall(rf"{COLOUR_PROPS}\s*:\s*(?:[^;{{}}]*\s)?({'|'.join(NAMED)})\b(?![-\w(])", text)
    return found


def test_no_colour_is_written_outside_the_table() -> None:
    outside = {f.relative_to(ROOT).as_posix(): lits for f, text in _sources() if (lits := colour_literals(text))}
    assert outside == {}


def test_the_scan_sees_every_way_to_write_a_colour() -> None:
    """The check above would catch each of these (it is not vacuous)."""
    for sample in ["a { color: #fff; }", "b { fill: rgb(1, 2, 3); }", "c { border: 1px solid red; }",
                   "d { background: hsl(1 2% 3%); }", 'el.style.stroke = "#123456";']:
        assert colour_literals(sample), sample
    for sample in ["a { color: var(--fg); }", "white-space: nowrap;", 'querySelector("#arrowhead")',
                   "fill: url(#masked-hatch) var(--mask-bg);", '[data-blackout="white"] { }']:
        assert not colour_literals(sample), sample
    # a named colour JS gives a fill, stroke or canvas style is not a var() of the table
    assert [v for v in _js_colour_values("ctx.fillStyle = 'white'; r.style.fill = \"var(--c)\";")
            if not _table_value(v)] == ["white"]


def _var_refs_in_colour_properties(text: str) -> set[str]:
    refs = set()
    for m in re.finditer(rf"(?<![\w-]){COLOUR_PROPS}\s*:\s*([^;{{}}]+)", text):
        refs |= set(re.findall(r"var\((--[\w-]+)", m[1]))
    return refs


def _js_colour_values(text: str) -> list[str]:
    """Values JS gives a fill, stroke or colour: attributes, style properties, canvas styles."""
    pattern = (r"(?:\b(?:fill|stroke|color|background|backgroundColor|fillStyle|strokeStyle)\b)\s*[:=]\s*"
               r"[\"'`]([^\"'`]*)[\"'`]")
    return re.findall(pattern, text)


def _table_value(value: str) -> bool:
    """A colour JS may write: none, currentColor, transparent or a var() (checked against the table);
    an animation's fill mode (Web Animations' `fill: "backwards"`) is no colour."""
    return value in ("none", "currentColor", "transparent", "backwards", "forwards", "both") or bool(
        re.fullmatch(r"var\(--[\w-]+\)", value))


def test_every_colour_a_view_names_is_in_the_table() -> None:
    names = set(table()["dark"]) | INDIRECT | LENGTHS
    missing = {}
    for f, text in _sources():
        refs = _var_refs_in_colour_properties(text) if f.suffix == ".css" else set()
        if f.suffix == ".js":
            for value in _js_colour_values(text):
                assert _table_value(value), (f.name, value)
                refs |= set(re.findall(r"var\((--[\w-]+)", value))
            refs |= {v for v in re.findall(r"getPropertyValue\([\"'`](--[\w-]+)", text)
                     if v not in ("--stage-scale", "--stage-fit")}
        if unknown := refs - names:
            missing[f.relative_to(ROOT).as_posix()] = sorted(unknown)
    assert missing == {}


def test_every_page_loads_the_table_first() -> None:
    base = (ROOT / "templates" / "base.html").read_text()
    links = re.findall(r'href="/static/css/([\w-]+)\.css"', base)
    assert links[:2] == ["colours", "talk"]
    docs = (ROOT / "templates" / "docs.html").read_text()
    assert re.findall(r'href="/static/css/([\w-]+)\.css"', docs) == ["colours", "docs"]
    for page in (ROOT / "templates").glob("*.html"):
        text = page.read_text()
        assert page.name in ("base.html", "docs.html") or '{% extends "base.html" %}' in text, page.name


# ---------- roles ----------

def test_every_frame_kind_has_a_role_colour_in_both_themes() -> None:
    roles = kind_roles()
    assert set(roles) == set(get_args(Kind))
    assert roles["mask"] == "--scores"  # the mask M and a masked map are scores; their cells hatch
    for theme in THEMES:
        for role in set(roles.values()) | {"--negative"}:
            colour(theme, role)
            number_of(theme, f"{role}-top")


def test_each_role_has_its_own_colour() -> None:
    """Distinct hues for distinct roles (weights and scores are one role: the map)."""
    for theme in THEMES:
        seen = {}
        for role in ROLE_NAMES:
            c = colour(theme, role)[:3]
            if role == "--weights":
                assert c == colour(theme, "--scores")[:3]
                continue
            assert c not in seen, (theme, role, seen.get(c))
            seen[c] = role


def test_selected_is_an_outline_not_a_role_colour() -> None:
    """"Selected", "the token we follow", the focus row: --select, never a role."""
    css = "".join(_strip_comments(f.read_text()) for f in CSS.glob("*.css"))
    selectors = [".token-chip.focus rect", ".dense-link.on", ".cell.hl rect", ".row-hl", ".picker-token.selected",
                 ".rnn-target.focus rect", ".head-chip.checked", ".grid-map.current", ".dense-node.on circle"]
    for sel in selectors:
        rule = re.search(re.escape(sel) + r"[^{]*\{([^}]*)\}", css)
        assert rule, sel
        body = rule[1]
        assert "var(--select)" in body, (sel, body)
        assert not re.search(r"var\(--(query|key|value|weight|scores|weights|output)\)", body), (sel, body)
    assert table()["dark"]["--select"] == "var(--fg)"


# ---------- contrast, from the table's numbers ----------

@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("role", [r for r in ROLE_NAMES if r != "--weights"])
def test_the_strongest_tint_stands_out_and_keeps_its_number_readable(theme, role) -> None:
    bg, fg, dim = colour(theme, "--bg"), colour(theme, "--fg"), colour(theme, "--dim-fg")
    top = number_of(theme, f"{role}-top")
    cell = over(colour(theme, role), top, bg)
    assert ratio(cell, bg) >= 3.0, (theme, role, top)  # the largest weight against the page
    assert ratio(fg, cell) >= 4.5, (theme, role, top)  # its number on it
    assert ratio(dim, over(colour(theme, role), top * 0.45, bg)) >= 3.0  # a dimmed row's (talk.css .dim)
    assert ratio(colour(theme, role), bg) >= 4.5  # the role as a title's text


@pytest.mark.parametrize("theme", THEMES)
def test_the_masked_look_stays_visible_and_readable(theme) -> None:
    bg, line, ground, text = (colour(theme, n) for n in ("--bg", "--mask-line", "--mask-bg", "--mask-text"))
    assert ratio(line, bg) >= 1.6 and ratio(line, colour(theme, "--panel")) >= 1.6  # the hatch shows
    assert ratio(text, line) >= 4.5 and ratio(text, ground) >= 4.5  # "−∞" / "0" over either stripe
    assert ratio(text, colour(theme, "--fg")) > 1.2  # greyed: not the numbers' colour


@pytest.mark.parametrize("theme", THEMES)
def test_below_zero_and_above_zero_look_different(theme) -> None:
    """The diverging scale: the negative half's colour is far from every role's, so −1.7 in any
    tensor never looks like +2.7 in it."""
    neg = colour(theme, "--negative")
    bg = colour(theme, "--bg")
    for role in ROLE_NAMES:
        if role == "--negative":
            continue
        pos = colour(theme, role)
        a = over(pos, number_of(theme, f"{role}-top"), bg)
        b = over(neg, number_of(theme, "--negative-top"), bg)
        assert sum(abs(x - y) for x, y in zip(a, b, strict=True)) > 60, (theme, role)
