"""Where the web tools may go: http(s) only, the domain policy, and never a private address.

`web.allowed_domains` / `web.denied_domains` in config.json name hosts; an entry covers its
subdomains (`python.org` covers `docs.python.org`), and `host:port` names one port of a host.
Every name is resolved here and each address it resolves to is checked: loopback, private,
link-local, shared, reserved and unspecified addresses (127/8, 10/8, 172.16/12, 192.168/16,
169.254/16, 100.64/10, ::1, fc00::/7, fe80::/10, 0.0.0.0, …) are refused unless the host is
named exactly in `web.allowed_domains` — so a page, a redirect or a DNS name cannot lead the
agent into the Jupyter server or the cloud's metadata service. The connection is made to the
address that was checked (`GuardedBackend`, backend.py), so a second DNS answer cannot swap it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from shard_core.contracts.web import WebError

SCHEMES = ("http", "https")


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str
    port: int


def _normal(entry: str) -> str:
    return entry.strip().lower().rstrip(".").removeprefix("*.")


@dataclass(frozen=True)
class DomainPolicy:
    allowed: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()

    @classmethod
    def of(cls, allowed: Iterable[str] = (), denied: Iterable[str] = ()) -> DomainPolicy:
        return cls(tuple(map(_normal, allowed)), tuple(map(_normal, denied)))

    def check(self, url: str) -> Target:
        """The URL's target, or a WebError saying why the policy refuses it."""
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError as exc:
            raise WebError(f"{url!r} is not a valid URL: {exc}") from None
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            shown = f"{scheme}:" if scheme else "no scheme"
            raise WebError(f"{url!r}: only http and https URLs can be fetched ({shown})")
        host = (parts.hostname or "").rstrip(".").lower()
        if not host:
            raise WebError(f"{url!r} names no host")
        if parts.username or parts.password:
            raise WebError(f"{url!r}: URLs with a user name or password are not fetched")
        target = Target(url.strip(), scheme, host, port or (443 if scheme == "https" else 80))
        denied = self._covering(self.denied, target)
        if denied:
            raise WebError(f"{host} is denied by web.denied_domains ({denied})")
        if self.allowed and not self._covering(self.allowed, target):
            raise WebError(
                f"{host} is not in web.allowed_domains ({', '.join(self.allowed)}); "
                "add it there to let the agent fetch it"
            )
        return target

    def names_exactly(self, host: str, port: int) -> bool:
        """Whether `web.allowed_domains` names this host (or host:port) itself: the only way
        a private address is reached."""
        host = _normal(host)
        return host in self.allowed or f"{host}:{port}" in self.allowed

    @staticmethod
    def _covering(entries: Sequence[str], target: Target) -> str | None:
        for entry in entries:
            name, _, port = entry.partition(":") if entry.count(":") == 1 else (entry, "", "")
            if port and port != str(target.port):
                continue
            if target.host == name or target.host.endswith("." + name):
                return entry
        return None


def is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def resolve(policy: DomainPolicy, host: str, port: int) -> list[str]:
    """The addresses to connect to: every one checked, a WebError when one is not public (a
    name that resolves to both is refused: which one a client picks is not ours to know)."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise WebError(f"{host}: the name does not resolve ({exc.strerror or exc})") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise WebError(f"{host}: the name resolves to no address")
    if policy.names_exactly(host, port):
        return addresses
    private = [a for a in addresses if not is_public(a)]
    if private:
        raise WebError(
            f"{host} resolves to {private[0]}, a private or local address: refused (the web "
            f"tools never reach the local machine or network unless web.allowed_domains names "
            f"{host!r} or '{host}:{port}')"
        )
    return addresses
