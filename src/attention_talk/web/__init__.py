"""The web app: FastAPI routes, Jinja pages and the static player."""

from attention_talk.web.app import create_app

__all__ = ["create_app"]
