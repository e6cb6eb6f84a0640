"""The kit every chapter builds with: layout, tensors, derivations, widgets, numbers, chapters.

A chapter package imports from here and from the engine, never from another chapter.
"""

from attention_talk.formatting import count, number, shape, vector
from attention_talk.frames.kit.chapter import Builder, Chapter, NoParams, Params
from attention_talk.frames.kit.layout import BOTTOM, CONTENT, LEFT, RIGHT, STAGE_H, STAGE_W, TOP, box, columns, rows
from attention_talk.frames.kit.tensors import tensor, window
from attention_talk.frames.kit.widgets import widget

__all__ = ["BOTTOM", "CONTENT", "LEFT", "RIGHT", "STAGE_H", "STAGE_W", "TOP", "Builder", "Chapter",
           "NoParams", "Params", "box", "columns", "count", "number", "rows", "shape", "tensor", "vector",
           "widget", "window"]
