"""A table phone in Python: the hand form's page, its saves, and the witness's protocol.

:class:`TablePhone` does what a table's page does with ``static/scorer.js`` and
``static/witness.js``: it loads the page (the form's CSRF token, version, key, and
the place of the next hand), saves a hand with its key and keeps it — told saved, or
sent without an answer — and asks the laptop what it holds (``GET …/witness``),
sending again what the laptop lacks (``POST …/witness``), or reporting it when the
laptop has no such table (``POST …/witness/report``).  It speaks HTTP through a
*transport*: :class:`Http` (a real server, cookies kept, no redirects followed) or
:class:`FlaskTransport` (the Flask test client).
"""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlencode

from tests.builders import fill_hand, form_data

NEXT_SEQ_RE = re.compile(r'data-next-seq="(\d+)"')
NEXT_DEAL_RE = re.compile(r'data-next-deal="(\d+)"')
VERSION_RE = re.compile(r'id="match-top" data-version="(\d+)"')
WITNESS_RE = re.compile(r"data-witness='([^']*)'")
FIELD_RE = re.compile(
    r"(declarer|bid|bid_ok|trump|outcome|won|at_fault"
    r"|parties-[0-7]-(melds|meld_names|tricks|no_trick|took_zero))"
)

Pairs = Sequence[tuple[str, str]]


class Transport(Protocol):
    def __call__(
        self,
        method: str,
        path: str,
        form: Pairs | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str]: ...


class Http:
    """HTTP/1.1 to 127.0.0.1:``port`` with cookies, like a phone's browser (no redirects)."""

    def __init__(self, port: int, timeout: float = 10) -> None:
        self.port = port
        self.timeout = timeout
        self.cookies: dict[str, str] = {}

    def __call__(
        self,
        method: str,
        path: str,
        form: Pairs | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        sent = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()), **(headers or {})}
        body = None
        if form is not None:
            body = urlencode(list(form))
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body, sent)
            response = conn.getresponse()
            data = response.read().decode()
            for cookie in response.msg.get_all("Set-Cookie") or []:
                name, _, rest = cookie.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
            return response.status, data
        finally:
            conn.close()


class FlaskTransport:
    """The same over the Flask test client (its cookies are the client's)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __call__(
        self,
        method: str,
        path: str,
        form: Pairs | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str]:
        from werkzeug.datastructures import MultiDict

        data = MultiDict(list(form)) if form is not None else None
        response = self.client.open(path, method=method, data=data, headers=headers or {})
        return response.status_code, response.get_data(as_text=True)


@dataclass
class Kept:
    """A deal the phone keeps: its key, place, number, the form's fields, told it was saved."""

    key: str
    seq: int | None
    deal: int | None
    fields: list[tuple[str, str]]
    told: bool = False
    struck: bool = False
    after: str | None = None


@dataclass
class TablePhone:
    """One table's phone (see the module's docstring)."""

    http: Transport
    token: str
    kept: list[Kept] = field(default_factory=list)
    page: dict[str, Any] = field(default_factory=dict)
    form: dict[str, str] = field(default_factory=dict)
    next_seq: int | None = None
    next_deal: int | None = None
    version: int | None = None

    # -- the page and the hand form ----------------------------------------------------

    def load(self) -> int:
        """Load the table's page (its status); the form, its place and the page's words."""
        status, html = self.http("GET", f"/m/{self.token}")
        if status != 200:
            return status
        self.form = form_data(html, "hand-form")
        seq = NEXT_SEQ_RE.search(html)
        deal = NEXT_DEAL_RE.search(html)
        version = VERSION_RE.search(html)
        witness = WITNESS_RE.search(html)
        self.next_seq = int(seq.group(1)) if seq else None
        self.next_deal = int(deal.group(1)) if deal else None
        self.version = int(version.group(1)) if version else None
        if witness:
            self.page = json.loads(witness.group(1).replace("&#39;", "'"))
        return status

    def save(self, **hand: Any) -> int:
        """Save a hand with the loaded form, kept first (as the page keeps it); the status
        (303: told saved), or raises what the connection raised (the deal stays kept)."""
        data = fill_hand(self.form, **hand)
        same = self.version is not None and data.get("version") == str(self.version)
        seq = self.next_seq if same else None
        before = next((d.key for d in self.kept if seq and d.seq == seq - 1), None)
        deal = Kept(
            key=data["idempotency_key"],
            seq=seq,
            deal=self.next_deal if same else None,
            fields=[(k, v) for k, v in data.items() if FIELD_RE.fullmatch(k)],
            after=before,
        )
        self.kept.append(deal)
        status, _html = self.http("POST", f"/m/{self.token}/hands", list(data.items()))
        if 200 <= status < 400:
            deal.told = True
        elif status in (409, 422):
            self.kept.remove(deal)  # not saved, and the page says why
        return status

    # -- the witness -------------------------------------------------------------------------

    def held(self) -> tuple[int, dict[str, Any]]:
        """What the laptop holds of the table (the witness's GET)."""
        status, text = self.http("GET", f"/m/{self.token}/witness")
        return status, (json.loads(text) if text else {})

    def deals_form(self, deals: Sequence[Kept], **extra: Any) -> list[tuple[str, str]]:
        form: list[tuple[str, str]] = []
        for name, value in extra.items():
            for item in value if isinstance(value, list) else [value]:
                form.append((name, str(item)))
        for i, deal in enumerate(deals):
            form += [
                (f"key{i}", deal.key),
                (f"seq{i}", str(deal.seq or 0)),
                (f"deal{i}", str(deal.deal or deal.seq or 0)),
                (f"after{i}", deal.after or ""),
                (f"struck{i}", "1" if deal.struck else ""),
                (f"told{i}", "1" if deal.told else ""),
            ]
            form += [(f"d{i}.{name}", value) for name, value in deal.fields]
        return form

    def sync(self) -> dict[str, Any]:
        """The witness's round: ask, send again what the laptop lacks (in order), or report
        a table the laptop does not have.  What the last answer said."""
        status, body = self.held()
        if status == 404 and body.get("table") in ("missing", "replaced"):
            return self.report(body)
        if status != 200:
            return {"status": status, **body}
        holds = {key: (seq, struck) for seq, key, struck in body["hands"]}
        for deal in self.kept:
            if deal.key in holds:
                deal.told = True
                deal.seq, deal.struck = holds[deal.key]
        lacking = [d for d in self.kept if d.key not in holds and d.seq]
        if not lacking:
            return {"status": 200, "stored": 0, **body}
        status, text = self.http(
            "POST",
            f"/m/{self.token}/witness",
            self.deals_form(lacking, table=self.token),
            {"X-CSRFToken": body["csrf"]},
        )
        answer: dict[str, Any] = json.loads(text) if text.startswith("{") else {"error": text[:200]}
        for outcome in answer.get("outcomes", []):
            if outcome["answer"] in ("stored", "held"):
                for deal in self.kept:
                    if deal.key == outcome["key"]:
                        deal.told = True
        return {"status": status, **answer}

    def report(self, body: dict[str, Any]) -> dict[str, Any]:
        """Report the deals to a laptop without the table."""
        form = self.deals_form(
            self.kept,
            view=self.page.get("view", ""),
            round=self.page.get("round", ""),
            table=self.page.get("table", ""),
            player=list(self.page.get("players", [])),
        )
        status, text = self.http(
            "POST", f"/m/{self.token}/witness/report", form, {"X-CSRFToken": body["csrf"]}
        )
        return {"status": status, "table": body.get("table"), **json.loads(text)}
