"""The ceiling: a bare Flask "hello world", served by the same gunicorn settings as scorer.

``bench/run.py`` divides scorer's requests per second by this app's, measured in
the same run, so the figures say how close scorer gets to what Flask and
gunicorn can do at all on this machine.
"""

from __future__ import annotations

from flask import Flask

app = Flask(__name__)


@app.get("/")
def hello() -> str:
    return "Hello, World!"
