"""The exports in a real Chromium: the static site plays every step of every deck like the live
server (same captions, same numbers, no error, no 404, nothing from elsewhere); the PDF has one
16:9 page per step with its text and fonts; the PNGs have one image per step at the asked size;
and another origin can embed a step and drive it with postMessage only when it is allowed to."""

from __future__ import annotations

import functools
import os
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

import pytest
from live_server import live_server

from attention_talk.export.site import export_site
from attention_talk.export.target import EXPORT_AGENT
from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from attention_talk.web.store import Store
from shared_app import default_app, default_store

DEMO_DECKS = Path(__file__).parent / "decks"
DECKS = ["attention-step-by-step", "attention-walkthrough"]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextmanager
def static_server(folder: Path) -> Iterator[str]:
    """A plain static file server (the standard library's), as any static host would be."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    export_site(default_app(), out, DECKS)
    with static_server(out) as url:
        yield url


# What a step shows, read the same way on both servers: the caption and every cell's text.
SHOWN = """() => [document.querySelector('#caption').textContent,
  [...document.querySelectorAll('.slide.active .canvas > .tensor:not(.leaving)')].map((g) =>
    g.dataset.tensor + ':' + [...g.querySelectorAll('.cell text')].map((t) => t.textContent).join(' '))]"""
AT = """([slide, step]) => { const { player: p, frames } = window.attentionTalk;
  return p.state.slide === slide && p.state.step === step && frames.peek(p.currentSlide.id, step); }"""


def watched(browser, origin: str):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    page = ctx.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("request", lambda r: problems.append(f"elsewhere: {r.url}")
            if urlparse(r.url).netloc not in ("", origin) and not r.url.startswith("data:") else None)
    return ctx, page, problems


@pytest.mark.parametrize("deck", DECKS)
def test_the_static_site_plays_every_step_like_the_server(browser, server_url, site_url, deck) -> None:
    static_ctx, static, problems = watched(browser, urlparse(site_url).netloc)
    live_ctx, live, _ = watched(browser, urlparse(server_url).netloc)
    static.goto(f"{site_url}/talk/{deck}/")
    live.goto(f"{server_url}/talk/{deck}")
    slides = live.evaluate("window.attentionTalk.player.slides.map(s => s.steps)")
    for n, steps in enumerate(slides, start=1):
        for step in range(1, steps + 1):
            if (n, step) != (1, 1):
                static.keyboard.press("ArrowRight")
                live.keyboard.press("ArrowRight")
            static.wait_for_function(AT, arg=[n, step])
            live.wait_for_function(AT, arg=[n, step])
            assert static.evaluate(SHOWN) == live.evaluate(SHOWN), f"#/{n}/{step}"
    assert static.evaluate("location.pathname") == f"/talk/{deck}/"
    static.goto(f"{site_url}/talk/{deck}/print/")  # the print view plays from files too
    static.wait_for_function("() => document.documentElement.dataset.ready === '1'")
    static.goto(f"{site_url}/talk/{deck}/presenter/")
    static.wait_for_selector("#presenter.ready", state="attached")
    assert problems == []
    static_ctx.close()
    live_ctx.close()


def export_cli(*args: str) -> subprocess.CompletedProcess:
    """The real command, in its own process (it starts its own Chromium), over the demo decks."""
    env = {**os.environ, "ATTENTION_TALK_DECKS_DIR": str(DEMO_DECKS)}
    return subprocess.run([sys.executable, "-m", "attention_talk", "export", *args], capture_output=True,
                          text=True, env=env, timeout=300)


def demo_steps(deck: str) -> int:
    return sum(len(s.steps) for s in Store.load(DEMO_DECKS).decks[deck].slides)


def test_pdf_has_one_16_9_page_per_step_with_text_and_fonts(tmp_path) -> None:
    from pypdf import PdfReader

    done = export_cli("presenting-demo", "--format", "pdf", "--out", str(tmp_path / "talk.pdf"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith(str(tmp_path / "talk.pdf")) and " MB in " in done.stdout
    reader = PdfReader(tmp_path / "talk.pdf")
    assert len(reader.pages) == demo_steps("presenting-demo")
    for page in reader.pages:
        box = page.mediabox
        assert float(box.width) / float(box.height) == pytest.approx(16 / 9, rel=2e-3)
    assert "Presenting demo" in reader.pages[0].extract_text()
    assert reader.metadata["/Creator"] == EXPORT_AGENT  # how a later export knows the file is its own
    fonts = reader.pages[0]["/Resources"]["/Font"]
    assert fonts
    for ref in fonts.values():
        font = ref.get_object()
        desc = font.get("/FontDescriptor") or font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
        assert any(k in desc.get_object() for k in ("/FontFile", "/FontFile2", "/FontFile3")), font["/BaseFont"]
    again = export_cli("presenting-demo", "--format", "pdf", "--out", str(tmp_path / "talk.pdf"))
    assert again.returncode == 0, again.stderr  # an earlier PDF export is replaced without --force
    assert not [f for f in tmp_path.iterdir() if f.name != "talk.pdf"]  # no temporary file left


def test_png_has_one_image_per_step_at_the_asked_size(tmp_path) -> None:
    done = export_cli("presenting-demo", "--format", "png", "--out", str(tmp_path / "png"), "--size", "1024x576")
    assert done.returncode == 0, done.stderr
    files = sorted((tmp_path / "png").glob("*.png"))
    assert len(files) == demo_steps("presenting-demo")
    assert files[0].name.startswith("01-") and files[0].name.endswith("-01.png")
    for f in files:
        head = f.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", head[16:24]) == (1024, 576)
    assert sorted(p.name for p in (tmp_path / "png").iterdir()) == sorted([".attention-talk-export",
                                                                           *(f.name for f in files)])
    again = export_cli("presenting-demo", "--format", "png", "--out", str(tmp_path / "png"), "--size", "1024x576")
    assert again.returncode == 0, again.stderr  # an earlier PNG export is written over without --force
    site = export_cli("presenting-demo", "--out", str(tmp_path / "png"))
    assert site.returncode == 2 and "holds an earlier png export, not site" in site.stderr


PARENT = """<!doctype html><html><head><title>parent</title></head><body>
<iframe id="talk" title="the talk" src="{app}/talk/attention-walkthrough?embed=1#/2/1"
        width="960" height="540"></iframe>
