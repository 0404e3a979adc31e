"""Why a push of the hall did not get through, as a reason code the pages put in words.

The hall keeps the reason of its last failed try on its link to the hosted copy
(``OnlineLink.error``) as one of the codes below; ``scorer.words.online_trouble``
says it in the organiser's language ("the connection was refused", "no answer
within 10 seconds" …), never as the exception's English text.

- a transport failure (nothing came back): :func:`reason_of` an exception;
- an answer of the hosted copy that is no success: :func:`http_reason` of its status
  (``"http-404"``), the status saying what it means (no such page, taken down …);
- ``TAKEN_OVER``: another hall has connected to the page since (this one stops).
"""

from __future__ import annotations

import errno
import http.client
import socket
import ssl
import urllib.error

REFUSED = "refused"
"""The hosted copy's machine answered, but nothing listens there (not running, wrong port)."""
TIMEOUT = "timeout"
"""No answer in time (a weak hotspot, a hosted copy that hangs)."""
NO_NAME = "no-name"
"""The hosted copy's name does not exist (a typing mistake in the line, an old address)."""
NO_LOOKUP = "no-lookup"
"""The name could not be looked up at all (no internet, no name server)."""
NO_NETWORK = "no-network"
"""This laptop has no route out (no network, no internet on this network)."""
TLS = "tls"
"""No secure connection: the certificate is not valid for the name, or the clock is wrong."""
CUT = "cut"
"""The connection broke off in the middle (reset, closed, half an answer)."""
ADDRESS = "address"
"""The address in the connection line cannot be used (it cannot even be sent to)."""
OTHER = "other"
"""Any other failure of the connection."""
TAKEN_OVER = "taken over"
"""Another hall connected to the page since: this one stops (kept as it was stored before)."""

REASONS = (REFUSED, TIMEOUT, NO_NAME, NO_LOOKUP, NO_NETWORK, TLS, CUT, ADDRESS, OTHER)

_NO_ROUTE = {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN}
_NOT_FOUND = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


def reason_of(error: BaseException) -> str:
    """The reason code of a failed request (urllib's errors, the socket's, http.client's).

    >>> reason_of(urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")))
    'refused'
    >>> reason_of(TimeoutError("timed out")), reason_of(ssl.SSLCertVerificationError())
    ('timeout', 'tls')
    >>> reason_of(urllib.error.URLError(socket.gaierror(socket.EAI_NONAME, "Name unknown")))
    'no-name'
    """
    if isinstance(error, urllib.error.URLError) and not isinstance(error, urllib.error.HTTPError):
        inner = error.reason
        if isinstance(inner, BaseException):
            return reason_of(inner)
        return TIMEOUT if "timed out" in str(inner) else OTHER
    if isinstance(error, ssl.SSLError | ssl.CertificateError):
        return TLS
    if isinstance(error, socket.gaierror):
        return NO_NAME if error.errno in _NOT_FOUND else NO_LOOKUP
    if isinstance(error, TimeoutError | socket.timeout):
        return TIMEOUT
    if isinstance(error, ConnectionRefusedError):
        return REFUSED
    if isinstance(error, ConnectionError | http.client.HTTPException | EOFError):
        return CUT
    if isinstance(error, OSError) and error.errno in _NO_ROUTE:
        return NO_NETWORK
    if isinstance(error, ValueError):
        return ADDRESS
    return OTHER


def http_reason(status: int) -> str:
    """The reason code of an answer of the hosted copy that is no success.

    >>> http_reason(404), http_reason(502)
    ('http-404', 'http-502')
    """
    return f"http-{int(status)}"


def http_status(reason: str) -> int | None:
    """The HTTP status of an ``http-`` reason code, else None.

    >>> http_status("http-410"), http_status("refused"), http_status("http-x")
    (410, None, None)
    """
    head, _, number = reason.partition("-")
    if head != "http" or not number.isdigit() or len(number) != 3:
        return None
    return int(number)
