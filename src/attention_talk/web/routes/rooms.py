"""Live rooms over HTTP and WebSocket: start a room (``POST /api/rooms``), the follower's page
(``/join/{code}``) and its QR code, the phone remote (``/remote/{code}``), and the room socket
(``/ws/rooms/{code}``; protocol in ``rooms/messages.py``). The hub (``app.state.rooms``) starts and
stops with this router's lifespan.

The Host header never makes a link or lets a socket in (a page on any name that resolves here, as
with DNS rebinding, sends a matching Host and Origin): a link's base is ATTENTION_TALK_PUBLIC_URL,
else the address the request came to if it is one of the server's own (``own_origins``: its address
and port as served, read from the connection, and ATTENTION_TALK_ROOM_ORIGINS), else the address and
port the connection came in on. A browser's Origin must be one of the same.

Room sockets and room starts have bounds per worker and per client address (rooms/capacity.py):
a socket is counted from its handshake, a follower seated after its hello."""

from __future__ import annotations

import io
import ipaddress
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Request, Response, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.requests import HTTPConnection

from attention_talk.rooms import HubFull, HubUnavailable, RoomHub, RoomInfo
from attention_talk.rooms.capacity import Full, KeyedRate, SocketCounts, client_key, retry_after
from attention_talk.rooms.codes import normalise_code, secret_matches, spoken
from attention_talk.rooms.connection import TRY_LATER, Connection
from attention_talk.web.deps import SettingsDep, StoreDep, get_deck
from attention_talk.web.keys import FOLLOWER_KEYS
from attention_talk.web.offload import in_background, off_loop
from attention_talk.web.responses import JSON
from attention_talk.web.schemas import ERRORS, RemoteQrRequest, RoomCreated, RoomRequest
from attention_talk.web.settings import Settings
from attention_talk.web.templates import first_kinds, manifest, templates


@asynccontextmanager
async def hub_lifespan(app: FastAPI) -> AsyncIterator[None]:
    await app.state.rooms.start()
    try:
        yield
    finally:
        await app.state.rooms.stop()


router = APIRouter(lifespan=hub_lifespan)
CodePath = Annotated[str, Path(max_length=20, description="Room code, e.g. 7KQ2MX9D4 (case, dashes ignored)")]
BUSY = {503: {"description": "No room can be opened now (too many rooms, or Redis unavailable)."},
        429: {"description": "This client address started too many rooms of late; see Retry-After."}}
DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
Origin = tuple[str, str, int]  # scheme, host (lower case, IPv6 without brackets), port


async def get_hub(request: Request) -> RoomHub:
    return request.app.state.rooms


HubDep = Annotated[RoomHub, Depends(get_hub)]


def origin_of(url: str) -> Origin | None:
    """The origin of an http(s) URL or Origin header, its port filled in; None for anything else."""
    try:
        parts = urlsplit(url.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme]


def socket_origin(conn: HTTPConnection) -> Origin | None:
    """The origin of the address and port this connection came in on (from the socket, not Host)."""
    scheme = "https" if conn.url.scheme in ("https", "wss") else "http"
    server = conn.scope.get("server")
    if not server or not server[0]:
        return None  # an ASGI server that does not say
    return scheme, unmapped(str(server[0]).lower()), server[1] or DEFAULT_PORTS[scheme]


def unmapped(host: str) -> str:
    """An IPv4 address as itself, also where a dual-stack socket (``--host ::``) gives it as IPv6."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    mapped = getattr(ip, "ipv4_mapped", None)
    return str(mapped) if mapped else host


def served_origins(conn: HTTPConnection) -> set[Origin]:
    """The socket's origin, and its port under each loopback name: a page there is on the browser's
    own machine (this server, or a port mapping or tunnel to it, as ``docker run -p 8000:8000``);
    no other site can be on those names, so no page elsewhere can forge them."""
    origin = socket_origin(conn)
    if origin is None:
        return set()
    scheme, _, port = origin
    return {origin, *((scheme, name, port) for name in LOOPBACK_NAMES)}


def configured_origins(settings: Settings) -> set[Origin]:
    urls = [*settings.allowed_origins, *([settings.public_url] if settings.public_url else [])]
    return {origin for url in urls if (origin := origin_of(url))}


def own_origins(conn: HTTPConnection, settings: Settings) -> set[Origin]:
    return served_origins(conn) | configured_origins(settings)


def url_of(origin: Origin) -> str:
    scheme, host, port = origin
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}" if port == DEFAULT_PORTS[scheme] else f"{scheme}://{host}:{port}"


def base_url(request: Request, settings: Settings) -> str:
    """Where links point: ATTENTION_TALK_PUBLIC_URL; else the origin asked for (Host) when it is one of
    the server's own; else the address and port the request came in on."""
    if settings.public_url:
        return settings.public_url.rstrip("/")
    asked = origin_of(f"{request.url.scheme}://{request.headers.get('host', '')}")
    if asked is not None and asked in own_origins(request, settings):
        return url_of(asked)
    served = socket_origin(request)
    return url_of(served) if served else f"http://127.0.0.1:{settings.port}"


