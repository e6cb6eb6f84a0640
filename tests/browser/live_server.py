"""Serve an app on a free loopback port in a thread, for the browser tests: the export's own local
server (attention_talk.export.local.serving), with the app's lifespan on."""

from __future__ import annotations

from functools import partial

from attention_talk.export.local import serving

live_server = partial(serving, lifespan="on")
