"""The Jinja templates of the HTML pages, made on first use: jinja2 is not imported before the
server answers, and ``web/startup.py`` makes them (and compiles every page) in the background."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi.templating import Jinja2Templates
    from jinja2 import Environment
    from starlette.templating import _TemplateResponse


class Templates:
    """``Jinja2Templates(directory)`` with ``globals`` in its environment, made on first use."""

    def __init__(self, directory: Path, **globals: Any) -> None:
        self.directory, self.globals = directory, globals
        self._made: Jinja2Templates | None = None
        self._lock = threading.Lock()

    @property
    def jinja(self) -> Jinja2Templates:
        if self._made is None:
            with self._lock:
                if self._made is None:
                    from fastapi.templating import Jinja2Templates

                    made = Jinja2Templates(directory=str(self.directory))
                    made.env.globals.update(self.globals)
                    self._made = made
        return self._made

    @property
    def env(self) -> Environment:
        return self.jinja.env

    def TemplateResponse(self, *args: Any, **kwargs: Any) -> _TemplateResponse:
        return self.jinja.TemplateResponse(*args, **kwargs)

    def compile_pages(self) -> None:
        """Compile every page template now (Jinja compiles each on its first use)."""
        for path in sorted(self.directory.glob("*.html")):
            self.env.get_template(path.name)
