"""Model work is bounded in time and follows its client: one run at a time per worker behind a
bounded queue (full or too long a wait → 503 with Retry-After), a request whose client has gone is
not computed, a run whose client goes stops between layers and keeps nothing half-made, and the
next identical request computes the right answer. Kept runs and traces are bounded in bytes,
counted as the buffers they hold. Needs the real model (``real_model`` in conftest.py)."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator

import anyio
import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient
from starlette.exceptions import HTTPException

from attention_talk.model import forward as forward_module
from attention_talk.model import runner
from attention_talk.model.forward import RunCancelled
from attention_talk.web import create_app
from attention_talk.web.limits import Gate
from attention_talk.web.model_work import model_work
from attention_talk.web.settings import Settings
from fresh_loop import run_anyio
from shared_app import default_store

WORDS = ["the", "old", "dog", "cat", "sat", "by", "warm", "fire", "while", "watched", "from", "quiet", "house",
         "river", "boats", "rest", "night", "rain", "roof", "window", "garden", "lamp", "stone", "bridge"]
ROUTES = {
    "/api/model/lab": lambda text: {"text": text, "layer": 2, "head": 1},
    "/api/model/attention": lambda text: {"text": text, "layers": [2]},
    "/api/model/derivation": lambda text: {"text": text, "layer": 2, "head": 1, "tensor": "weights", "row": 1,
                                           "col": 0},
}
CEILING = 120.0  # seconds: a condition waited for, never a time asserted


def fresh_text(seed: int, words: int = 12) -> str:
    """A text the model has not seen in this test run (so it would have to compute)."""
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(words)) + f" {seed}"


def wait_for(condition, what: str, ceiling: float = CEILING) -> None:
    deadline = time.monotonic() + ceiling
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {ceiling:g} s for {what}")
        time.sleep(0.02)


@pytest.fixture
def counted_runs(monkeypatch) -> list[tuple[str, tuple[int, ...]]]:
    """Every forward pass the model starts (a whole text, or new tokens after a kept prefix): its
    name and token ids (the app's own start-up work, chapter 3's deck, runs other texts)."""
    started: list[tuple[str, tuple[int, ...]]] = []
    for name, ids_at in (("forward", 2), ("extend", 3)):
        real = getattr(runner, name)

        def counting(*args, _real=real, _name=name, _at=ids_at, **kwargs):
            started.append((_name, tuple(args[_at])))
            return _real(*args, **kwargs)

        monkeypatch.setattr(runner, name, counting)
    return started


def assert_nothing_kept(model, ids: list[int]) -> None:
    assert tuple(ids) not in model._traces
    assert not [key for key in model._cache if key[0] == tuple(ids)]


# ---- the runner: a cancel check between layers ---------------------------------------------------


def test_a_run_cancelled_between_layers_stops_and_keeps_nothing(real_model) -> None:
    model = real_model
    model.clear_cache()
    text = fresh_text(1)
    ids = model.tokenize(text)
    asked: list[int] = []

    def cancel_at_layer_5() -> bool:
        asked.append(len(asked))
        return len(asked) > 5

    with pytest.raises(RunCancelled, match="stopped before layer 5 of 30"):
        model.run(text, want=("weights", "q", "k", "scores"), cancel=cancel_at_layer_5)
    assert len(asked) == 6  # asked before layers 0–5, and nothing computed after the sixth answer
    assert_nothing_kept(model, ids)
    again = model.run(text, want=("weights", "q", "k", "scores"), cancel=lambda: False)
    model.clear_cache()
    cold = model.run(text, want=("weights", "q", "k", "scores"))
    assert again.ids == cold.ids and [t.id for t in again.next_tokens] == [t.id for t in cold.next_tokens]
    np.testing.assert_array_equal(again.residual, cold.residual)
    for key, maps in cold.maps.items():
        for name in ("weights", "q", "k", "scores"):
            np.testing.assert_array_equal(getattr(again.maps[key], name), getattr(maps, name))


def test_a_cancelled_extension_leaves_the_kept_prefix_as_it_was(real_model) -> None:
    """A text typed after a kept one runs only its new tokens (forward.extend); cancelled, the kept
    trace it extends is untouched and the next identical request equals a cold run."""
    model = real_model
    model.clear_cache()
    base = fresh_text(2)
    model.run(base)
    prefix = model._traces[tuple(model.tokenize(base))]
    before = prefix.residual.copy()
    longer = f"{base} and the moon"
    with pytest.raises(RunCancelled, match="before layer 0"):
        model.run(longer, cancel=lambda: True)
    assert_nothing_kept(model, model.tokenize(longer))
    assert model._traces[tuple(model.tokenize(base))] is prefix
    np.testing.assert_array_equal(prefix.residual, before)
    warm = model.run(longer)
    model.clear_cache()
    cold = model.run(longer)
    np.testing.assert_allclose(warm.residual, cold.residual, rtol=0, atol=1e-9)
    for key, maps in cold.maps.items():
        np.testing.assert_allclose(warm.maps[key].weights, maps.weights, rtol=0, atol=1e-9)


# ---- the runner: kept results bounded in bytes -------------------------------------------------


def test_kept_runs_and_traces_are_bounded_in_the_bytes_they_hold(real_model) -> None:
    """Each buffer counted once and in full (a head's map is a view of its layer's array); the
    runs and traces together stay within cache_bytes, and the newest of each is always kept."""
    model = real_model
    model.clear_cache()
    run = model.run(fresh_text(3, 30), want=("weights",))
    n, c = len(run.ids), model.config
    layer_weights = c.layers * c.heads * n * n * 8  # every (h, n, n) array the maps view, in full
    assert run.nbytes == layer_weights + run.residual.nbytes + run.logits.nbytes
    saved = model.cache_bytes
    try:
        model.cache_bytes = 3 * run.nbytes
        for seed in range(4, 12):
            model.run(fresh_text(seed, 30), want=("weights",))
            assert model.kept_bytes <= model.cache_bytes or (len(model._cache), len(model._traces)) == (1, 1)
        assert len(model._cache) >= 1 and len(model._traces) >= 1
        model.cache_bytes = 0
        newest = model.run(fresh_text(12, 30), want=("weights",))
        assert list(model._cache.values()) == [newest] and len(model._traces) == 1
    finally:
        model.cache_bytes = saved
        model.clear_cache()


def test_the_kept_bytes_kept_up_to_date_are_the_kept_buffers_recounted(real_model) -> None:
    """The runner counts kept bytes as entries come and go (``kept.Held``); after every run (new
    texts, a text extending a kept one, a prefix of one that views its arrays, the same text asked
    with other maps, evictions under a small bound) the count is the union of every kept run's and
    trace's buffers, recounted from scratch."""
    model = real_model
    model.clear_cache()

    def recount() -> int:
        held: dict[int, np.ndarray] = {}
        for buffers in (*model._trace_buffers.values(), *(r.buffers for r in model._cache.values())):
            held.update(buffers)
        return sum(a.nbytes for a in held.values())

    base = fresh_text(20, 10)
    saved = model.cache_bytes
    try:
        model.run(base)
        model.cache_bytes = 3 * model.kept_bytes  # small enough that some runs and traces leave
        texts = [f"{base} and", f"{base} and the moon", base, fresh_text(21, 10), f"{base} and the moon", base]
        for i, text in enumerate(texts):
            model.run(text, want=("weights", "q", "k") if i % 2 else ("weights",))
            assert model.kept_bytes == recount() > 0
        model.clear_cache()
        assert model.kept_bytes == 0
    finally:
        model.cache_bytes = saved
        model.clear_cache()


