"""A deck's LaTeX equations as MathML, rendered on the server and safe to insert into a page.

latex2mathml copies ``\\text{...}`` verbatim, so a deck could smuggle HTML (``<meta
http-equiv=refresh>``, ``<script>``) into the page. Two guards: ``check`` rejects any equation
whose MathML holds an element or attribute outside the MathML allow-list (so ``attention-talk
validate`` and the server refuse the deck), and ``render`` always passes the markup through nh3
(ammonia) with the same allow-list, so nothing else can reach the page even if ``check`` were
skipped.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from html.parser import HTMLParser

import nh3

_TAG_NAME = re.compile(r"[^&\s]*")
TAGS = frozenset({
    "math", "semantics", "annotation", "mrow", "mi", "mo", "mn", "ms", "mtext", "mspace", "mfrac", "msqrt",
    "mroot", "msub", "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts", "mprescripts", "none",
    "mtable", "mtr", "mtd", "mlabeledtr", "mstyle", "mpadded", "mphantom", "menclose", "merror"})
ATTRIBUTES = frozenset({
    "xmlns", "display", "alttext", "mathvariant", "mathsize", "stretchy", "fence", "form", "separator", "accent",
    "accentunder", "columnalign", "columnspacing", "columnlines", "rowalign", "rowspacing", "rowlines", "frame",
    "width", "height", "depth", "lspace", "rspace", "linethickness", "movablelimits", "largeop", "symmetric",
    "minsize", "maxsize", "notation", "scriptlevel", "displaystyle", "encoding", "columnspan", "rowspan",
    "mathcolor"})
ROLES = frozenset({"input", "query", "key", "value", "scores", "mask", "weights", "output", "weight", "neutral"})
"""The only values ``mathcolor`` may take: ``\\color{query}{Q}`` colours Q by its role, and the
stylesheet maps ``[mathcolor="query"]`` to the role's colour (a role name is no CSS colour, so
the attribute alone changes nothing)."""
_MATHCOLOR = re.compile(r'mathcolor="([^"]*)"')


class _Inventory(HTMLParser):
    """Every element and attribute name in a piece of markup."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attrs: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)

    handle_startendtag = handle_starttag


def _convert(latex: str) -> str:
    from latex2mathml.converter import convert

    try:
        return convert(latex, display="block")
    except Exception as exc:  # latex2mathml raises several exception types
        raise ValueError(f"not valid LaTeX ({type(exc).__name__}{': ' + str(exc) if str(exc) else ''})") from None


def check(latex: str) -> None:
    """Raise ValueError if ``latex`` does not convert, or converts to anything but MathML."""
    inv = _Inventory()
    inv.feed(_convert(latex))
    bad_tags = sorted(inv.tags - TAGS)
    bad_attrs = sorted(inv.attrs - ATTRIBUTES)
    bad_attrs += sorted(f"mathcolor={c}" for c in set(_MATHCOLOR.findall(_convert(latex))) - ROLES)
    if bad_tags or bad_attrs:
        what = ", ".join([f"<{_TAG_NAME.match(t).group(0)}>" for t in bad_tags]
                         + [f"attribute {a!r}" for a in bad_attrs])
        raise ValueError(f"contains markup that is not MathML ({what}); write plain text inside \\text{{...}}")


_UPRIGHT_LETTERS = re.compile(r'(?:<mi mathvariant="normal">[^<&]</mi>){2,}')
_LETTER = re.compile(r'<mi mathvariant="normal">([^<&])</mi>')
_COLOR = re.compile(r"\\color\{[^}]*\}")
_COMMAND_WORD = re.compile(r"\\(?:mathrm|operatorname|text|mathit|mathbf)\b")


def _words(markup: str) -> str:
    """``\\mathrm{Attention}`` becomes one identifier, not nine letters a screen reader spells out."""
    return _UPRIGHT_LETTERS.sub(lambda m: f'<mi mathvariant="normal">{"".join(_LETTER.findall(m.group(0)))}</mi>',
                                markup)


_FRAC = re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_GROUP = re.compile(r"(?<![A-Za-z}])\{([^{}]*)\}")  # a bare group: not a command's argument
_SPOKEN = {
    r"\qquad": " ", r"\quad": " ", r"\ldots": " … ", r"\cdots": " … ", r"\dots": " … ", r"\left": "",
    r"\right": "", r"^\top": " transposed", r"\top": "transposed", r"\cdot": " times ", r"\times": " times ",
    r"\infty": "infinity", r"\in": " in ", r"\mathbb": "", r"\,": " ", r"\;": " ",
}


def alttext(latex: str) -> str:
    """The equation in words for ``alttext`` (what a reader without MathML support says): no colour
    or font commands, fractions as "a over b", roots as "square root of", no braces."""
    text = _COMMAND_WORD.sub("", _COLOR.sub("", latex))
    for _ in range(8):  # innermost first: fractions and roots whose parts hold no more braces
        before = text
        text = _FRAC.sub(r"(\1) over (\2)", text)
        text = _SQRT.sub(r"square root of (\1)", text)
        text = _GROUP.sub(r"\1", text)
        if text == before:
            break
    for tex, words in _SPOKEN.items():
        text = text.replace(tex, words)
    text = re.sub(r"[_]", " sub ", text).replace("^", " to the power ")
    return " ".join(text.replace("\\", " ").split())


@lru_cache(maxsize=512)
def render(latex: str) -> str:
    """``latex`` as sanitised MathML markup, with ``alttext`` and whole words as single identifiers."""
    clean = nh3.clean(_convert(latex), tags=set(TAGS), attributes={t: set(ATTRIBUTES) for t in TAGS},
                      strip_comments=True, link_rel=None)
    clean = _words(clean)
    return clean.replace("<math ", f'<math alttext="{html.escape(alttext(latex), quote=True)}" ', 1)
