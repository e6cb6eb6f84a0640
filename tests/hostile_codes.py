"""Hostile room codes, by class, built around a real room's code: what a client may put where a
code goes (the WebSocket path, /join/{code}, /remote/{code}, qr.svg). Every one of them must be
refused as no room (never a lookup of another key, never a 500); the forgiving forms (lowercase,
groups, spaces) must find the real room. Shared by the hub, in-process wire and Redis wire tests."""

from __future__ import annotations


def hostile(code: str) -> list[tuple[str, str]]:
    """(class, text) pairs that are not a room code."""
    return [
        ("suffix: the followers hash", f"{code}:followers"),
        ("suffix", f"{code}:x"),
        ("suffix, lowercase", f"{code.lower()}:followers"),
        ("prefix", f"room:{code}"),
        ("separator: colon", f"{code[:4]}:{code[4:]}"),
        ("separator: slash", f"{code[:4]}%2F{code[4:]}"),
        ("separator: dot", f"{code[:4]}.{code[4:]}"),
        ("separator: underscore", f"{code[:4]}_{code[4:]}"),
        ("separator: en dash", f"{code[:3]}\u2013{code[3:]}"),
        ("whitespace: tab", f"{code[:3]}\t{code[3:]}"),
        ("whitespace: newline", f"{code}\n"),
        ("whitespace: no-break space", f"{code[:3]}\u00a0{code[3:]}"),
        ("unicode: fullwidth", code.translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)})),
        ("unicode: dotless i upper-cases to I", code[:8] + "\u0131"),
        ("unicode: long s upper-cases to S", code[:8] + "\u017f"),
        ("unicode: ligature upper-cases to FF", code[:7] + "\ufb00"),
        ("unicode: Cyrillic A", code[:8] + "\u0410"),
        ("unicode: Kelvin sign", code[:8] + "\u212a"),
        ("unicode: zero-width space", f"{code[:3]}\u200b{code[3:]}"),
        ("too long", code * 3),
        ("very long", "A" * 4_000),  # (beyond about 8 kB the WebSocket layer itself answers 414)
        ("too short", code[:8]),
        ("empty group", "-"),
        ("glob: star", "*"),
        ("glob: star suffix", f"{code}*"),
        ("glob: star in place", f"{code[:8]}*"),
        ("glob: question mark", f"{code[:8]}?"),
        ("glob: bracket", f"{code[:7]}[{code[7]}]"),
        ("glob: open bracket", "["),
        ("glob: backslash", f"{code[:8]}\\"),
        ("letter U (not in the alphabet)", code[:8] + "U"),
        ("NUL", f"{code[:8]}\x00"),
    ]


def forgiven(code: str) -> list[tuple[str, str]]:
    """(class, text) pairs a person may type for ``code``: each finds the room."""
    return [("lowercase", code.lower()), ("groups", "-".join([code[:3], code[3:6], code[6:]])),
            ("spaces", f" {code[:3]} {code[3:6]} {code[6:]} ")]


def refused_everywhere(url: str, code: str) -> None:
    """Every hostile form of ``code`` at every entry point of the server at ``url``, while a follower
    of the room is connected (so that every key of the room exists): the WebSocket
    says "unknown room" and closes with 4404 (no dropped connection), the pages answer a JSON 4xx
    naming the field (never a 500); the forgiving forms open the real room's page."""
    import asyncio
    import json
    import urllib.error
    import urllib.request
    from urllib.parse import quote

    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    from fresh_loop import run

    def get(path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"{url}{path}", timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    async def socket(text: str, closes: bool = True) -> tuple[dict, int | None]:
        """The answer to a follower's hello, and the close code (when the server closes)."""
        async with connect(f"{url.replace('http://', 'ws://')}/ws/rooms/{quote(text, safe='')}",
                           open_timeout=10, max_size=None) as ws:
            await ws.send('{"type": "hello", "role": "follower"}')
            answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if not closes:
                return answer, None
            try:
                await asyncio.wait_for(ws.recv(), 10)
            except ConnectionClosed as closed:
                return answer, closed.rcvd.code
        raise AssertionError("the socket stayed open")

    async def sockets() -> None:
        async with connect(f"{url.replace('http://', 'ws://')}/ws/rooms/{code}", open_timeout=10) as follower:
            await follower.send('{"type": "hello", "role": "follower"}')
            while json.loads(await asyncio.wait_for(follower.recv(), 10))["followers"] != 1:
                pass  # counted: with Redis, the room's follower hash (…:followers) now exists
            await hostile_sockets()

    async def hostile_sockets() -> None:
        for kind, text in hostile(code):
            if "%2F" in text:
                continue  # another path: no room socket route at all
            answer, closed = await socket(text)
            assert (answer["type"], closed) == ("error", 4404), kind
            assert answer["message"].startswith("unknown room"), kind
        for kind, text in forgiven(code):
            answer, _ = await socket(text, closes=False)
            assert answer["type"] == "state", kind

    run(sockets())
    for kind, text in hostile(code):
        for path in (f"/join/{quote(text, safe='')}", f"/remote/{quote(text, safe='')}",
                     f"/join/{quote(text, safe='')}/qr.svg"):
            status, body = get(path)
            assert status in (404, 422) and json.loads(body)["message"].split(":")[0] in ("code", "path"), (kind, path)
    for kind, text in forgiven(code):
        status, body = get(f"/join/{quote(text, safe='')}")
        assert status == 200 and code in body, kind
