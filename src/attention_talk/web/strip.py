"""Comments out of the player's JS and CSS, as ``/static`` sends them (``web/static.py``).

The sources explain themselves at length, and a browser has no use for that: about a third of the
bytes of the first paint's modules, gzip, were comments. Only comments go; every other byte stays
where it was, and a comment that spans lines leaves its line breaks behind, so a line and a column
in the browser's console or a stack trace are the source's own. A comment between two tokens on one
line becomes one space (``a/**/b`` stays two tokens), or nothing at the start of a line.

JS is scanned token by token as far as comments need: strings, template literals (with their
``${…}`` nested to any depth), regular expression literals (told from a division by the token before
the slash, as jsmin does) and comments. Anything the scanner cannot close (an unterminated string,
comment or regular expression) raises ValueError, and the file is sent as it is.
``tests/test_static_strip.py`` checks with acorn (the parser ESLint uses) that every module under
static/ gives the same tokens before and after."""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*")
_NUMBER = re.compile(r"\d[\w.]*|\.\d[\w.]*")
_SPACE = re.compile(r"[ \t\r\n\f\v\u00a0\ufeff]+")
# After these words a slash starts a regular expression, not a division.
_BEFORE_REGEX = frozenset({"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw",
                           "case", "do", "else", "yield", "await"})
_CLOSERS = frozenset(")]")


def _trim(out: list[str]) -> None:
    """Drop the spaces just written before a comment (they end its line, or sit before it)."""
    while out and out[-1] and out[-1][-1] in " \t":
        out[-1] = out[-1].rstrip(" \t")
        if not out[-1]:
            out.pop()


def _block_comment(src: str, i: int, out: list[str]) -> int:
    """Skip the /* … */ at ``i``: its line breaks stay, or one space when it has none."""
    end = src.find("*/", i + 2)
    if end < 0:
        raise ValueError(f"unterminated comment at {i}")
    breaks = src.count("\n", i, end)
    _trim(out)
    between = bool(out) and out[-1][-1:] not in ("\n", "")  # after a token on its line: a space keeps the two apart
    out.append("\n" * breaks if breaks else " " if between else "")
    return end + 2


def _quoted(src: str, i: int) -> int:
    """The index after the string literal that starts at ``i`` (its quote included)."""
    quote, j, n = src[i], i + 1, len(src)
    while j < n:
        c = src[j]
        if c == "\\":
            j += 2
        elif c == quote:
            return j + 1
        elif c == "\n":
            break
        else:
            j += 1
    raise ValueError(f"unterminated string at {i}")


def _template(src: str, i: int) -> tuple[int, bool]:
    """From inside a template literal at ``i``: the index after its closing backtick (and False),
    or after the ``${`` that opens a substitution (and True)."""
    j, n = i, len(src)
    while j < n:
        c = src[j]
        if c == "\\":
            j += 2
        elif c == "`":
            return j + 1, False
        elif c == "$" and src.startswith("${", j):
            return j + 2, True
        else:
            j += 1
    raise ValueError(f"unterminated template literal at {i}")


def _regex(src: str, i: int) -> int:
    """The index after the regular expression literal at ``i`` (its flags included)."""
    j, n, in_class = i + 1, len(src), False
    while j < n:
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            break
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            flags = _WORD.match(src, j + 1)
            return flags.end() if flags else j + 1
        j += 1
    raise ValueError(f"unterminated regular expression at {i}")


def strip_js(src: str) -> str:
    """``src`` (an ES module or a classic script) without its comments; see the module's docstring."""
    out: list[str] = []
    i, n = 0, len(src)
    regex_ok = True  # a slash here would start a regular expression
    depths: list[int] = []  # per open ${…}: the braces opened inside it and not yet closed
    while i < n:
        c = src[i]
        if c == "/" and src.startswith("//", i):
            end = src.find("\n", i)
            _trim(out)
            i = n if end < 0 else end
        elif c == "/" and src.startswith("/*", i):
            i = _block_comment(src, i, out)
        elif c in "'\"":
            end = _quoted(src, i)
            out.append(src[i:end])
            i, regex_ok = end, False
        elif c == "`" or (c == "}" and depths and depths[-1] == 0):
            if c == "}":
                depths.pop()
            end, opened = _template(src, i + 1)
            out.append(src[i:end])
            i, regex_ok = end, opened
            if opened:
                depths.append(0)
        elif c == "/" and regex_ok:
            end = _regex(src, i)
            out.append(src[i:end])
            i, regex_ok = end, False
        elif (space := _SPACE.match(src, i)) is not None:
            out.append(space.group())
            i = space.end()
        elif (token := _WORD.match(src, i) or _NUMBER.match(src, i)) is not None:
            out.append(token.group())
            i, regex_ok = token.end(), token.group() in _BEFORE_REGEX
        else:
            if depths and c in "{}":
                depths[-1] += 1 if c == "{" else -1
            out.append(c)
            i, regex_ok = i + 1, c not in _CLOSERS
    return "".join(out)


def strip_css(src: str) -> str:
    """``src`` (a style sheet) without its comments; strings kept as they are."""
    out: list[str] = []
    i, n = 0, len(src)
    while i < n:
        nxt = min((j for j in (src.find("/*", i), src.find('"', i), src.find("'", i)) if j >= 0), default=n)
        out.append(src[i:nxt])
        if nxt == n:
            break
        if src[nxt] == "/":
            i = _block_comment(src, nxt, out)
        else:
            end = _quoted(src, nxt)
            out.append(src[nxt:end])
            i = end
    return "".join(out)
