"""Live rooms: the audience follows the presenter on their own devices.

One interface, ``RoomHub`` (``hub.py``), two backends: ``InProcessHub`` (``memory.py``, the default)
and ``RedisHub`` (``redis_hub.py``, when ``ATTENTION_TALK_REDIS_URL`` is set). ``connection.py``
speaks the WebSocket protocol (``messages.py``) for one socket. Nothing here imports ``web``.
"""

from __future__ import annotations

from attention_talk.rooms.hub import HubFull, HubUnavailable, NewRoom, RoomHub, RoomInfo
from attention_talk.rooms.memory import InProcessHub


def make_hub(redis_url: str | None, idle_timeout: float, max_rooms: int, claim_timeout: float = 120.0) -> RoomHub:
    """The Redis hub when a URL is given, else the in-process one."""
    if redis_url:
        from attention_talk.rooms.redis_hub import RedisHub  # redis is imported only when used

        return RedisHub(redis_url, idle_timeout, claim_timeout, max_rooms)
    return InProcessHub(idle_timeout, max_rooms, claim_timeout=claim_timeout)


__all__ = ["HubFull", "HubUnavailable", "InProcessHub", "NewRoom", "RoomHub", "RoomInfo", "make_hub"]