async def find_room(hub: RoomHub, code: str) -> tuple[str, RoomInfo]:
    normal = normalise_code(code)
    try:
        info = await hub.find(normal) if normal else None
    except HubUnavailable as exc:
        raise HTTPException(503, detail=f"{exc}; try again in a few seconds", headers={"Retry-After": "2"}) from None
    if info is None:
        raise HTTPException(404, detail=f"code: no live room {code!r} (wrong code, or it expired)")
    return normal, info


def qr_svg(url: str) -> Response:
    import segno  # on the first QR code, not at start-up

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", xmldecl=False, scale=8, border=2, dark="#000", light="#fff",
                                    title="QR code")
    return Response(out.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


@router.post("/api/rooms", tags=["rooms"], status_code=201, response_model=RoomCreated, response_class=JSON,
             responses={**ERRORS, **BUSY})
async def create_room(body: RoomRequest, request: Request, store: StoreDep, hub: HubDep,
                      settings: SettingsDep) -> dict:
    """Start a live room on a deck: its code, the presenter's secret, the join and remote links."""
    if store.find(body.deck) is None:  # built or still waiting to be (decks build on first use)
        raise HTTPException(404, detail=f"deck: unknown deck {body.deck!r}; known decks: "
                                        f"{', '.join(store.known())}")
    wait = room_starts(request.app).wait(client_key(request.client.host if request.client else None))
    if wait:
        seconds = retry_after(wait)
        raise HTTPException(429, headers={"Retry-After": str(seconds)}, detail=(
            f"rooms: your address started {settings.room_starts_per_minute:g} rooms within a minute "
            f"(ATTENTION_TALK_ROOM_STARTS_PER_MINUTE); try again in {seconds} s"))
    try:
        room = await hub.create(body.deck)
    except (HubFull, HubUnavailable) as exc:
        raise HTTPException(503, detail=str(exc), headers={"Retry-After": "5"}) from None
    base = base_url(request, settings)
    return {"code": room.code, "presenter_secret": room.secret, "join_url": f"{base}/join/{room.code}",
            "remote_url": f"{base}/remote/{room.code}#secret={room.secret}"}


@router.post("/api/rooms/{code}/remote-qr", tags=["rooms"], response_class=Response, responses={
    200: {"content": {"image/svg+xml": {}}, "description": "The remote link's QR code."}, **ERRORS})
async def remote_qr(code: CodePath, body: RemoteQrRequest, request: Request, hub: HubDep,
                    settings: SettingsDep) -> Response:
    """The phone remote's QR code (SVG); the secret comes in the body, never in a URL or a log."""
    normal, info = await find_room(hub, code)
    if not secret_matches(body.secret, info.digest):
        raise HTTPException(403, detail="secret: not this room's presenter secret")
    return qr_svg(f"{base_url(request, settings)}/remote/{normal}#secret={body.secret}")


@router.get("/join/{code}/qr.svg", tags=["rooms"], response_class=Response, responses={
    200: {"content": {"image/svg+xml": {}}, "description": "The join link's QR code."}, **ERRORS})
async def join_qr(code: CodePath, request: Request, hub: HubDep, settings: SettingsDep) -> Response:
    """The join link's QR code, for the audience screen."""
    normal, _ = await find_room(hub, code)
    return qr_svg(f"{base_url(request, settings)}/join/{normal}")


def room_data(code: str, info: RoomInfo) -> dict:
    return {"code": code, "spoken": spoken(code), "deck": info.deck}


@router.get("/join/{code}", include_in_schema=False, response_class=HTMLResponse)
async def join(code: CodePath, request: Request, hub: HubDep, store: StoreDep) -> HTMLResponse:
    """The talk, following the presenter: slide, step and blackout."""
    normal, info = await find_room(hub, code)
    deck = await get_deck(info.deck, store)
    return templates.TemplateResponse(request, "talk.html", {
        "deck": deck, "manifest": manifest(deck, notes=False), "keys": FOLLOWER_KEYS, "room": room_data(normal, info),
        "kinds": first_kinds(store, deck), "frame_ancestors": request.app.state.settings.frame_ancestors.split()})


@router.get("/remote/{code}", include_in_schema=False, response_class=HTMLResponse)
async def remote(code: CodePath, request: Request, hub: HubDep, store: StoreDep) -> HTMLResponse:
    """The presenter's phone: Previous, Next, Blackout, the caption, the notes and a timer."""
    normal, info = await find_room(hub, code)
    deck = await get_deck(info.deck, store)
    return templates.TemplateResponse(request, "remote.html", {
        "deck": deck, "manifest": manifest(deck), "room": room_data(normal, info)})


def origin_allowed(ws: WebSocket, settings: Settings) -> bool:
    """A browser always sends Origin: it must be one of the server's own (``own_origins``), never
    merely the Host it asked for. A client without Origin is not a browser, so no page rides on it."""
    origin = ws.headers.get("origin")
    return origin is None or origin_of(origin) in own_origins(ws, settings)


async def refuse_handshake(ws: WebSocket, status: int, message: str, close_code: int,
                           retry: int | None = None) -> None:
    """An HTTP answer instead of the upgrade (a JSON message, Retry-After when it is worth one); a
    server without denial responses gets a close with ``close_code`` instead."""
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        headers = {"Retry-After": str(retry)} if retry else None
        await ws.send_denial_response(JSONResponse({"message": message, "detail": message}, status_code=status,
                                                   headers=headers))
    else:
        await ws.close(close_code, message[:120])


def socket_counts(app: FastAPI) -> SocketCounts:
    """This worker's room socket counts (made on first use: an app under test may skip the lifespan)."""
    counts = getattr(app.state, "room_sockets", None)
    if counts is None:
        s: Settings = app.state.settings
        counts = app.state.room_sockets = SocketCounts(s.max_sockets, s.max_client_sockets, s.max_room_followers)
    return counts


def room_starts(app: FastAPI) -> KeyedRate:
    starts = getattr(app.state, "room_starts", None)
    if starts is None:
        starts = app.state.room_starts = KeyedRate(app.state.settings.room_starts_per_minute)
    return starts


@router.websocket("/ws/rooms/{code}")
async def room_socket(ws: WebSocket, code: str) -> None:
    """Follow or drive a room (JSON protocol: rooms/messages.py)."""
    settings: Settings = ws.app.state.settings
    if not origin_allowed(ws, settings):
        await refuse_handshake(ws, 403, "Origin: not one of this server's own origins "
                                        "(ATTENTION_TALK_PUBLIC_URL, ATTENTION_TALK_ROOM_ORIGINS)", 1008)
        return
    counts, client = socket_counts(ws.app), client_key(ws.client.host if ws.client else None)
    full: Full | None = counts.admit(client)
    if full is not None:
        await refuse_handshake(ws, full.status, full.message, TRY_LATER, full.retry_after)
        return
    try:
        await room_connection(ws, code, settings, counts).run()
    finally:
        counts.release(client)


def room_connection(ws: WebSocket, code: str, settings: Settings, counts: SocketCounts) -> Connection:
    store = ws.app.state.store
    if not store.is_read:  # a room made by another worker: read the decks in a thread while the socket says hello
        in_background(store.read, "read-decks")  # (a presenter's first move reads them)

    def deck_steps(deck_id: str) -> list[int] | None:
        deck = store.find(deck_id)
        return [len(s.steps) for s in deck.slides] if deck else None

    async def questions(deck_id: str, slide: int, step: int) -> tuple[str, int, int] | None:
        if deck_id not in store.decks and store.find(deck_id) is not None:  # not built on this worker yet
            await off_loop(store.try_ensure, deck_id)
        return store.questions.get((deck_id, slide, step))

    return Connection(ws, ws.app.state.rooms, code, deck_steps, settings.room_rate_limit, seats=counts,
                      questions=questions)  # it normalises
