"""This machine's address on its network: what the phones in a hall reach it under.

Used for the tournament's links and QR codes when the organiser opens the app on
the laptop itself (``http://127.0.0.1:5000``), and by ``python -m scorer.hall``.
"""

from __future__ import annotations

import ipaddress
import socket
from functools import lru_cache


@lru_cache(maxsize=1)
def lan_address() -> str | None:
    """This machine's address on its network, or None when it has none.

    First the interface a route out would use (a UDP socket "connected" to an
    address sends nothing; it only picks the interface).  A laptop running its
    own hotspot in a hall without reception has no route out: then the first
    address of a network interface that is not the loopback (Linux).
    """
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))
        address = str(probe.getsockname()[0])
        if not ipaddress.ip_address(address).is_loopback:
            return address
    except OSError:
        pass
    finally:
        probe.close()
    return next(iter(interface_addresses()), None)


def interface_addresses() -> list[str]:
    """The IPv4 addresses of this machine's network interfaces but the loopback (Linux)."""
    try:
        import fcntl
        import struct
    except ImportError:  # pragma: no cover - not Linux
        return []
    found = []
    for _, name in socket.if_nameindex():
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            packed = struct.pack("256s", name.encode()[:15])
            # SIOCGIFADDR: the interface's IPv4 address
            raw = fcntl.ioctl(probe.fileno(), 0x8915, packed)[20:24]
            address = socket.inet_ntoa(raw)
        except OSError:
            continue
        finally:
            probe.close()
        if not ipaddress.ip_address(address).is_loopback:
            found.append(address)
    return found
