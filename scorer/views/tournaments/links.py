"""The addresses the tournament's links and QR codes carry (:mod:`scorer.addresses`,
docs/rules.md section 13.3), and their QR codes.
"""

from __future__ import annotations

from ...addresses import base_url, external_url
from ..polls import qr_svg

__all__ = ["base_url", "external_url", "qr_svg"]
