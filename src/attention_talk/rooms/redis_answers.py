"""The Redis hub's answers to questions, kept in the room's own hash (``attention-talk:room:{code}``),
so that they share its TTL, go with it when the room ends, survive a worker's death and, with
persistence, a Redis restart:

* ``a:{slide}.{step}:{token}`` — a follower's answer (its pick as ``bucket`` writes it), by the
  random token its page made (nothing personal);
* ``t:{slide}.{step}`` — the question's tally as JSON: ``a`` answered, ``c`` pick → count, ``v``
  version (one more for every answer);
* ``r:{slide}.{step}`` — present once the presenter revealed the question: no answer after it.

Every change is one Lua script (so two workers' answers never race) that also publishes the new
tally on the room's channel: ``{"t": "tally", "q", "r", "tally"}``; each worker hands it to its
presenter sockets (``RoomHub.on_tally``).
"""

from __future__ import annotations

import orjson

from attention_talk.rooms.messages import Tally

_EMPTY = "local function tally(raw) if raw then return cjson.decode(raw) end return {a = 0, c = {}, v = 0} end\n"
# KEYS[1] the room; ARGV: question, token, pick. {0} no room; {2, tally} revealed; {1, tally} recorded.
ANSWER = _EMPTY + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, ''} end
local q = ARGV[1]
if redis.call('HEXISTS', KEYS[1], 'r:' .. q) == 1 then return {2, redis.call('HGET', KEYS[1], 't:' .. q) or ''} end
local t = tally(redis.call('HGET', KEYS[1], 't:' .. q))
local field = 'a:' .. q .. ':' .. ARGV[2]
local old = redis.call('HGET', KEYS[1], field)
if old then
  local n = (t.c[old] or 1) - 1
  if n <= 0 then t.c[old] = nil else t.c[old] = n end
else
  t.a = t.a + 1
end
t.c[ARGV[3]] = (t.c[ARGV[3]] or 0) + 1
t.v = t.v + 1
local enc = cjson.encode(t)
redis.call('HSET', KEYS[1], field, ARGV[3], 't:' .. q, enc)
redis.call('PUBLISH', KEYS[1], '{"t":"tally","q":"' .. q .. '","r":0,"tally":' .. enc .. '}')
return {1, enc}
"""
REVEAL = _EMPTY + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, ''} end
local q = ARGV[1]
redis.call('HSET', KEYS[1], 'r:' .. q, 1)
local enc = cjson.encode(tally(redis.call('HGET', KEYS[1], 't:' .. q)))
redis.call('PUBLISH', KEYS[1], '{"t":"tally","q":"' .. q .. '","r":1,"tally":' .. enc .. '}')
return {1, enc}
"""


def question(slide: int, step: int) -> str:
    return f"{int(slide)}.{int(step)}"


def parse_tally(raw: str | bytes | None, revealed: bool) -> Tally:
    """A stored tally (cjson writes an empty ``c`` as ``{}``, an empty table either way)."""
    if not raw:
        return Tally(revealed=revealed)
    data = orjson.loads(raw)
    counts = data.get("c") or {}
    return Tally(int(data.get("a", 0)), {str(k): int(v) for k, v in counts.items()} if isinstance(counts, dict) else {},
                 revealed, int(data.get("v", 0)))


class RedisAnswers:
    """The answer half of ``RedisHub`` (it brings ``redis``, ``_call`` and ``_key``)."""

    def _scripts(self) -> tuple:
        if not hasattr(self, "_answer_scripts"):
            self._answer_scripts = (self.redis.register_script(ANSWER), self.redis.register_script(REVEAL))
        return self._answer_scripts

    async def _answer(self, code: str, slide: int, step: int, token: str, pick: str) -> Tally | None:
        script = self._scripts()[0]
        status, raw = await self._call(script(keys=[self._key(code)], args=[question(slide, step), token, pick]))
        return None if status == 0 else parse_tally(raw, revealed=status == 2)

    async def _reveal(self, code: str, slide: int, step: int) -> Tally | None:
        status, raw = await self._call(self._scripts()[1](keys=[self._key(code)], args=[question(slide, step)]))
        return None if status == 0 else parse_tally(raw, revealed=True)

    async def _tally(self, code: str, slide: int, step: int) -> Tally:
        q = question(slide, step)
        raw, revealed = await self._call(self.redis.hmget(self._key(code), f"t:{q}", f"r:{q}"))
        return parse_tally(raw, revealed=revealed is not None)

    async def _mine(self, code: str, slide: int, step: int, token: str) -> str | None:
        return await self._call(self.redis.hget(self._key(code), f"a:{question(slide, step)}:{token}"))

    def on_tally_notice(self, code: str, data: dict) -> None:
        """A tally published by a script (this worker's or another's)."""
        slide, step = (int(x) for x in str(data["q"]).split("."))
        self.on_tally(code, slide, step, parse_tally(orjson.dumps(data["tally"]), revealed=bool(data.get("r"))))
