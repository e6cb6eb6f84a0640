"""web/modules.py: the modules a page preloads are exactly what its first paint imports statically;
the controllers bound after it, and the widget views of slides not yet shown, are left out."""

from __future__ import annotations

import re
from types import SimpleNamespace

from attention_talk.paths import data_dir
from attention_talk.web.compression import Payload
from attention_talk.web.modules import first_paint_modules, first_views, module_graph, widget_views
from attention_talk.web.store import Store
from attention_talk.web.templates import first_kinds

JS = data_dir("static") / "js"
REGISTER = re.compile(r"""\bregisterWidget\(\s*["']([^"']+)["']""")
PRELOAD = re.compile(r'<link rel="modulepreload" href="([^"]+)">')
FIRST_VIEWS = re.compile(r'<script src="/static/js/prepaint.js" data-first-views="([^"]*)"></script>')
# Loaded after the first paint (startup.js, main.js) or when first used: never preloaded.
LATER = ["help", "blackout", "jump", "overview", "fullscreen", "sync", "derivation", "reading", "text-size",
         "onscreen", "touch", "theme", "speaker", "token-picker", "embed", "room-follower", "room-qr"]


def names(urls) -> set[str]:
    return {u.removeprefix("/static/js/") for u in urls}


def test_the_talk_preloads_what_its_first_paint_draws_and_nothing_else() -> None:
    talk = names(first_paint_modules("main.js"))
    assert {"startup.js", "player.js", "frames.js", "controllers/stage.js", "controllers/caption.js",
            "controllers/progress.js", "controllers/keyboard.js", "controllers/pending-keys.js",
            "views/frame.js", "views/matrix.js", "views/widget-views.js", "lib/stylesheet.js"} <= talk
    assert "main.js" not in talk
    assert talk.isdisjoint(f"controllers/{c}.js" for c in LATER)
    assert talk.isdisjoint(widget_views().values()), "no widget view before a slide needs it"
    assert all((JS / n).is_file() for n in talk)


def test_a_first_slide_with_widgets_adds_their_views_and_their_imports_once() -> None:
    plain = first_paint_modules("main.js")
    urls = first_paint_modules("main.js", ["token-picker", "growth", "token-picker"])
    assert urls[:len(plain)] == plain
    assert len(urls) == len(set(urls))
    added = names(urls[len(plain):])
    # token-picker.js imports roving.js and weight-bars.js; growth.js only modules already there
    assert added == {"views/token-picker.js", "views/roving.js", "views/weight-bars.js", "views/growth.js"}
    assert first_paint_modules("main.js", ["no-such-kind"]) == plain
    assert first_views("main.js", ["token-picker", "growth"]) == urls[len(plain):]
    assert first_views("main.js") == ()


def test_the_widget_table_names_each_kind_s_own_module() -> None:
    table = widget_views()
    registered = {}
    for path in sorted((JS / "views").glob("*.js")):
        for kind in REGISTER.findall(path.read_text(encoding="utf-8")):
            if path.name != "widgets.js":
                registered[kind] = f"views/{path.name}"
    assert table == registered
    assert len(table) == 26


def test_the_speaker_view_keeps_its_room_bar_and_leaves_the_overlays() -> None:
    presenter = names(first_paint_modules("presenter.js"))
    assert {"controllers/preview.js", "controllers/room-presenter.js", "controllers/timer.js"} <= presenter
    assert presenter.isdisjoint(f"controllers/{c}.js" for c in ["help", "overview", "jump", "blackout", "sync"])
    assert names(module_graph("print.js")) >= {"frames.js", "views/frame.js"}


def test_first_kinds_reads_the_first_slide_s_frames() -> None:
    store = Store()
    deck = SimpleNamespace(id="d", slides=[SimpleNamespace(id="s"), SimpleNamespace(id="t")])
    assert first_kinds(store, deck) == ()
    store.frames["d", "s"] = Payload.of({"frames": [{"widgets": [{"type": "growth"}, {"type": "cards"}]},
                                                    {"widgets": []}, {"widgets": [{"type": "growth"}]}]})
    store.frames["d", "t"] = Payload.of({"frames": [{"widgets": [{"type": "flash"}]}]})
    assert first_kinds(store, deck) == ("cards", "growth")


def test_the_pages_carry_those_links(client) -> None:
    for deck in ("attention-walkthrough", "attention-step-by-step"):
        html = client.get(f"/talk/{deck}").text
        # both decks' title slides draw the cover picture: its view is named for prepaint.js, which
        # preloads it when the page opens on the title (the hash is the browser's alone)
        assert PRELOAD.findall(html) == list(first_paint_modules("main.js"))
        assert FIRST_VIEWS.findall(html) == [" ".join(first_views("main.js", ["tokens"]))]
        assert first_views("main.js", ["tokens"]) == ("/static/js/views/tokens.js",)
        assert 'href="/static/css/present.css"' not in html and 'href="/static/css/reading.css"' not in html
        assert '"notes":' not in html  # the speaker notes stay in the speaker view
        presenter = client.get(f"/talk/{deck}/presenter").text
        assert PRELOAD.findall(presenter) == list(first_paint_modules("presenter.js", ["tokens"]))
        assert '"notes":' in presenter
