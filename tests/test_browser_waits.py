"""The browser tests' waits are written so a slow machine cannot break them. Playwright's
``wait_for_function`` given an expression (``"document.x === 1"``) evaluates it with ``eval``
inside the page whenever the first try is false, and the talk's strict CSP (no 'unsafe-eval')
refuses that: the wait passes on a fast machine and fails on a loaded one. A function
(``"() => document.x === 1"``) is sent as code and is never evaluated as a string."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).parent
FUNCTION = re.compile(r"^\s*(async\s+)?(\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>|function\b)")


def expression_waits() -> list[str]:
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "wait_for_function" and node.args):
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and not FUNCTION.match(first.value):
                found.append(f"{path.relative_to(TESTS)}:{node.lineno}: {first.value[:60]}")
            elif isinstance(first, ast.JoinedStr) and not FUNCTION.match(str(getattr(first.values[0], "value", ""))):
                found.append(f"{path.relative_to(TESTS)}:{node.lineno}: an f-string not starting with a function")
    return found


def test_every_wait_for_function_is_given_a_function() -> None:
    assert expression_waits() == []


def test_the_check_finds_an_expression_and_passes_a_function() -> None:
    assert FUNCTION.match("() => document.hidden")
    assert FUNCTION.match("s => s.length")
    assert FUNCTION.match("(left) => { return left }")
    assert FUNCTION.match("function () { return 1 }")
    assert not FUNCTION.match("document.querySelector('#player').dataset.step === '1'")
    assert not FUNCTION.match("window.__ready")
