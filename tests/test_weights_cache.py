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
    # the bytes on disk are the weights themselves (one file, no copy kept per process), after the
    # header (the tokenizer) padded to a huge page
    assert sum(a.nbytes for a in arrays) <= ld.cache_file.stat().st_size < sum(a.nbytes for a in arrays) + 6 * 2**20
    assert not list(cache_dir.glob("*.tmp"))  # the temporary file was renamed, not left behind


def test_the_weights_are_mapped_from_the_file_not_copied(built) -> None:
    ld, model = built
    base = model.weights.layers[3].wq
    while getattr(base, "base", None) is not None:
        base = base.base
    assert isinstance(base.obj if isinstance(base, memoryview) else base, mmap.mmap)  # np.frombuffer's view
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
        data[len(MAGIC) + 8: len(MAGIC) + 8 + length] = header.replace(f'"format": {FORMAT}'.encode(), b'"format": 0')
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


# ---- the digest, remembered beside the caches ----------------------------------------------------

from attention_talk.model import weights_cache  # noqa: E402
from attention_talk.model.weights_cache import DIGESTS, file_digest  # noqa: E402


def counting_digests(monkeypatch) -> list[Path]:
    """Every file ``weights_cache`` hashes from now on, in order."""
    hashed: list[Path] = []
    real = weights_cache.gguf_digest

    def counted(path):
        hashed.append(Path(path))
        return real(path)

    monkeypatch.setattr(weights_cache, "gguf_digest", counted)
    return hashed


def test_a_files_digest_is_remembered_until_its_size_or_times_change(tmp_path, monkeypatch) -> None:
    import hashlib

    hashed = counting_digests(monkeypatch)
    folder, f = tmp_path / "cache", tmp_path / "model.gguf"
    f.write_bytes(b"first contents")
    first = file_digest(folder, f)
    assert first == hashlib.sha256(b"first contents").hexdigest() and hashed == [f.resolve()]
    assert file_digest(folder, f) == first and len(hashed) == 1  # remembered: not read again
    st = f.stat()
    f.write_bytes(b"other contents")  # the same size; its times are then set back as they were
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert f.stat().st_size == st.st_size and f.stat().st_mtime_ns == st.st_mtime_ns
    assert file_digest(folder, f) == hashlib.sha256(b"other contents").hexdigest()  # ctime moved: hashed
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # only the mtime
    assert file_digest(folder, f) == hashlib.sha256(b"other contents").hexdigest() and len(hashed) == 3
    f.write_bytes(b"longer contents!")  # the size
    assert file_digest(folder, f) == hashlib.sha256(b"longer contents!").hexdigest() and len(hashed) == 4
    assert file_digest(folder, f) == hashlib.sha256(b"longer contents!").hexdigest() and len(hashed) == 4
    (folder / DIGESTS).write_text("{not json")  # a damaged side file: hashed again, and written anew
    assert file_digest(folder, f) == hashlib.sha256(b"longer contents!").hexdigest() and len(hashed) == 5
    assert file_digest(folder, f) == hashlib.sha256(b"longer contents!").hexdigest() and len(hashed) == 5
    assert not list(folder.glob("*.tmp"))


def test_a_digest_is_right_when_the_folder_cannot_keep_it(tmp_path) -> None:
    import hashlib

    blocked, f = tmp_path / "a-file", tmp_path / "model.gguf"
    blocked.write_text("")
    f.write_bytes(b"contents")
    assert file_digest(blocked / "cache", f) == hashlib.sha256(b"contents").hexdigest()


def test_a_warm_load_reads_no_byte_of_the_gguf(built, cache_dir, monkeypatch) -> None:
    """The digest comes from the side file the first load wrote: the GGUF is neither hashed nor opened."""
    hashed = counting_digests(monkeypatch)
    monkeypatch.setattr(loading, "open_reader", lambda path: pytest.fail("the GGUF's metadata was read"))
    ld = Loader()
    ld.cache_dir = cache_dir
    model = ld.model()
    assert hashed == [] and ld.cache_file == built[0].cache_file
    assert set(ld.seconds) >= {"digest", "open", "total"}
    assert model.run("The capital of France is").next_tokens[0].token == " Paris"


