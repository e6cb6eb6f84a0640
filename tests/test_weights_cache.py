"""One float32 copy of the model's weights per machine (model/weights_cache.py, issue 33).

The cache file is written once, atomically, keyed by the GGUF's SHA-256 and the format's version,
and memory-mapped read-only by every later load, which then reads nothing of the GGUF but its bytes
for the digest. A stale, foreign or cut-short file is rebuilt; a folder that cannot be written
leaves the process with its own copy. Every figure the talk and the lab show stays what the
float64 reference computes: weights within 1e-5, the same next tokens, chapter 3's chosen heads.
"""

from __future__ import annotations

import logging
import mmap
import os
import struct
from pathlib import Path

import numpy as np
import pytest

from attention_talk.frames.real_heads.analysis import analyse
from attention_talk.model import loading
from attention_talk.model.forward import load_weights
from attention_talk.model.gguf_file import open_reader, read_config, resolve_path
from attention_talk.model.loading import Loader
from attention_talk.model.runner import Model
from attention_talk.model.tokenizer import build_tokenizer
from attention_talk.model.weights_cache import FORMAT, MAGIC, cache_path, gguf_digest, read_cache

CHAPTER3 = ("The cat sat on the mat because the cat was tired", 7)  # slides/real-heads.yaml's story
LAB_TEXTS = [
    "She walked along the river and sat down on the bank",
    "Listen: violin seven purple tunnel marble lemon orbit kettle violin seven purple tunnel marble lemon orbit kettle",
    "The capital of France is",
]


@pytest.fixture(scope="module")
def gguf():
    return resolve_path(None)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("weights-cache")


@pytest.fixture(scope="module")
def built(cache_dir):
    """A first load with a cache folder: it dequantises, writes the file and maps it back."""
    ld = Loader()
    ld.cache_dir = cache_dir
    return ld, ld.model()


@pytest.fixture(scope="module")
def reference(gguf):
    """The float64 reference: every tensor dequantised in float64, multiplied in float64."""
    reader = open_reader(gguf)
    config = read_config(reader)
    model = Model(gguf, config, build_tokenizer(reader), load_weights(reader, config, dtype=np.float64))
    yield model
    del model


def test_the_cache_is_the_ggufs_digest_and_format_and_holds_every_weight_in_float32(built, gguf, cache_dir) -> None:
    ld, model = built
    digest = gguf_digest(gguf)
    assert ld.cache_file == cache_path(cache_dir, digest) == cache_dir / f"weights-{digest[:32]}-f32-v{FORMAT}.bin"
    assert ld.cache_file.read_bytes()[: len(MAGIC)] == MAGIC
    w = model.weights
    arrays = [w.embed, w.out_norm, *(a for lw in w.layers for a in vars(lw).values())]
    assert {a.dtype for a in arrays} == {np.dtype(np.float32)}
    assert not any(a.flags.writeable for a in arrays)  # read-only views of the mapping
    # the bytes on disk are the weights themselves (one file, no copy kept per process)
    assert sum(a.nbytes for a in arrays) <= ld.cache_file.stat().st_size < sum(a.nbytes for a in arrays) + 4 * 2**20
    assert not list(cache_dir.glob("*.tmp"))  # the temporary file was renamed, not left behind


def test_the_weights_are_mapped_from_the_file_not_copied(built) -> None:
    ld, model = built
    base = model.weights.layers[3].wq
    while getattr(base, "base", None) is not None:
        base = base.base
    assert isinstance(base, mmap.mmap)
    maps = Path(f"/proc/{os.getpid()}/maps").read_text()
    assert str(ld.cache_file) in maps


def test_a_second_load_reads_the_cache_and_never_the_ggufs_metadata(built, cache_dir, monkeypatch) -> None:
    def no_reader(path):
        raise AssertionError("the GGUF's metadata was read although the cache is there")

    monkeypatch.setattr(loading, "open_reader", no_reader)
    ld = Loader()
    ld.cache_dir = cache_dir
    model = ld.model()
    first = built[1]
    assert model.config == first.config and model.tokenizer.tokens == first.tokenizer.tokens
    np.testing.assert_array_equal(model.weights.layers[7].down, first.weights.layers[7].down)
    text = "the old dog sleeps by the fire"
    assert model.tokenizer.encode(text) == first.tokenizer.encode(text)
    np.testing.assert_array_equal(model.run(text).head(4, 2).weights, first.run(text).head(4, 2).weights)


