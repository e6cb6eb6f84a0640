"""The store builds a deck drawn from the real model (chapter 3) once: its model figures computed
once, and the deck it keeps (manifest, pages) the very one its frames were built from. Needs the
real model (``real_model`` in conftest.py)."""

from __future__ import annotations

import shutil

import orjson

from attention_talk.frames import load_deck, model_chapters
from attention_talk.paths import data_dir
from attention_talk.web.store import Store

DECK = "real-heads"


def test_a_model_deck_is_prepared_once(real_model, tmp_path, monkeypatch) -> None:
    shutil.copy(data_dir("slides") / f"{DECK}.yaml", tmp_path)
    chapters = model_chapters(load_deck(tmp_path / f"{DECK}.yaml"))
    assert chapters, "the deck reads the model"
    prepared: list[str] = []
    filled: dict[str, object] = {}
    for chapter in chapters:
        def counted(fn):
            def figures(deck, model):
                prepared.append(deck.id)
                made = fn(deck, model)
                filled.update(made)
                return made
            return figures

        monkeypatch.setattr(chapter, "model_figures", [counted(fn) for fn in chapter.model_figures])
    figure_sources = sum(len(c.model_figures) for c in chapters)

    store = Store.load(tmp_path, eager=False)
    deck = store.ensure(DECK)
    assert prepared == [DECK] * figure_sources  # once per source for the frames and the pages alike
    assert store.ensure(DECK) is deck and len(prepared) == figure_sources  # built: not prepared again

    words = "".join(s.title + s.notes + "".join(st.caption + st.narration for st in s.steps) for s in deck.slides)
    assert not [name for name in filled if "{" + name + "}" in words]  # every model figure filled in
    assert str(filled["model_name"]) in words
    first = deck.slides[0]
    frames = orjson.loads(store.frames[DECK, first.id].body)["frames"]
    assert [f["caption"] for f in frames] == [st.caption for st in first.steps]  # the frames' deck is the kept one