def test_a_changed_gguf_is_hashed_again_and_gets_its_own_cache(built, gguf, tmp_path, monkeypatch) -> None:
    """A copy of the model file whose name was edited in place: its remembered digest is stale (the
    file's times changed), so it is hashed again, and that new digest has no cache yet: one is built
    from the changed file (its name shows it), beside the first, which stays."""
    import shutil

    copy = tmp_path / "model.gguf"
    shutil.copyfile(gguf, copy)
    folder = built[0].cache_dir
    first = file_digest(folder, copy)  # the same bytes as the packaged file: its cache is there
    assert first == gguf_digest(gguf) and read_cache(folder, first) is not None
    data = bytearray(copy.read_bytes())
    name = built[1].config.name.encode()
    at = data.index(name)
    data[at] = ord("T") if data[at] != ord("T") else ord("S")
    copy.write_bytes(bytes(data))
    hashed = counting_digests(monkeypatch)
    ld = Loader(copy)
    ld.cache_dir = folder
    model = ld.model()
    assert hashed == [copy.resolve()]
    digest = gguf_digest(copy)
    assert digest != first and ld.cache_file == cache_path(folder, digest) != built[0].cache_file
    assert model.config.name == data[at: at + len(name)].decode() != built[1].config.name
    assert read_cache(folder, first) is not None  # the packaged file's cache is still there
    np.testing.assert_array_equal(model.weights.layers[2].up, built[1].weights.layers[2].up)
    ld.cache_file.unlink()


# ---- the layout: huge-page aligned, written in whole pieces ------------------------------------

from hypothesis import HealthCheck  # noqa: E402


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(1, 300), min_size=1, max_size=8), chunk=st.sampled_from([64, 128, 256, 1024]))
def test_the_data_is_written_in_pieces_that_put_every_array_at_its_offset(monkeypatch, sizes, chunk) -> None:
    """Oracle: a bytearray with each array's bytes copied at its offset, zeros between."""
    monkeypatch.setattr(weights_cache, "CHUNK", chunk)
    rng = np.random.default_rng(len(sizes) * 1000 + chunk)
    arrays = [rng.normal(size=n).astype(np.float32) for n in sizes]
    offsets, at = [], 0
    for a in arrays:
        offsets.append(at)
        at = -(-(at + a.nbytes) // weights_cache.ALIGN) * weights_cache.ALIGN
    want = bytearray(at)
    for a, off in zip(arrays, offsets, strict=True):
        want[off: off + a.nbytes] = a.tobytes()
    pieces = [bytes(p) for p in weights_cache._pieces(arrays, offsets, at)]
    assert b"".join(pieces) == bytes(want)
    assert all(len(p) == chunk for p in pieces[:-1]) and 0 < len(pieces[-1]) <= chunk


def test_the_weights_start_on_a_huge_page_and_the_mapping_asks_for_huge_pages(built) -> None:
    ld, model = built
    data = ld.cache_file.read_bytes()[: 16]
    (length,) = struct.unpack("<Q", data[len(MAGIC): len(MAGIC) + 8])
    start = -(-(len(MAGIC) + 8 + length) // weights_cache.DATA_ALIGN) * weights_cache.DATA_ALIGN
    assert start % (2 << 20) == 0
    assert ld.cache_file.stat().st_size == start + sum(
        -(-a.nbytes // weights_cache.ALIGN) * weights_cache.ALIGN for a in weights_cache_arrays(model))
    smaps = Path(f"/proc/{os.getpid()}/smaps")
    if smaps.exists() and Path("/sys/kernel/mm/transparent_hugepage/enabled").exists():
        blocks = smaps.read_text().split(str(ld.cache_file))
        flags = [line for block in blocks[1:] for line in block.splitlines() if line.startswith("VmFlags:")][:1]
        assert flags and " hg" in flags[0]  # MADV_HUGEPAGE took


def weights_cache_arrays(model):
    return [a for _, a in weights_cache._named_arrays(model.weights)]
