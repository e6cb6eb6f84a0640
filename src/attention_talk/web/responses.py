"""Fast JSON responses (orjson); precomputed payloads with ETag / 304, compressed once."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Request, Response
from fastapi.responses import JSONResponse

from attention_talk.web.store import ENCODERS, Payload


class JSON(JSONResponse):
    """orjson, with NumPy arrays written directly (NaN as null)."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY)


def choose_coding(request: Request) -> str | None:
    """The first of ENCODERS (br, gzip) that Accept-Encoding allows (q > 0, or via ``*``), else None."""
    quality: dict[str, float] = {}
    for item in request.headers.get("accept-encoding", "").split(","):
        name, _, params = item.partition(";")
        q = params.strip()
        try:
            quality[name.strip().lower()] = float(q[2:]) if q.startswith("q=") else 1.0
        except ValueError:
            quality[name.strip().lower()] = 0.0
    return next((c for c in ENCODERS if quality.get(c, quality.get("*", 0.0)) > 0), None)


def cached_json(request: Request, payload: Payload, max_age: int) -> Response:
    """Send ``payload`` (brotli or gzip when accepted, compressed once and kept), or 304 when the
    client already holds this version. The ETag is strong for the identity bytes and weak for a
    compressed body (same content, other bytes); If-None-Match compares weakly, as RFC 9110 says."""
    coding = choose_coding(request)
    etag = payload.etag if coding is None else "W/" + payload.etag
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={max_age}, must-revalidate",
               "Vary": "Accept-Encoding"}
    match = request.headers.get("if-none-match", "")
    if payload.etag in {tag.strip().removeprefix("W/") for tag in match.split(",")} or match.strip() == "*":
        return Response(status_code=304, headers=headers)
    if coding is None:
        return Response(payload.body, media_type="application/json", headers=headers)
    return Response(payload.encoded(coding), media_type="application/json",
                    headers={**headers, "Content-Encoding": coding})