def test_a_view_keeps_its_whole_base() -> None:
    base = np.zeros((9, 8, 8))
    held = runner.held_buffers([base[3], base[4], np.zeros(5), None])
    assert sorted(a.nbytes for a in held.values()) == [40, base.nbytes]


# ---- the gate: a bounded queue -----------------------------------------------------------------


def test_a_full_queue_answers_503_at_once_naming_the_wait() -> None:
    async def main() -> HTTPException:
        gate = Gate(1, wait=7.5, what="model runs", queue=2)
        release = anyio.Event()

        async def hold() -> None:
            async with gate.slot():
                await release.wait()

        async with anyio.create_task_group() as tg:
            tg.start_soon(hold)
            tg.start_soon(hold)
            tg.start_soon(hold)
            with anyio.fail_after(CEILING):
                while gate.waiting < 2:
                    await anyio.sleep(0.01)
            with pytest.raises(HTTPException) as refused:
                async with gate.slot():
                    pass
            release.set()
        assert gate.waiting == 0 and gate.refused == 1
        return refused.value

    exc = run_anyio(main)
    assert exc.status_code == 503 and exc.headers == {"Retry-After": "8"}
    assert exc.detail == "busy: all 1 slots for model runs are taken and the queue is full (2 waiting); retry in 8 s"


