"""Live rooms, fan-out on loopback: one presenter steps a room 50 times while N follower sockets
listen; the latency is from the presenter sending ``go`` to the *last* follower receiving that state.
Two set-ups: one ``attention-talk serve`` with the in-process hub, and two servers sharing a
``redis-server`` (the presenter on one, the followers split over both). Also the server's memory per
follower (resident set size before and after the followers join). Then a question round on the same
sockets: the presenter goes to a question step (slide 9 step 2 of the deck asks a token question),
every follower answers once, spread over ``--spread`` seconds; the latency is from a follower
sending its answer to the presenter receiving a tally that counts it, and the final tally must
count every answer exactly (pick i % 7 for follower i). Prints tables; asserts nothing.

    python benchmarks/rooms.py [--followers 1000] [--steps 50] [--spread 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from redis_server import RedisServer, start_server
from served import stop, wait_healthy
from test_rooms_redis import new_room

DECK = "attention-step-by-step"
MOVES = [(2, 1), (2, 2)]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


QUESTION = (9, 2)  # attention-step-by-step: "Which key will the query of dog score highest?" (7 choices)
SOCKETS: dict[int, object] = {}


async def follower(url: str, code: str, ready: asyncio.Event, inbox: dict, n: int) -> None:
    async with connect(f"{url.replace('http', 'ws')}/ws/rooms/{code}", max_queue=None, open_timeout=60) as ws:
        await ws.send(json.dumps({"type": "hello", "role": "follower", "token": f"bench-follower-{n:06d}"}))
        await ws.recv()
        SOCKETS[n] = ws
        ready.set()
        async for raw in ws:
            msg = json.loads(raw)
            if msg["type"] != "state":
                continue
            key = (msg["slide"], msg["step"])
            inbox.setdefault(key, []).append(time.perf_counter())


async def run(urls: list[str], pids: list[int], followers: int, steps: int) -> tuple[float, float, float]:
    room = new_room(urls[0], DECK)
    before = sum(rss_kib(p) for p in pids)
    inboxes: list[dict] = [{} for _ in range(followers)]
    readies = [asyncio.Event() for _ in range(followers)]
    tasks = []
    for i in range(followers):
        tasks.append(asyncio.create_task(follower(urls[i % len(urls)], room["code"], readies[i], inboxes[i], i)))
        if i % 100 == 99:
            await asyncio.gather(*(r.wait() for r in readies[: i + 1]))
    await asyncio.gather(*(r.wait() for r in readies))
    print(f"  {followers} followers joined", file=sys.stderr)
    await asyncio.sleep(1.0)  # follower counts settle
    per_follower = (sum(rss_kib(p) for p in pids) - before) / followers
    latencies = []
    async with connect(f"{urls[0].replace('http', 'ws')}/ws/rooms/{room['code']}") as presenter:
        await presenter.send(json.dumps({"type": "hello", "role": "presenter", "secret": room["presenter_secret"]}))
        await presenter.recv()
        for i in range(steps):
            slide, step = MOVES[i % 2]
            for inbox in inboxes:
                inbox.pop((slide, step), None)
            sent = time.perf_counter()
            await presenter.send(json.dumps({"type": "go", "slide": slide, "step": step, "paused": False}))
            deadline = sent + 30
            while not all((slide, step) in inbox for inbox in inboxes):
                if time.perf_counter() > deadline:
                    missing = sum((slide, step) not in inbox for inbox in inboxes)
                    raise RuntimeError(f"step {i}: {missing} followers never got {(slide, step)}")
                await asyncio.sleep(0.001)
            latencies.append(max(inbox[(slide, step)][0] for inbox in inboxes) - sent)
            await asyncio.sleep(0.05)
        QUESTION_ROWS.append(await question_round(presenter, inboxes, followers))
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    latencies.sort()
    return latencies[len(latencies) // 2] * 1000, latencies[int(len(latencies) * 0.99) - 1] * 1000, per_follower


QUESTION_ROWS: list[tuple] = []


async def question_round(presenter, inboxes: list[dict], followers: int, spread: float = 2.0) -> tuple:
    """Every follower answers once; (answers within s, p50 ms, p99 ms, counts exact) of answer → tally."""
    for inbox in inboxes:
        inbox.pop(QUESTION, None)
    await presenter.send(json.dumps({"type": "go", "slide": QUESTION[0], "step": QUESTION[1], "paused": False}))
    while not all(QUESTION in inbox for inbox in inboxes):
        await asyncio.sleep(0.005)
    tallies: list[tuple[float, int, dict]] = []

    async def listen() -> None:
        async for raw in presenter:
            msg = json.loads(raw)
            if msg["type"] == "tally":
                tallies.append((time.perf_counter(), msg["answered"], msg["counts"]))
                if msg["answered"] >= followers:
                    return

    reader = asyncio.create_task(listen())
    sent, start = [], time.perf_counter()
    for i in range(followers):
        answer = {"type": "answer", "slide": QUESTION[0], "step": QUESTION[1], "pick": [i % 7]}
        await SOCKETS[i].send(json.dumps(answer))
        sent.append(time.perf_counter())
        await asyncio.sleep(max(0.0, start + spread * (i + 1) / followers - time.perf_counter()))
    await asyncio.wait_for(reader, 30)
    took = tallies[-1][0] - start
    # answers from different sockets reach the servers in any order: an answer is counted by the first
    # tally counting at least as many as had been sent when it was
    lat, k = [], 0
    for i, at in enumerate(sent):
        while tallies[k][1] < i + 1:
            k += 1
        lat.append(max(0.0, tallies[k][0] - at))
    lat.sort()
    want = {str(p): sum(1 for i in range(followers) if i % 7 == p) for p in range(7)}
    return took, lat[len(lat) // 2] * 1000, lat[int(len(lat) * 0.99) - 1] * 1000, tallies[-1][2] == want


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--followers", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    rows = []
    # the model would load in the background meanwhile: its memory and CPU are not the rooms'
    env_limit = {"ATTENTION_TALK_LIMIT_CONCURRENCY": "5000", "ATTENTION_TALK_MODEL_PRELOAD": "false",
                 "ATTENTION_TALK_MAX_CLIENT_SOCKETS": "5000", "ATTENTION_TALK_MAX_ROOM_FOLLOWERS": "5000"}
    procs = [start_server(None, env_limit)]
    try:
        wait_healthy(*procs[0])
        rows.append(("in-process hub, 1 server", *asyncio.run(run([procs[0][1]], [procs[0][0].pid],
                                                                 args.followers, args.steps))))
    finally:
        stop(procs[0][0])
    if shutil.which("redis-server"):
        with tempfile.TemporaryDirectory() as folder:
            redis = RedisServer(Path(folder))
            redis.start()
            procs = [start_server(redis.port, env_limit) for _ in range(2)]
            try:
                for proc, url in procs:
                    wait_healthy(proc, url)
                rows.append(("Redis hub, 2 servers", *asyncio.run(run([u for _, u in procs], [p.pid for p, _ in procs],
                                                                     args.followers, args.steps))))
            finally:
                for proc, _ in procs:
                    stop(proc)
                redis.kill()
    print(f"\nLive rooms: {args.followers} followers, {args.steps} steps (go → last follower has the state)\n")
    print(f"| {'set-up':<26} | {'p50 ms':>7} | {'p99 ms':>7} | {'KiB per follower':>16} |")
    print(f"|{'-' * 28}|{'-' * 9}|{'-' * 9}|{'-' * 18}|")
    for name, p50, p99, kib in rows:
        print(f"| {name:<26} | {p50:>7.1f} | {p99:>7.1f} | {kib:>16.1f} |")
    print(f"\nQuestion round: {args.followers} followers answer once over 2 s (answer → presenter's tally counts it)\n")
    print(f"| {'set-up':<26} | {'all in, s':>9} | {'p50 ms':>7} | {'p99 ms':>7} | {'counts exact':>12} |")
    print(f"|{'-' * 28}|{'-' * 11}|{'-' * 9}|{'-' * 9}|{'-' * 14}|")
    for (name, *_), (took, p50, p99, exact) in zip(rows, QUESTION_ROWS, strict=False):
        print(f"| {name:<26} | {took:>9.2f} | {p50:>7.1f} | {p99:>7.1f} | {'yes' if exact else 'NO':>12} |")


if __name__ == "__main__":
    main()
