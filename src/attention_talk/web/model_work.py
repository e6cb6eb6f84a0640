"""The real model's work, shared by every route that runs it (``web/routes/model.py`` and the lab's,
``web/routes/lab.py``): the app's model handle (``model_loader``, ``load_model``), the OpenAPI 503
those routes document (``UNAVAILABLE``), and ``run_model``, the one way they run it.

``run_model``: one run at a time per worker (the model's BLAS is one thread and a run reads ~1 GB of
weights), in a worker thread, never on the event loop; at most ATTENTION_TALK_MODEL_QUEUE requests
wait, each at most ATTENTION_TALK_MODEL_QUEUE_TIMEOUT seconds, else 503 with Retry-After
(``limits.Gate``). A request whose client has gone is not started, and a run whose client goes
meanwhile stops at the next layer (``forward.RunCancelled``), so abandoned requests do not hold the
queue."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
from fastapi import FastAPI, HTTPException, Request

from attention_talk.model import INSTALL_HINT, Loader, ModelFileError, ModelMissing, loader
from attention_talk.web.limits import Gate
from attention_talk.web.offload import off_loop
from attention_talk.web.responses import JSON
from attention_talk.web.schemas import Error

if TYPE_CHECKING:
    from attention_talk.model import Model

UNAVAILABLE = {503: {"model": Error, "description": f"No model: {INSTALL_HINT}"}}
CLIENT_GONE = 499  # nginx's "client closed request": the answer nobody is there to read


def model_loader(app: FastAPI) -> Loader:
    """The process's Loader of the app's model file (ATTENTION_TALK_MODEL_PATH, else the packaged
    one), bounded by the app's ATTENTION_TALK_MODEL_CACHE_BYTES, its weights shared through
    ATTENTION_TALK_MODEL_CACHE_DIR."""
    settings = app.state.settings
    ld = loader(settings.model_path, settings.model_cache_dir)
    ld.cache_bytes = settings.model_cache_bytes
    return ld


async def model_call(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a worker thread; a missing or unreadable model becomes a 503."""
    try:
        return await off_loop(fn, *args)
    except (ModelMissing, ModelFileError) as exc:
        raise HTTPException(status_code=503, detail=f"model: {exc}") from None


async def load_model(app: FastAPI) -> Model:
    """The app's model, waiting while it loads (in a worker thread); 503 when there is none. Once
    loaded it is handed over at once, with no thread hop (a keystroke's request waits for none)."""
    ld = model_loader(app)
    if ld.loaded:
        return ld.model()
    return await model_call(ld.model)


@dataclass
class ModelWork:
    """One app's model runs: the gate they queue at, and what became of them (``GET /api/model``)."""

    gate: Gate
    computed: int = 0  # answered (from a kept result or a run)
    not_started: int = 0  # the client left while its request waited, or had gone when its turn came
    stopped: int = 0  # the client went during the run, which stopped at the next layer

    def counts(self) -> dict[str, int]:
        return {"running": self.gate.taken, "waiting": self.gate.waiting, "queue": self.gate.queue or 0,
                "computed": self.computed, "not_started": self.not_started, "stopped": self.stopped,
                "refused": self.gate.refused}


def model_work(app: FastAPI) -> ModelWork:
    """The app's ModelWork, made from its settings on first use (no await between look and make)."""
    work = getattr(app.state, "model_work", None)
    if work is None:
        s = app.state.settings
        work = app.state.model_work = ModelWork(Gate(1, s.model_queue_timeout, "model runs", queue=s.model_queue))
    return work


async def run_model(request: Request, fn: Callable[..., dict], *args: Any,
                    refused: tuple[type[Exception], ...] = (ValueError,)) -> JSON:
    """``fn(model, *args, cancel=…)`` in a worker thread once this request's turn comes, as JSON; an
    exception of ``refused`` ('layer: …', 'text: …') becomes a 422. A client that hangs up while its
    request waits takes it out of the queue at once; one that has gone when its turn comes is not
    started; ``cancel`` turns true when it goes during the run (which stops at the next layer).
    Either way the answer is a 499 nobody reads."""
    from attention_talk.model.forward import RunCancelled  # NumPy: on the first request, not at start-up

    work = model_work(request.app)
    client = Client(request)
    started, result, error = False, None, None
    async with anyio.create_task_group() as tg:
        tg.start_soon(client.watch)
        with client.queued:  # cancelled when the client goes before its turn: nothing started
            started, result, error = await _take_turn(request, work.gate, client, fn, args)
        tg.cancel_scope.cancel()
    if isinstance(error, RunCancelled):
        work.stopped += 1
        return _gone(f"its run was {error}")
    if isinstance(error, refused):
        raise HTTPException(status_code=422, detail=str(error)) from None
    if error is not None:
        raise error
    if not started:
        work.not_started += 1
        return _gone("its turn came")
    work.computed += 1
    return JSON(result)


class Client:
    """Whether a model request's client is still there. ``watch`` reads the request's next message
    (its body is read: the next one is the disconnect); when the client hangs up it sets ``gone``
    (a threading.Event: the run's cancel check) and, if the request still waits for its turn,
    cancels ``queued``, so an abandoned request leaves the queue at once."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self.gone = threading.Event()
        self.queued = anyio.CancelScope()
        self.turn_came = False

    async def watch(self) -> None:
        while (await self.request.receive())["type"] != "http.disconnect":
            pass
        self.gone.set()
        if not self.turn_came:
            self.queued.cancel()

    async def still_there(self) -> bool:
        """Called when the turn comes (from then on, leaving stops the run instead)."""
        self.turn_came = True
        return not (self.gone.is_set() or await self.request.is_disconnected())


async def _take_turn(request: Request, gate: Gate, client: Client, fn: Callable[..., dict], args: tuple
                     ) -> tuple[bool, dict | None, Exception | None]:
    """(whether the work started, its result, what it raised): wait for the gate, then
    ``fn(model, *args, cancel=…)`` in a worker thread unless the client has gone. Errors are returned, not
    raised, so that the watching task group does not wrap them in an ExceptionGroup."""
    try:
        async with gate.slot():
            if not await client.still_there():
                return False, None, None
            model = await load_model(request.app)
            return True, await off_loop(fn, model, *args, cancel=client.gone.is_set), None
    except Exception as exc:  # a 503 (busy, no model), a 422, RunCancelled
        return False, None, exc


def _gone(when: str) -> JSON:
    reason = f"client: gone before {when}" if not when.startswith("its run") else f"client: gone, so {when}"
    return JSON({"message": reason, "detail": reason}, status_code=CLIENT_GONE)
