"""Live rooms over HTTP and WebSocket: start a room (``POST /api/rooms``), the follower's page
(``/join/{code}``) and its QR code, the phone remote (``/remote/{code}``), and the room socket
(``/ws/rooms/{code}``; protocol in ``rooms/messages.py``). The hub (``app.state.rooms``) starts and
stops with this router's lifespan."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Request, Response, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse

from attention_talk.rooms import HubFull, HubUnavailable, RoomHub, RoomInfo
from attention_talk.rooms.codes import normalise_code, secret_matches, spoken
from attention_talk.rooms.connection import Connection
from attention_talk.web.deps import SettingsDep, StoreDep, get_deck
from attention_talk.web.keys import FOLLOWER_KEYS
from attention_talk.web.responses import JSON
from attention_talk.web.routes.pages import first_kinds, manifest, templates
from attention_talk.web.schemas import ERRORS, RemoteQrRequest, RoomCreated, RoomRequest
from attention_talk.web.settings import Settings


@asynccontextmanager
async def hub_lifespan(app: FastAPI) -> AsyncIterator[None]:
    await app.state.rooms.start()
    try:
        yield
    finally:
        await app.state.rooms.stop()


router = APIRouter(lifespan=hub_lifespan)
CodePath = Annotated[str, Path(max_length=20, description="Room code, e.g. 7KQ2MX9D4 (case, dashes ignored)")]
BUSY = {503: {"description": "No room can be opened now (too many rooms, or Redis unavailable)."}}


async def get_hub(request: Request) -> RoomHub:
    return request.app.state.rooms


HubDep = Annotated[RoomHub, Depends(get_hub)]


def base_url(request: Request, settings: Settings) -> str:
    return (settings.public_url or str(request.base_url)).rstrip("/")


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


def origin_allowed(ws: WebSocket, extra: set[str]) -> bool:
    """A browser always sends Origin: it must be this server (the Host it asked for) or a configured
    extra origin. A client without Origin is not a browser, so no page can be riding on it."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    origin = origin.rstrip("/").lower()
    return origin in extra or urlsplit(origin).netloc == ws.headers.get("host", "").lower()


@router.websocket("/ws/rooms/{code}")
async def room_socket(ws: WebSocket, code: str) -> None:
    """Follow or drive a room (JSON protocol: rooms/messages.py)."""
    settings: Settings = ws.app.state.settings
    if not origin_allowed(ws, settings.allowed_origins):
        body = {"message": "Origin: not allowed to open a room socket here (ATTENTION_TALK_ROOM_ORIGINS)"}
        if "websocket.http.response" in ws.scope.get("extensions", {}):
            await ws.send_denial_response(JSONResponse(body, status_code=403))
        else:
            await ws.close(1008, body["message"][:120])
        return
    store = ws.app.state.store
    if not store.is_read:  # a room made by another worker: read the decks in a thread while the socket says hello
        asyncio.get_running_loop().run_in_executor(None, store.read)  # (a presenter's first move reads them)

    def deck_steps(deck_id: str) -> list[int] | None:
        deck = store.find(deck_id)
        return [len(s.steps) for s in deck.slides] if deck else None

    await Connection(ws, ws.app.state.rooms, code, deck_steps, settings.room_rate_limit).run()  # it normalises
