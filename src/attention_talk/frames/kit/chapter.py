"""A chapter: the frame builders one deck family uses, and the figures its words may quote.

Each chapter package (``frames/step_by_step``, ``frames/walkthrough``, …) makes one ``Chapter``,
registers its builders on it with ``@CHAPTER.builder(name, Params)`` in its own modules, and lists
its figure sources. ``frames/chapters.py`` lists the chapters; nothing registers into a global.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.figures import FigureSource

if TYPE_CHECKING:
    from attention_talk.frames.contract import FrameBody


class Params(BaseModel):
    """Base of every builder's parameters: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


class NoParams(Params):
    pass


@dataclass(frozen=True)
class Builder:
    name: str
    func: Callable[[BuildContext, Any], FrameBody]
    params_model: type[BaseModel]
    doc: str
    chapter: str
    context: type[BuildContext] = BuildContext  # what ``func`` is handed: its chapter's kind of context
    notes: tuple[str, ...] = ()  # the ids of the notes it may draw, whose texts a step's words give
    cards: tuple[str, ...] = ()  # likewise for its cards (see frames/kit/words.py)


@dataclass
class Chapter:
    """``name``: the chapter's id; ``needs``: what its builders read from a deck (one line, shown
    in errors when a builder is used by a deck it cannot draw); ``presets``: the cost-model presets
    whose sizes its matrices are drawn at (None: any preset); ``context``: the kind of build context
    its builders read (a ``BuildContext`` extended with the chapter's own inputs, e.g. chapter 1's
    story model, so the generic context holds nothing of any chapter).

    A chapter that reads a real model (``attention_talk.model``) lists its model figure sources in
    ``model_figures`` (``fn(deck, model) -> {name: value}``) and their names in ``model_figure_names``:
    a deck using it is checked at load time against the names, and filled and built on first use,
    when the model is loaded (``frames.prepare_model_deck``)."""

    name: str
    needs: str = ""
    presets: tuple[str, ...] | None = None
    context: type[BuildContext] = BuildContext
    figures: list[FigureSource] = field(default_factory=list)
    builders: dict[str, Builder] = field(default_factory=dict)
    model_figures: list[Callable[[Any, Any], dict[str, object]]] = field(default_factory=list)
    model_figure_names: tuple[str, ...] = ()

    @property
    def needs_model(self) -> bool:
        return bool(self.model_figures) or bool(self.model_figure_names)

    def builder(self, name: str, params: type[BaseModel] = NoParams, *, notes: tuple[str, ...] = (),
                cards: tuple[str, ...] = ()):
        """Register ``func(ctx, params) -> FrameBody`` under ``name`` in this chapter. ``notes`` and
        ``cards``: the ids of the notes and cards it may draw, whose words come from the deck."""

        def register(func):
            if name in self.builders:
                raise ValueError(f"frame builder {name!r} registered twice")
            self.builders[name] = Builder(name, func, params, (func.__doc__ or "").strip(), self.name,
                                          self.context, tuple(notes), tuple(cards))
            return func

        return register

    def figure_source(self, fn: FigureSource) -> FigureSource:
        """Add a figure source that decks using this chapter's builders get."""
        self.figures.append(fn)
        return fn
