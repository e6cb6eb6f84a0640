"""Bad settings and a missing decks folder: one line naming the variable and what is allowed, exit 2,
no traceback, before the server starts. Every other command-line error: one line, exit 2. Decks are
named by id or path everywhere, and ``validate`` reports every problem of a deck at once."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attention_talk.cli import app as cli
from attention_talk.web.settings import Settings, SettingsError

ROOT = Path(__file__).resolve().parents[1]

CASES = [
    ({"ATTENTION_TALK_LOG_LEVEL": "loud"},
     "ATTENTION_TALK_LOG_LEVEL='loud': Input should be 'critical', 'error', 'warning', 'info', 'debug' or 'trace'"),
    ({"ATTENTION_TALK_PORT": "abc"}, "ATTENTION_TALK_PORT='abc': Input should be a valid integer"),
    ({"ATTENTION_TALK_PORT": "70000"}, "ATTENTION_TALK_PORT='70000': Input should be less than or equal to 65535"),
    ({"ATTENTION_TALK_WORKERS": "0"}, "ATTENTION_TALK_WORKERS='0': Input should be greater than or equal to 1"),
    ({"ATTENTION_TALK_ACCESS_LOG": "maybe"}, "ATTENTION_TALK_ACCESS_LOG='maybe': Input should be a valid boolean"),
    ({"ATTENTION_TALK_MAX_HEADER_BYTES": "10"},
     "ATTENTION_TALK_MAX_HEADER_BYTES='10': Input should be greater than or equal to 1024"),
    ({"ATTENTION_TALK_BODY_TIMEOUT": "0"}, "ATTENTION_TALK_BODY_TIMEOUT='0': Input should be greater than 0"),
    ({"ATTENTION_TALK_ATTENTION_CONCURRENCY": "none"},
     "ATTENTION_TALK_ATTENTION_CONCURRENCY='none': Input should be a valid integer"),
    ({"ATTENTION_TALK_REDIS_URL": "http://x"},
     "ATTENTION_TALK_REDIS_URL='http://x': the scheme must be redis://, rediss:// or unix://, not http://"),
    ({"ATTENTION_TALK_FRAME_ANCESTORS": "self"},
     "ATTENTION_TALK_FRAME_ANCESTORS='self': 'self': write 'self' with its single quotes"),
    ({"ATTENTION_TALK_MAX_BODY_BYTES": "100"},
     "ATTENTION_TALK_MAX_BODY_BYTES='100': Input should be greater than or equal to 1024"),
    ({"ATTENTION_TALK_SHUTDOWN_TIMEOUT": "inf"},
     "ATTENTION_TALK_SHUTDOWN_TIMEOUT='inf': Input should be a finite number"),
    ({"ATTENTION_TALK_DECKS_DIR": "/no/such/folder"},
     "ATTENTION_TALK_DECKS_DIR='/no/such/folder': the decks folder does not exist"),
]


@pytest.mark.parametrize(("env", "line"), CASES, ids=[next(iter(c[0])) for c in CASES])
def test_serve_refuses_a_bad_setting_in_one_line(env: dict, line: str) -> None:
    result = CliRunner().invoke(cli, ["serve"], env=env)
    assert result.exit_code == 2, result.output
    (only,) = result.output.strip().splitlines()
    assert only.startswith(line)


@pytest.mark.parametrize(("env", "line"), CASES[:-1], ids=[next(iter(c[0])) for c in CASES[:-1]])
def test_validate_refuses_a_bad_setting_in_one_line(env: dict, line: str) -> None:
    result = CliRunner().invoke(cli, ["validate"], env=env)
    assert result.exit_code == 2, result.output
    (only,) = result.output.strip().splitlines()
    assert only.startswith(line)


def test_validate_a_missing_folder_fails(tmp_path) -> None:
    missing = tmp_path / "nope"
    result = CliRunner().invoke(cli, ["validate"], env={"ATTENTION_TALK_DECKS_DIR": str(missing)})
    assert result.exit_code == 2
    assert result.output.strip() == f"{missing}: no such folder (the decks folder, ATTENTION_TALK_DECKS_DIR)"


# --- every setting × its class of bad value ------------------------------------------------------------

def _out_of_bounds() -> list[tuple[str, str, str]]:
    """(setting, a value just past one of its bounds, the reason pydantic gives), from the fields
    themselves: a bound added later is tested without a new row."""
    rows = []
    for name, field in Settings.model_fields.items():
        step = 1 if field.annotation is int else 0.5
        for meta in field.metadata:
            for attr, past, reason in (("ge", -step, "greater than or equal to"), ("gt", 0, "greater than"),
                                       ("le", step, "less than or equal to"), ("lt", 0, "less than")):
                bound = getattr(meta, attr, None)
                if bound is not None:
                    rows.append((name, str(bound + past), f"Input should be {reason} {bound}"))
    return rows


NUMBERS = {n for n, f in Settings.model_fields.items() if f.annotation in (int, float)}
SECONDS = {n for n, f in Settings.model_fields.items() if f.annotation is float}
BAD = [
    *_out_of_bounds(),
    *[(n, "lots", "Input should be a valid") for n in sorted(NUMBERS)],
    *[(n, v, "Input should be a finite number") for n in sorted(SECONDS) for v in ("inf", "-inf", "1e400")],
    ("log_level", "LOUD", "Input should be 'critical'"),
    ("access_log", "maybe", "Input should be a valid boolean"),
    ("model_preload", "2", "Input should be a valid boolean"),
    ("host", "localhost:8000", "give a host name or IP address"),
    ("host", "http://example.org", "give a host name or IP address"),
    ("host", "", "give a host name or IP address"),
    ("redis_url", "http://x", "the scheme must be redis://, rediss:// or unix://, not http://"),
    ("redis_url", "localhost:6379", "the scheme must be redis://, rediss:// or unix://"),
    ("redis_url", "redis://", "redis:// needs a host"),
    ("redis_url", "redis://redis:99999/0", "the port must be a number from 1 to 65535"),
    ("redis_url", "redis://redis:6379/zero", "the path must be a database number such as /0"),
    ("redis_url", "unix://", "unix:// needs the socket's path"),
    ("frame_ancestors", "self", "write 'self' with its single quotes"),
    ("frame_ancestors", "'self'; script-src *", "is not a frame-ancestors source"),
    ("frame_ancestors", "https://a..b.org", "is not a frame-ancestors source"),
    ("frame_ancestors", "https://-a.org", "is not a frame-ancestors source"),
    ("frame_ancestors", "ftp://a.org", "is not a frame-ancestors source"),
    ("frame_ancestors", "https://*", "is not a frame-ancestors source"),
    ("frame_ancestors", "https://a.org:99999", "the port must be a number from 1 to 65535, or *"),
    ("frame_ancestors", "https://a.org/path", "without a path"),
    ("frame_ancestors", "'none' https://a.org", "'none' cannot be combined"),
    ("frame_ancestors", "   ", "give at least one source"),
    ("room_origins", "talk.example.org", "each room origin must start with http:// or https://"),
    ("room_origins", "https://a.org,https://b.org/path", "without a path, query or user"),
    ("room_origins", "https://a.org:0x50", "the port must be a number"),
    ("public_url", "talk.example.org", "give an http:// or https:// URL with a host"),
    ("public_url", "https://talk.example.org/?x=1", "the base URL takes no query, fragment or user"),
    ("public_url", "ftp://talk.example.org", "give an http:// or https:// URL with a host"),
]


@pytest.mark.parametrize(("name", "value", "reason"), BAD, ids=[f"{n}={v}" for n, v, _ in BAD])
def test_every_bad_setting_is_one_line_naming_the_variable_and_why(monkeypatch, name, value, reason) -> None:
    variable = f"ATTENTION_TALK_{name.upper()}"
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as caught:
        Settings.from_env()
    (line,) = caught.value.lines
    assert line.startswith(f"{variable}={value!r}: ") and reason in line, line
    assert "\n" not in line and "Value error" not in line


GOOD = [("redis_url", "redis://redis:6379/0"), ("redis_url", "rediss://user:secret@redis.example.org:6380/1"),
        ("redis_url", "unix:///run/redis/redis.sock"), ("frame_ancestors", "'self' https://*.example.org:8443"),
        ("frame_ancestors", "*"), ("frame_ancestors", "http://127.0.0.1:*"), ("host", "0.0.0.0"), ("host", "::"),
        ("room_origins", "https://a.org, http://b.org:8080/"), ("public_url", "https://talk.example.org/talks")]


@pytest.mark.parametrize(("name", "value"), GOOD)
def test_good_settings_are_taken(monkeypatch, name, value) -> None:
    monkeypatch.setenv(f"ATTENTION_TALK_{name.upper()}", value)
    assert getattr(Settings.from_env(), name) == value


def test_serve_with_a_bad_redis_url_is_one_line_in_a_real_process() -> None:
    done = subprocess.run([sys.executable, "-m", "attention_talk", "serve"], capture_output=True, text=True,
                          env={**os.environ, "ATTENTION_TALK_REDIS_URL": "http://x"}, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "ATTENTION_TALK_REDIS_URL='http://x': the scheme must be redis://, rediss:// or unix://, not http://"]


# --- every command's errors: one line, exit status 2 -----------------------------------------------------

def _cli_errors(tmp: Path) -> list[tuple[list[str], str]]:
    a_file = tmp / "a-file.txt"
    a_file.write_text("not a folder")
    example = str(ROOT / "docs/example-deck.yaml")
    return [
        (["decks-doc", "--example", example, "--out", str(tmp)], f"attention-talk decks-doc: {tmp}: Is a directory"),
        (["decks-doc", "--example", str(tmp / "none.yaml"), "--out", str(tmp / "d.md")],
         f"attention-talk decks-doc: {tmp / 'none.yaml'}: No such file or directory"),
        (["decks-doc", "--example", example, "--out", str(a_file / "d.md")],
         f"attention-talk decks-doc: {a_file / 'd.md'}: Not a directory"),
        (["figures", str(tmp)], f"{tmp}: a folder, not a deck; give a deck id or a deck file"),
        (["figures", "no-such-deck"], "no-such-deck: no such deck file, and no deck with that id in "),
        (["figures", str(tmp / "gone.yaml")], f"{tmp / 'gone.yaml'}: no such deck file"),
        (["validate", str(tmp / "gone.yaml")], f"{tmp / 'gone.yaml'}: no such deck file"),
        (["export", "attention-walkthrough", "--out", str(a_file / "site")], f"{a_file} is a file, not a folder"),
        (["export", "no-such-deck", "--out", str(tmp / "s")], "export: DECK 'no-such-deck': no such deck in "),
        (["export", str(tmp / "gone.yaml"), "--out", str(tmp / "s")], f"{tmp / 'gone.yaml'}: no such deck file"),
        (["serve", "--port", "0"], "attention-talk serve: Invalid value for '--port'"),
        (["serve", "--workers", "many"], "attention-talk serve: Invalid value for '--workers'"),
        (["export", "--bogus"], "attention-talk export: No such option: --bogus"),
        (["export", "--format"], "attention-talk export: Option '--format' requires an argument"),
        (["schema", "extra"], "attention-talk schema: Got unexpected extra argument"),
        (["builders", "--all"], "attention-talk builders: No such option: --all"),
        (["bogus"], "attention-talk: No such command 'bogus'"),
    ]


def test_every_command_error_is_one_line_with_status_2(tmp_path) -> None:
    for args, said in _cli_errors(tmp_path):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, (args, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and said in lines[0], (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), args


def test_an_unexpected_error_is_one_line_too(monkeypatch) -> None:
    import attention_talk.deck

    def broken():
        raise RuntimeError("the schema broke")

    monkeypatch.setattr(attention_talk.deck, "json_schema", broken)
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 2
    assert result.output.strip() == "attention-talk schema: unexpected RuntimeError: the schema broke"


def test_the_installed_command_has_the_same_one_line_errors(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "attention_talk", "decks-doc", "--example",
                           str(ROOT / "docs/example-deck.yaml"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [f"attention-talk decks-doc: {tmp_path}: Is a directory"]


# --- decks by id or path; validate reports every problem at once ---------------------------------------

def test_figures_and_validate_take_a_deck_id_or_a_path() -> None:
    by_id = CliRunner().invoke(cli, ["figures", "attention-walkthrough"])
    by_path = CliRunner().invoke(cli, ["figures", str(ROOT / "slides/attention-walkthrough.yaml")])
    assert by_id.exit_code == by_path.exit_code == 0, by_id.output
    assert "    {d_model} = 7,168" in by_id.output.splitlines()
    assert by_id.output.splitlines()[1:] == by_path.output.splitlines()[1:]
    checked = CliRunner().invoke(cli, ["validate", "attention-walkthrough", str(ROOT / "docs/example-deck.yaml")])
    assert checked.exit_code == 0, checked.output
    assert [line.split(": ok")[0] for line in checked.output.splitlines()] == [
        str(ROOT / "slides/attention-walkthrough.yaml"), str(ROOT / "docs/example-deck.yaml")]


def test_validate_builds_a_model_deck_from_the_configured_model_file(tmp_path) -> None:
    """ATTENTION_TALK_MODEL_PATH is read by the settings and handed to the frames: validate uses the
    file it names, as the server does (the model package reads no environment)."""
    missing = tmp_path / "elsewhere.gguf"
    result = CliRunner().invoke(cli, ["validate", "real-heads"], env={"ATTENTION_TALK_MODEL_PATH": str(missing)})
    assert result.exit_code == 1
    assert f"this deck needs the model: no model file at {str(missing)!r}" in result.stderr


MISTAKES = [  # (what the example deck says, the mistake, what validate says about it)
    ("{builder: story.query, params: {stage: ask}}", "{builder: story.qurey, params: {stage: ask}}",
     "slide 2 (query) › step 1 › field frame.builder: unknown frame builder 'story.qurey'"),
    ("params: {stage: vector}", "params: {stage: sideways}",
     "slide 2 (query) › step 2 › field frame.params.stage: Input should be 'ask', 'vector' or 'dog'"),
    ("Every query meets every key.", "Every query meets 7168 keys.",
     "slide 3 (map) › step 1 › field caption: the number '7168' is typed into the words"),
    ("No token reads ahead.", "No token reads {ahead}.",
     "slide 3 (map) › step 2 › field caption: unknown figure {ahead}"),
]


def test_validate_reports_every_kind_of_mistake_at_once(tmp_path) -> None:
    text = (ROOT / "docs/example-deck.yaml").read_text().replace("id: example-deck", "id: many-mistakes")
    for good, bad, _ in MISTAKES:
        assert good in text
        text = text.replace(good, bad)
    deck = tmp_path / "many-mistakes.yaml"
    deck.write_text(text)
    result = CliRunner().invoke(cli, ["validate", str(deck)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == len(MISTAKES)
    for line, (_, _, said) in zip(lines, MISTAKES, strict=True):
        assert line.startswith(f"{deck}: {said}"), line


def test_validate_reports_every_step_whose_builder_fails(tmp_path, monkeypatch) -> None:
    from attention_talk.frames import chapters

    real = chapters.BUILDERS["story.map"]

    def failing(ctx, params):
        raise ValueError("no map today")

    monkeypatch.setitem(chapters.BUILDERS, "story.map", dataclasses.replace(real, func=failing))
    shutil.copy(ROOT / "docs/example-deck.yaml", tmp_path / "example-deck.yaml")
    result = CliRunner().invoke(cli, ["validate", str(tmp_path / "example-deck.yaml")])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert [line.split(" › field")[0].split(": ", 1)[1] for line in lines] == [
        "slide 3 (map) › step 1", "slide 3 (map) › step 2"]
    assert all("builder 'story.map' failed: ValueError: no map today" in line for line in lines)


def test_serve_on_a_taken_port_is_one_line() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--port", str(port)])
    assert result.exit_code == 2
    assert result.output.strip().startswith(f"attention-talk serve: cannot listen on 127.0.0.1:{port}: ")


def test_a_permission_error_while_exporting_is_one_line(tmp_path, monkeypatch) -> None:
    from attention_talk.export import target

    def denied(folder_fd, name, data):
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr(target, "replace_in", denied)
    result = CliRunner().invoke(cli, ["export", "attention-walkthrough", "--out", str(tmp_path / "site")])
    assert result.exit_code == 2
    marker = tmp_path / "site" / ".attention-talk-export"
    assert result.output.strip() == f"attention-talk export: {marker}: Permission denied"
