"""Page weight: every byte a browser fetches to show the first slide, raw, gzip and brotli, as the
server sends them. The list of files comes from loading the page in headless Chromium; each is
then fetched again with each Accept-Encoding and its bytes on the wire counted.

Run with ``make bench``; prints a table, asserts nothing.
"""

from __future__ import annotations

from collections import defaultdict
from urllib.parse import urlparse

import httpx

from _serve import chromium, serving, verdict

DECK = "attention-step-by-step"
TARGET_GZIP = 60_000  # bytes of HTML + JS + CSS, gzip
REVEAL_CORE = 166_000  # reveal.js's core JS and CSS alone, raw (for scale)


def kind(content_type: str, path: str) -> str:
    ct = content_type.split(";")[0].strip()
    for name, needle in (("HTML", "html"), ("JS", "javascript"), ("CSS", "css"), ("JSON", "json")):
        if needle in ct:
            return name
    return "other" if not path.endswith(".svg") else "SVG"


def wire_bytes(client: httpx.Client, url: str, encoding: str) -> tuple[int, str]:
    with client.stream("GET", url, headers={"Accept-Encoding": encoding}) as r:
        return len(b"".join(r.iter_raw())), r.headers.get("content-type", "")


def main() -> None:
    with serving() as (base, _), chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        urls: list[str] = []
        page.on("requestfinished", lambda req: urls.append(req.url))
        page.goto(f"{base}/talk/{DECK}")
        page.wait_for_selector("#player.ready", state="attached")
        page.wait_for_load_state("networkidle")
        page.close()
        totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        files: dict[str, int] = defaultdict(int)
        with httpx.Client() as client:
            for url in dict.fromkeys(u for u in urls if u.startswith(base)):
                for encoding in ("identity", "gzip", "br"):
                    size, content_type = wire_bytes(client, url, encoding)
                    group = kind(content_type, urlparse(url).path)
                    totals[group][encoding] += size
                files[group] += 1
    print(f"## Page weight of the first slide of {DECK} (every file Chromium fetched, bytes on the wire)\n")
    print("| kind | files | raw | gzip | brotli |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for group in sorted(totals, key=["HTML", "JS", "CSS", "JSON", "SVG", "other"].index):
        t = totals[group]
        print(f"| {group} | {files[group]} | {t['identity']:,} | {t['gzip']:,} | {t['br']:,} |")
    core = {e: sum(totals[g][e] for g in ("HTML", "JS", "CSS")) for e in ("identity", "gzip", "br")}
    print(f"| **HTML + JS + CSS** | {sum(files[g] for g in ('HTML', 'JS', 'CSS'))} | {core['identity']:,} | "
          f"{core['gzip']:,} | {core['br']:,} |")
    print(f"\ntarget: HTML + JS + CSS under {TARGET_GZIP:,} bytes gzip: {verdict(core['gzip'] < TARGET_GZIP)} "
          f"(reveal.js's core JS and CSS alone: about {REVEAL_CORE:,} bytes raw)\n")


if __name__ == "__main__":
    main()
