"""Lazy re-exports (PEP 562) for the packages whose ``__init__`` gathers their submodules' names.

``engine``, ``model`` and ``frames`` re-export names from submodules that import NumPy or every
chapter's builders. With ``lazy_exports``, such a submodule is imported only when one of its names is
first asked for (``from attention_talk.engine import attend``), so importing the package, or a light
submodule of it (``engine.costs``, ``model.gguf_file``, ``frames.contract``), stays light and the
server answers sooner (``tests/test_startup.py`` checks what start-up imports).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


class LazyPackage(ModuleType):
    """A package whose exported names load their submodule on first use."""

    _lazy: dict[str, str]  # exported name → submodule (relative to the package)

    def __getattr__(self, name: str) -> object:
        submodule = self.__dict__.get("_lazy", {}).get(name)
        if submodule is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{self.__name__}.{submodule}"), name)
        setattr(self, name, value)
        return value

    def __setattr__(self, name: str, value: object) -> None:
        # The import system binds each submodule on its package once it has loaded. Where an exported
        # name is also its submodule's name (engine.rope, engine.decode), the name keeps meaning the
        # function, as an __init__ importing it eagerly would have left it.
        if isinstance(value, ModuleType) and self.__dict__.get("_lazy", {}).get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


def lazy_exports(package: str, where: dict[str, str]) -> None:
    """Make ``package`` (its ``__name__``) load the submodule of each name in ``where`` on first use."""
    module = sys.modules[package]
    module.__dict__["_lazy"] = dict(where)
    module.__class__ = LazyPackage