<script>
window.received = [];
window.addEventListener("message", (e) => window.received.push({{origin: e.origin, data: e.data}}));
window.go = (slide, step) => document.getElementById("talk").contentWindow
  .postMessage({{type: "attention-talk:go", slide, step}}, "{app}");
</script></body></html>"""


@contextmanager
def parent_page(tmp: Path) -> Iterator[tuple[str, Path]]:
    tmp.mkdir()
    with static_server(tmp) as url:
        yield url, tmp / "parent.html"


def test_an_allowed_origin_embeds_and_drives_a_step_and_another_is_refused(page, tmp_path) -> None:
    with parent_page(tmp_path / "ok") as (ok_url, ok_file), parent_page(tmp_path / "no") as (no_url, no_file):
        settings = Settings(frame_ancestors=f"'self' {ok_url}")
        with live_server(create_app(settings, store=default_store())) as app_url:
            ok_file.write_text(PARENT.format(app=app_url))
            no_file.write_text(PARENT.format(app=app_url))
            page.goto(f"{ok_url}/parent.html")
            talk = page.frame_locator("#talk")
            talk.locator("#player.ready").wait_for(state="attached")
            page.wait_for_function("() => window.received.some(m => m.data.type === 'attention-talk:state')")
            first = page.evaluate("window.received.find(m => m.data.type === 'attention-talk:state')")
            assert first["origin"] == app_url
            assert first["data"] | {} == {"type": "attention-talk:state", "deck": "attention-walkthrough",
                                          "slide": 2, "step": 1, "slides": first["data"]["slides"],
                                          "steps": first["data"]["steps"], "paused": False}
            assert talk.locator(".embed-open").get_attribute("href").endswith("#/2/1")
            page.evaluate("go(3, 2)")
            page.wait_for_function("() => window.received.some(m => m.data.slide === 3 && m.data.step === 2)")
            assert talk.locator("#player").get_attribute("data-step") == "2"
            page.evaluate("go(999, 1)")  # clamped to the deck, never an error
            page.wait_for_function("() => window.received.at(-1).data.slide === window.received.at(-1).data.slides")
            page.goto(f"{no_url}/parent.html")
            page.wait_for_timeout(1500)
            assert page.frame_locator("#talk").locator("#player").count() == 0  # the browser refused it
            assert page.evaluate("window.received") == []


def test_the_exported_speaker_view_says_live_rooms_need_the_server(browser, site_url) -> None:
    """A static export has no API: "Start live room" (and R) says the room needs the server and
    links the page that explains it, never "Unexpected token '<'" from a host's HTML 404 or 501; Q on
    the talk page says the same. Nothing is even asked of the host's /api/."""
    ctx, speaker, problems = watched(browser, urlparse(site_url).netloc)
    asked: list[str] = []
    speaker.on("request", lambda r: asked.append(r.url) if "/api/rooms" in r.url else None)
    speaker.goto(f"{site_url}/talk/{DECKS[0]}/presenter/")
    speaker.wait_for_selector("#presenter.ready", state="attached")
    for press in (lambda: speaker.locator("#room-start").click(), lambda: speaker.keyboard.press("r")):
        speaker.evaluate("document.querySelector('#room-status').textContent = ''")
        press()
        speaker.wait_for_function("() => document.querySelector('#room-status').textContent !== ''")
        status = speaker.locator("#room-status").inner_text()
        assert "needs the server" in status and "static export" in status, status
        assert "Unexpected token" not in status and "JSON" not in status
    help_link = speaker.locator("#room-status a")
    assert help_link.inner_text() == "What needs the server"
    href = help_link.evaluate("a => a.href")
    assert href == f"{site_url}/needs-server.html"
    assert "This part needs the server" in speaker.request.get(href).text()

    talk = ctx.new_page()
    talk.goto(f"{site_url}/talk/{DECKS[0]}/")
    talk.wait_for_selector("#player.ready", state="attached")
    talk.keyboard.press("q")
    talk.wait_for_selector("#room-qr:not([hidden])")
    assert talk.locator(".room-qr-link").inner_text() == "Live rooms need the server."
    assert asked == [] and problems == []
    ctx.close()
