"""Domain specifiers: `WebFetch(domain:docs.python.org)` and `WebFetch(domain:*.python.org)`.

A tool that declares `DomainAccess` is judged by the host of the URL it is given. `domain:H`
matches the host H exactly; `domain:*.H` matches every subdomain of H (`docs.python.org`,
`a.b.python.org`) but not H itself — write both rules for both. Hosts compare lowercased,
without a trailing dot, IPv6 addresses without their brackets; the port is not part of a rule.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["DomainPattern", "parse_domain_pattern", "url_host"]

_HOST = re.compile(r"[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?")


@dataclass(frozen=True)
class DomainPattern:
    host: str
    subdomains: bool = False

    def matches(self, host: str) -> bool:
        if self.subdomains:
            return host.endswith("." + self.host)
        return host == self.host

    def __str__(self) -> str:
        return f"*.{self.host}" if self.subdomains else self.host


def _normal(host: str) -> str:
    return host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


def parse_domain_pattern(spec: str) -> DomainPattern:
    """`domain:host` or `domain:*.host`; a ValueError says what is wrong."""
    text = spec.strip()
    kind, colon, rest = text.partition(":")
    if not colon or kind.strip().lower() != "domain":
        raise ValueError(f"expected domain:<host> (domain:docs.python.org), got {text!r}")
    body = rest.strip()
    subdomains = body.startswith("*.")
    host = _normal(body.removeprefix("*.") if subdomains else body)
    if not host:
        raise ValueError("empty host after 'domain:'")
    if not (_HOST.fullmatch(host) or _is_address(host)):
        hint = "; write *.host for the subdomains" if "*" in host else ""
        raise ValueError(f"{body!r} is not a host name (no scheme, path or port){hint}")
    return DomainPattern(host, subdomains)


def url_host(url: object) -> str | None:
    """The host a URL names, normalised as rules compare it; None when it names none."""
    if not isinstance(url, str):
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return _normal(host) or None if host else None


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
