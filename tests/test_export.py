"""``attention-talk export``: the static site's links and files (without a browser), its command
line, and the embedding settings (frame-ancestors in the headers, checked when set)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from attention_talk.cli import app as cli
from attention_talk.export.command import parse_size
from attention_talk.export.local import ExportError
from attention_talk.export.site import export_site, local_path, relink
from attention_talk.web import create_app
from attention_talk.web.settings import Settings, SettingsError

ROOT = Path(__file__).resolve().parents[1]
DECKS = {"attention-step-by-step", "attention-walkthrough"}


@pytest.mark.parametrize("url, path", [
    ("/", "index.html"), ("/static/css/talk.css", "static/css/talk.css"),
    ("/talk/attention-walkthrough", "talk/attention-walkthrough/"),
    ("/talk/attention-walkthrough#/3/2", "talk/attention-walkthrough/#/3/2"),
    ("/talk/attention-walkthrough/presenter", "talk/attention-walkthrough/presenter/"),
    ("/talk/attention-walkthrough/print?notes=1", "talk/attention-walkthrough/print/notes/"),
    ("/talk/not-exported", "needs-server.html"), ("/lab?text=the+bank", "needs-server.html"),
    ("/docs", "needs-server.html"), ("/api/attention", "needs-server.html"),
])
def test_server_urls_map_to_files(url, path) -> None:
    assert local_path(url, DECKS) == path


def test_links_become_relative_to_the_page() -> None:
    page = '<html lang="en"><a href="/talk/attention-walkthrough/print">p</a><script src="/static/js/main.js">'
    out = relink(page, 3, DECKS)
    assert out.startswith('<html data-root="../../../" lang="en">')
    assert 'href="../../../talk/attention-walkthrough/print/"' in out
    assert 'src="../../../static/js/main.js"' in out and 'href="/' not in out


@pytest.fixture(scope="module")
def site(tmp_path_factory, app):
    out = tmp_path_factory.mktemp("site")
    summary = export_site(app, out, sorted(DECKS))
    return out, summary, app


def test_the_site_holds_every_page_and_frame_as_the_server_gives_them(site, client) -> None:
    out, summary, _ = site
    assert summary.files == sum(1 for f in out.rglob("*") if f.is_file())
    assert summary.bytes == sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    for deck in DECKS:
        manifest = client.get(f"/api/decks/{deck}").json()
        for page in ("", "presenter/", "print/", "print/notes/"):
            html = (out / "talk" / deck / page / "index.html").read_text()
            assert f'data-deck="{deck}"' in html or page.startswith("print")
            assert 'href="/' not in html and 'src="/' not in html  # every link relative
        for slide in manifest["slides"]:
            for what in ("frames", "derivations"):
                saved = orjson.loads((out / "api/decks" / deck / "slides" / slide["id"] / f"{what}.json").read_bytes())
                assert saved == client.get(f"/api/decks/{deck}/slides/{slide['id']}/{what}").json()
    for f in (ROOT / "static").rglob("*"):
        if f.is_file():
            assert (out / "static" / f.relative_to(ROOT / "static")).read_bytes() == f.read_bytes()
    index = (out / "index.html").read_text()
    assert all(f'href="./talk/{d}/"' in index for d in DECKS)
    assert "attention-talk serve" in (out / "needs-server.html").read_text()


def test_one_deck_exports_alone(tmp_path, app) -> None:
    export_site(app, tmp_path, ["attention-walkthrough"])
    assert not (tmp_path / "talk" / "attention-step-by-step").exists()
    index = (tmp_path / "index.html").read_text()
    assert "talk/attention-walkthrough/" in index and "attention-step-by-step" not in index
    (tmp_path / "stray").mkdir()
    export_site(app, tmp_path, ["attention-walkthrough"])  # an earlier export may be written over
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ExportError, match="not empty"):
        export_site(app, other, ["attention-walkthrough"])


@pytest.mark.parametrize("args, message", [
    (["export"], "give a DECK, or --all"),
    (["export", "nope"], "DECK 'nope': no such deck"),
    (["export", "attention-walkthrough", "--all"], "give a DECK, or --all"),
    (["export", "attention-walkthrough", "--format", "gif"], "--format 'gif': choose site, pdf or png"),
    (["export", "--all", "--format", "pdf"], "--format pdf exports one DECK"),
    (["export", "attention-walkthrough", "--format", "png", "--size", "big"], "--size 'big'"),
])
def test_export_errors_are_one_line(args, message, tmp_path) -> None:
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "x")])
    assert result.exit_code in (1, 2)
    assert message in result.output and "Traceback" not in result.output


def test_cli_exports_a_site_and_says_how_much(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["export", "attention-walkthrough", "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("s") and " files, " in result.output and " MB in " in result.output


def test_parse_size() -> None:
    assert parse_size("1920x1080") == (1920, 1080) and parse_size("1280×720") == (1280, 720)
    for bad in ("1920", "10x10", "99999x1080", "axb"):
        with pytest.raises(ExportError):
            parse_size(bad)


@pytest.mark.parametrize("value, ok", [
    ("'self'", True), ("'none'", True), ("'self' https://course.example.org", True),
    ("https://*.example.org:8443 http://127.0.0.1:*", True), ("https:", True),
    ("'self'; script-src *", False), ("https://x.org/path", False), ("'none' 'self'", False), ("", False),
    ("\"https://x.org\"", False),
])
def test_frame_ancestors_are_checked(monkeypatch, value, ok) -> None:
    monkeypatch.setenv("ATTENTION_TALK_FRAME_ANCESTORS", value)
    if ok:
        assert Settings.from_env().frame_ancestors == " ".join(value.split())
    else:
        with pytest.raises(SettingsError, match="ATTENTION_TALK_FRAME_ANCESTORS"):
            Settings.from_env()


def test_headers_follow_frame_ancestors() -> None:
    from fastapi.testclient import TestClient

    from shared_app import default_store

    store = default_store()
    default = TestClient(create_app(Settings(), store=store)).get("/")
    assert "frame-ancestors 'self'" in default.headers["content-security-policy"]
    assert default.headers["x-frame-options"] == "SAMEORIGIN"
    wide = TestClient(create_app(Settings(frame_ancestors="'self' https://course.example.org"), store=store))
    page = wide.get("/talk/attention-walkthrough")
    assert "frame-ancestors 'self' https://course.example.org" in page.headers["content-security-policy"]
    assert "x-frame-options" not in page.headers  # it cannot name two origins
    data = page.text.split('id="embed-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(data) == {"frame_ancestors": ["'self'", "https://course.example.org"]}


ORIGIN_CASES = [
    ["http://127.0.0.1:8000", ["'self'"], True], ["http://127.0.0.1:9000", ["'self'"], False],
    ["https://course.example.org", ["https://course.example.org"], True],
    ["https://course.example.org:8443", ["https://course.example.org"], False],
    ["https://a.example.org", ["https://*.example.org"], True],
    ["https://example.org", ["https://*.example.org"], False],
    ["http://127.0.0.1:9001", ["http://127.0.0.1:9001"], True],
    ["http://127.0.0.1:9002", ["http://127.0.0.1:9001"], False],
    ["https://x.org", ["https:"], True], ["http://x.org", ["https:"], False], ["null", ["'self'"], False],
    ["http://127.0.0.1:9002", ["http://127.0.0.1:*"], True], ["http://evil.org", ["'none'"], False],
    ["http://127.0.0.1:8000", ["127.0.0.1:8000"], True], ["https://evil.org", ["'self'", "https://good.org"], False],
]


def test_postmessage_origins_match_csp_sources_in_js() -> None:
    node = shutil.which("node")
    assert node, "node is needed to run the player's origin check (apt-get install nodejs)"
    module = (ROOT / "static/js/controllers/embed.js").as_uri()
    script = (f"globalThis.location = {{origin: 'http://127.0.0.1:8000', search: ''}};"
              f"const {{ originAllowed }} = await import('{module}');"
              f"const cases = {json.dumps(ORIGIN_CASES)};"
              "console.log(JSON.stringify(cases.map(([o, s]) => originAllowed(o, s, 'http://127.0.0.1:8000'))));")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [want for _, _, want in ORIGIN_CASES]


def test_a_missing_browser_is_one_line_saying_how_to_install(tmp_path) -> None:
    import os
    import sys

    env = {**os.environ, "ATTENTION_TALK_CHROMIUM": str(tmp_path / "no-chromium")}
    done = subprocess.run([sys.executable, "-m", "attention_talk", "export", "attention-walkthrough", "--format",
                           "pdf", "--out", str(tmp_path / "t.pdf")], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("export: Chromium did not start")
    assert "pip install 'attention-talk[export]'" in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "t.pdf").exists()