@pytest.fixture
def queued_app():
    """An app whose model queue holds one request, waiting up to 30 s."""
    return create_app(Settings(model_queue=1, model_queue_timeout=30), store=default_store())


def test_a_model_route_with_its_queue_full_answers_503_with_retry_after(real_model, queued_app) -> None:
    async def main() -> tuple[httpx.Response, httpx.Response]:
        work = model_work(queued_app)
        transport = httpx.ASGITransport(app=queued_app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            answers: list[httpx.Response] = []

            async def ask() -> None:
                answers.append(await client.post("/api/model/lab", json={"text": fresh_text(20)}))

            async with anyio.create_task_group() as tg, work.gate.slot():  # the one run at a time, held here
                tg.start_soon(ask)
                with anyio.fail_after(CEILING):
                    while work.gate.waiting < 1:
                        await anyio.sleep(0.01)
                refused = await client.post("/api/model/derivation", json=ROUTES["/api/model/derivation"](
                    fresh_text(21)))
            return answers[0], refused

    queued, refused = run_anyio(main)
    assert refused.status_code == 503 and refused.headers["retry-after"] == "30"
    assert refused.json()["message"] == ("busy: all 1 slots for model runs are taken and the queue is full "
                                         "(1 waiting); retry in 30 s")
    assert queued.status_code == 200 and "".join(queued.json()["tokens"]) == fresh_text(20)
    assert model_work(queued_app).counts() | {"queue": 1} == {
        "running": 0, "waiting": 0, "queue": 1, "computed": 1, "not_started": 0, "stopped": 0, "refused": 1}


def test_a_wait_longer_than_the_timeout_answers_503(real_model) -> None:
    app = create_app(Settings(model_queue_timeout=0), store=default_store())

    async def main() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client, model_work(app).gate.slot():
            return await client.post("/api/model/attention", json={"text": "a b"})

    r = run_anyio(main)
    assert r.status_code == 503 and r.headers["retry-after"] == "1"
    assert r.json()["message"] == "busy: all 1 slots for model runs stayed taken for 0 s; retry in 1 s"


# ---- a client that has gone --------------------------------------------------------------------


async def call(app, path: str, body: dict, receive_after_body) -> list[dict]:
    """One POST straight through the ASGI app: the body, then whatever ``receive_after_body`` gives."""
    data = json.dumps(body).encode()
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"test"), (b"content-type", b"application/json"),
                         (b"content-length", str(len(data)).encode())],
             "client": ("127.0.0.1", 5000), "server": ("test", 80)}
    sent_body = False
    messages: list[dict] = []

    async def receive() -> dict:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": data, "more_body": False}
        return await receive_after_body()

    async def send(message: dict) -> None:
        messages.append(message)

    await app(scope, receive, send)
    return messages


async def gone() -> dict:
    return {"type": "http.disconnect"}


@pytest.mark.parametrize("path", list(ROUTES))
def test_a_request_whose_client_has_gone_is_not_computed(real_model, counted_runs, path) -> None:
    app = create_app(Settings(), store=default_store())
    text = fresh_text(30 + list(ROUTES).index(path))
    ids = tuple(real_model.tokenize(text))
    messages = run_anyio(call, app, path, ROUTES[path](text), gone)
    assert messages[0]["status"] == 499
    assert [run for run in counted_runs if run[1] == ids] == []  # neither a whole pass nor an extension
    assert_nothing_kept(real_model, list(ids))
    assert model_work(app).not_started == 1 and model_work(app).computed == 0
    with TestClient(app) as client:  # a client that stays gets its answer, computed once
        assert client.post(path, json=ROUTES[path](text)).status_code == 200
    assert [run for run in counted_runs if run[1] == ids] == [("forward", ids)]


