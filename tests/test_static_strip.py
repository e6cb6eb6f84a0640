"""web/strip.py and /static: the player's JS and CSS leave without their comments, every other
token the same and on the same line (acorn, the parser ESLint uses, reads every module under static/
before and after), each version of a file compressed once; a vendor's files (/docs-assets) and what
the stripper cannot scan go as they are."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import brotli
import pytest

from attention_talk.paths import data_dir
from attention_talk.web.strip import strip_css, strip_js

ROOT = Path(__file__).resolve().parents[1]
STATIC = data_dir("static")
# Prints the names of the files whose tokens (type, value, line) differ; stdin: [[name, before, after]].
TOKENS = """
const acorn = require(process.argv[1] + "/node_modules/acorn");
const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
const tokens = (src, sourceType) => [...acorn.tokenizer(src, { ecmaVersion: "latest", sourceType, locations: true,
  allowAwaitOutsideFunction: true })].map((t) => [t.type.label, String(t.value ?? ""), t.loc.start.line]);
const bad = [];
for (const [name, before, after] of items) {
  let a, b;
  try { a = tokens(before, "module"); b = tokens(after, "module"); }
  catch { a = tokens(before, "script"); b = tokens(after, "script"); }
  if (JSON.stringify(a) !== JSON.stringify(b)) bad.push(name);
}
console.log(JSON.stringify(bad));
"""


def test_every_module_keeps_its_tokens_and_lines() -> None:
    node = shutil.which("node")
    assert node and (ROOT / "node_modules" / "acorn").is_dir(), "node and acorn (ESLint's parser) are needed"
    items = []
    for path in sorted(STATIC.rglob("*.js")):
        before = path.read_text(encoding="utf-8")
        after = strip_js(before)
        assert after.count("\n") == before.count("\n"), path
        items.append([str(path.relative_to(STATIC)), before, after])
    assert len(items) > 100
    out = subprocess.run([node, "-e", TOKENS, str(ROOT)], input=json.dumps(items), capture_output=True,
                         text=True, check=True, timeout=120)
    assert json.loads(out.stdout) == []
    gz = [len(gzip.compress(s.encode(), 9)) for _, *pair in items for s in pair]
    assert sum(gz[1::2]) < 0.8 * sum(gz[0::2])  # the comments were a good part of the bytes


@pytest.mark.parametrize("src, out", [
    ("a = 1; // note\nb = 2;", "a = 1;\nb = 2;"),
    ("/** doc\n * more */\nexport const x = 1;", "\n\nexport const x = 1;"),
    ("a/**/b", "a b"),
    ('s = "// not a comment /* nor this */";', 's = "// not a comment /* nor this */";'),
    ("r = /[/*]+\\/\\//g; // gone", "r = /[/*]+\\/\\//g;"),
    ("x = a / b / c; // gone", "x = a / b / c;"),
    ("t = `a ${b ? `c ${d} // e` : '/*'} // f`; // g", "t = `a ${b ? `c ${d} // e` : '/*'} // f`;"),
    ("o = { k: `${ {a: 1}.a }` }; // h", "o = { k: `${ {a: 1}.a }` };"),
    ("if (x) return /a\\/b/.test(s); // i", "if (x) return /a\\/b/.test(s);"),
])
def test_strip_js_takes_comments_only(src, out) -> None:
    assert strip_js(src) == out


def test_strip_css_keeps_strings_and_lines() -> None:
    css = '/* head */\n.a::before { content: "/* kept */"; } /* tail\n two */ .b{}\n.c/**/.d {}'
    assert strip_css(css) == '\n.a::before { content: "/* kept */"; }\n .b{}\n.c .d {}'
    for path in sorted(STATIC.rglob("*.css")):
        before = path.read_text(encoding="utf-8")
        after = strip_css(before)
        assert "/*" not in after and after.count("\n") == before.count("\n"), path


@pytest.mark.parametrize("bad", ["a = 'open", "/* open", "r = /open", "t = `open"])
def test_what_cannot_be_scanned_raises(bad) -> None:
    with pytest.raises(ValueError):
        strip_js(bad)


def test_static_sends_the_stripped_file_compressed_once(client) -> None:
    source = (STATIC / "js" / "startup.js").read_text(encoding="utf-8")
    plain = client.get("/static/js/startup.js", headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and plain.text == strip_js(source)
    assert plain.headers["content-type"].startswith("text/javascript") and plain.headers["cache-control"] == "no-cache"
    br = client.get("/static/js/startup.js", headers={"Accept-Encoding": "br"})
    assert br.headers["content-encoding"] == "br" and br.headers["etag"] == "W/" + plain.headers["etag"]
    assert br.text == plain.text  # decoded by httpx
    assert int(br.headers["content-length"]) == len(brotli.compress(plain.content, quality=11))
    again = client.get("/static/js/startup.js", headers={"If-None-Match": br.headers["etag"]})
    assert again.status_code == 304
    css = client.get("/static/css/talk.css", headers={"Accept-Encoding": "identity"})
    assert css.headers["content-type"].startswith("text/css") and "/*" not in css.text
    assert client.get("/static/js/nope.js").status_code == 404
    icon = client.get("/static/favicon-32.png")
    assert icon.status_code == 200 and icon.headers["cache-control"] == "public, max-age=86400"


def test_a_file_the_stripper_cannot_scan_goes_as_it_is(tmp_path) -> None:
    from attention_talk.web.static import Static

    (tmp_path / "odd.js").write_text("const s = 'never closed\n// kept\n", encoding="utf-8")
    (tmp_path / "fine.js").write_text("// gone\nexport const x = 1;\n", encoding="utf-8")
    static = Static(directory=tmp_path, strip=True)
    assert static.stripped("odd.js", strip_js) is None
    assert static.stripped("fine.js", strip_js).body == b"\nexport const x = 1;\n"
    assert static.stripped("nope.js", strip_js) is None


def test_a_kept_copy_is_sent_on_the_loop_and_a_changed_file_is_stripped_again(tmp_path, monkeypatch) -> None:
    import os

    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.testclient import TestClient

    from attention_talk.web import static as static_module
    from attention_talk.web.static import Static

    hops = []
    real = static_module.off_loop

    async def counted(fn, *args):
        hops.append(args[0])
        return await real(fn, *args)

    monkeypatch.setattr(static_module, "off_loop", counted)
    path = tmp_path / "fine.js"
    path.write_text("// gone\nexport const x = 1;\n", encoding="utf-8")
    app = Starlette(routes=[Mount("/s", Static(directory=tmp_path, strip=True))])
    with TestClient(app) as client:
        first = client.get("/s/fine.js", headers={"Accept-Encoding": "identity"})
        again = client.get("/s/fine.js", headers={"Accept-Encoding": "identity"})
        assert first.text == again.text == "\nexport const x = 1;\n"
        assert hops == ["fine.js"]  # built once, off the loop; the second answer came from the kept copy
        path.write_text("// gone\nexport const y = 22;\n", encoding="utf-8")
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # a new version even on a coarse clock
        changed = client.get("/s/fine.js", headers={"Accept-Encoding": "identity"})
        assert changed.text == "\nexport const y = 22;\n" and hops == ["fine.js", "fine.js"]
        assert client.get("/s/nope.js").status_code == 404 and hops == ["fine.js", "fine.js", "nope.js"]