@pytest.mark.parametrize("damage", ["truncate", "format", "digest", "magic"])
def test_a_stale_or_damaged_cache_is_ignored_and_rebuilt(built, gguf, tmp_path, damage, caplog) -> None:
    digest = gguf_digest(gguf)
    target = cache_path(tmp_path, digest)
    data = bytearray(built[0].cache_file.read_bytes())
    (length,) = struct.unpack("<Q", data[len(MAGIC): len(MAGIC) + 8])
    header = data[len(MAGIC) + 8: len(MAGIC) + 8 + length]
    if damage == "truncate":
        data = data[: len(data) - 4096]
    elif damage == "format":
        data[len(MAGIC) + 8: len(MAGIC) + 8 + length] = header.replace(b'"format": 1', b'"format": 0')
    elif damage == "digest":
        data[len(MAGIC) + 8: len(MAGIC) + 8 + length] = header.replace(digest.encode(), b"0" * 64)
    else:
        data[:4] = b"GGUF"
    target.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="attention_talk.model"):
        assert read_cache(tmp_path, digest) is None
    assert "will be rebuilt" in caplog.text
    ld = Loader()
    ld.cache_dir = tmp_path
    model = ld.model()
    assert ld.cache_file == target and read_cache(tmp_path, digest) is not None
    np.testing.assert_array_equal(model.weights.embed[:5], built[1].weights.embed[:5])


def test_a_folder_that_cannot_be_written_leaves_the_process_its_own_copy(tmp_path, caplog) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    ld = Loader()
    ld.cache_dir = blocked / "cache"  # under a file: mkdir fails
    with caplog.at_level(logging.WARNING, logger="attention_talk.model"):
        model = ld.model()
    assert ld.cache_file is None and "weights cache not written" in caplog.text
    assert model.weights.layers[0].wq.dtype == np.float32 and model.weights.layers[0].wq.flags.writeable
    assert model.run("The capital of France is").next_tokens[0].token == " Paris"


@pytest.mark.parametrize("text", [CHAPTER3[0], *LAB_TEXTS])
def test_the_float32_weights_give_the_float64_references_figures(built, reference, text) -> None:
    fast, ref = built[1].run(text), reference.run(text)
    assert fast.tokens == ref.tokens
    worst = max(float(np.abs(fast.head(layer, h).weights - ref.head(layer, h).weights).max())
                for layer in ref.layers for h in ref.heads)
    assert worst < 1e-5
    assert [t.token for t in fast.next_tokens[:5]] == [t.token for t in ref.next_tokens[:5]]
    np.testing.assert_allclose([t.p for t in fast.next_tokens[:5]],
                               [t.p for t in ref.next_tokens[:5]], atol=1e-5)


def test_paris_follows_the_capital_of_france_in_float32(built) -> None:
    assert built[1].run("The capital of France is").next_tokens[0].token == " Paris"


def test_chapter_3_chooses_the_same_heads_in_float32(built, reference) -> None:
    fast, ref = analyse(built[1], *CHAPTER3), analyse(reference, *CHAPTER3)
    for measure, job in ref.jobs.items():
        assert (fast.jobs[measure].layer, fast.jobs[measure].head) == (job.layer, job.head), measure
        np.testing.assert_allclose(fast.jobs[measure].grid, job.grid, atol=1e-4)


# ---- the rows of a float32 product (forward.times) ---------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from attention_talk.model.forward import ROWS, times  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 70), blocks=st.integers(0, 4), seed=st.integers(0, 2**16))
def test_a_tokens_row_is_the_same_whichever_block_aligned_rows_are_computed_with_it(n, blocks, seed) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 48))
    w = rng.normal(size=(40, 48)).astype(np.float32)
    whole = times(x, w)
    start = min(n - 1, blocks * ROWS) // ROWS * ROWS
    np.testing.assert_array_equal(times(x[start:], w), whole[start:])  # bit for bit
    np.testing.assert_allclose(whole, x @ w.astype(np.float64).T, rtol=1e-4, atol=1e-4)  # float32's precision
    assert whole.dtype == np.float64


# ---- the setting and the command ---------------------------------------------------------------


def test_the_cache_folder_setting_defaults_to_the_users_cache_and_none_turns_it_off(monkeypatch, tmp_path) -> None:
    from attention_talk.web.settings import Settings

    monkeypatch.delenv("ATTENTION_TALK_MODEL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert Settings().model_cache_dir == tmp_path / "attention-talk"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert Settings().model_cache_dir == tmp_path / "home" / ".cache" / "attention-talk"
    for off in ("none", "", "OFF"):
        monkeypatch.setenv("ATTENTION_TALK_MODEL_CACHE_DIR", off)
        assert Settings().model_cache_dir is None
    monkeypatch.setenv("ATTENTION_TALK_MODEL_CACHE_DIR", str(tmp_path / "mine"))
    assert Settings().model_cache_dir == tmp_path / "mine"


def test_model_cache_builds_the_file_and_says_where(built, gguf, tmp_path) -> None:
    """In a process of its own, as a self-hoster runs it: a folder that has the file maps it and names
    it; 'none' is refused in one line."""
    import subprocess
    import sys

    folder = built[0].cache_dir
    env = {**os.environ, "ATTENTION_TALK_MODEL_CACHE_DIR": str(folder)}
    run = subprocess.run([sys.executable, "-m", "attention_talk", "model-cache"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert str(cache_path(folder, gguf_digest(gguf))) in run.stdout and " MB, loaded in " in run.stdout
    env["ATTENTION_TALK_MODEL_CACHE_DIR"] = "none"
    run = subprocess.run([sys.executable, "-m", "attention_talk", "model-cache"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 2 and "there is no shared copy to build" in run.stderr