def test_a_client_that_leaves_while_queued_frees_its_place_at_once(real_model, counted_runs) -> None:
    """While the one run at a time is taken, a queued request whose client hangs up leaves the queue
    then, not when its turn would have come: the place is free for a client that is there."""
    app = create_app(Settings(model_queue=1, model_queue_timeout=60), store=default_store())
    work = model_work(app)
    text = fresh_text(50)

    async def main() -> tuple[list[dict], int]:
        async def leave_once_queued() -> dict:
            while work.gate.waiting < 1:
                await anyio.sleep(0.01)
            return {"type": "http.disconnect"}

        async with work.gate.slot():  # held for the whole call: the request never gets its turn
            messages = await call(app, "/api/model/lab", {"text": text}, leave_once_queued)
            return messages, work.gate.waiting

    messages, waiting_after = run_anyio(main)
    assert messages[0]["status"] == 499 and waiting_after == 0
    assert json.loads(messages[1]["body"])["message"] == "client: gone before its turn came"
    assert work.not_started == 1 and work.gate.refused == 0
    assert [run for run in counted_runs if run[1] == tuple(real_model.tokenize(text))] == []


@pytest.fixture
def held_at_layer(monkeypatch) -> Iterator[threading.Event]:
    """The next run waits before layer 3 until its cancel check says stop (so the test knows the
    run is under way when its client leaves, however busy the machine); the event says it got there."""
    reached = threading.Event()
    real = forward_module.check_cancel

    def held(cancel, layer, layers):
        if layer == 3 and not reached.is_set():
            reached.set()
            deadline = time.monotonic() + CEILING
            while not cancel() and time.monotonic() < deadline:
                time.sleep(0.005)
        real(cancel, layer, layers)

    monkeypatch.setattr(forward_module, "check_cancel", held)
    yield reached


def test_a_run_whose_client_leaves_stops_and_the_next_request_computes_it(real_model, held_at_layer) -> None:
    app = create_app(Settings(), store=default_store())
    body = {"text": fresh_text(40, 40), "layer": 3, "head": 5}

    async def leave_once_the_run_is_under_way() -> dict:
        while not held_at_layer.is_set():
            await anyio.sleep(0.01)
        return {"type": "http.disconnect"}

    messages = run_anyio(call, app, "/api/model/lab", body, leave_once_the_run_is_under_way)
    assert messages[0]["status"] == 499
    assert json.loads(messages[1]["body"])["message"] == "client: gone, so its run was stopped before layer 3 of 30"
    assert model_work(app).stopped == 1 and model_work(app).computed == 0
    assert_nothing_kept(real_model, real_model.tokenize(body["text"]))
    with TestClient(app) as client:
        again = client.post("/api/model/lab", json=body)
        real_model.clear_cache()
        cold = client.post("/api/model/lab", json=body)
    assert again.status_code == cold.status_code == 200
    assert again.json() == cold.json()


# ---- the real server: abandoned clients ----------------------------------------------------------


def test_abandoned_clients_are_not_computed_and_do_not_hold_the_queue() -> None:
    """Twenty lab requests with new texts whose clients hang up once all twenty are queued (read
    from GET /api/model's counts): none is computed after its client left, except at most the one
    already under way, and the next real request is answered, not refused."""
    from served import connect, serve

    env = {"ATTENTION_TALK_MODEL_QUEUE": "32", "ATTENTION_TALK_MODEL_QUEUE_TIMEOUT": "300"}
    with serve(env) as url, httpx.Client(base_url=url, timeout=CEILING) as c:
        def work() -> dict:
            return c.get("/api/model").json()["work"]

        wait_for(lambda: c.get("/api/model").json()["loaded"], "the model to load")
        sockets = []
        for i in range(20):
            data = json.dumps({"text": fresh_text(100 + i, 50)}).encode()
            s = connect(url)
            s.sendall(b"POST /api/model/lab HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n%s" % (len(data), data))
            sockets.append(s)
        wait_for(lambda: (w := work())["running"] + w["waiting"] + w["computed"] == 20, "all twenty at the queue")
        before = work()["computed"]
        for s in sockets:
            s.close()
        wait_for(lambda: (w := work())["running"] + w["waiting"] == 0, "the queue to empty")
        after = work()
        assert after["computed"] - before <= 1  # only a run under way as its client left may have finished
        assert after["computed"] + after["not_started"] + after["stopped"] == 20 and after["refused"] == 0
        real = c.post("/api/model/lab", json={"text": "The capital of France is", "grid": 0})
        assert real.status_code == 200 and real.json()["next_tokens"][0]["token"] == " Paris"
        assert work()["computed"] == after["computed"] + 1
