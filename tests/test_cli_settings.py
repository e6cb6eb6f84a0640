"""Bad settings and a missing decks folder: one line naming the variable and what is allowed, exit 2,
no traceback, before the server starts."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from attention_talk.cli import app as cli

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
    assert result.exit_code == 1 and result.output.strip() == f"{missing}: no such file or folder"
