"""What a server is started with: where it listens, who may call it, and its limits."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping

from attrs import frozen

from strata_core.errors import StrataError

DEFAULT_PORT = 4096
DEFAULT_HOSTNAME = "127.0.0.1"
DEFAULT_USERNAME = "opencode"
MAX_BODY_BYTES = 10 * 1024 * 1024
"""A prompt with inlined files fits; a body past this is refused before it is read (413)."""
PERMISSION_TIMEOUT_SECONDS = 600.0
"""How long a permission question waits for an answer over the API before the tool call fails."""
HEARTBEAT_SECONDS = 10.0
"""How often each event stream sends `server.heartbeat`, as OpenCode 1.18.33 does (every 10 s per connection)."""
HEARTBEAT_VARIABLE = "STRATA_SERVER_HEARTBEAT_SECONDS"
"""Overrides the heartbeat interval (a proxy that ends quiet connections sooner; tests)."""
PASSWORD_VARIABLES = ("STRATA_SERVER_PASSWORD", "OPENCODE_SERVER_PASSWORD")
USERNAME_VARIABLES = ("STRATA_SERVER_USERNAME", "OPENCODE_SERVER_USERNAME")
HOST_NAME = re.compile(r"(?i)[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?")
"""A DNS name (underscores allowed, as container names have them), without scheme, port or path."""


class ServerSettingsError(StrataError, ValueError):
    """Settings the server refuses to start with; the message says what to change."""


@frozen
class ServerSettings:
    hostname: str = DEFAULT_HOSTNAME
    port: int = DEFAULT_PORT
    cors: tuple[str, ...] = ()
    """Browser origins allowed to call the API (none by default)."""
    allowed_hosts: tuple[str, ...] = ()
    """Host names requests may give besides an address, localhost and `hostname` (`browser_guard.py`)."""
    username: str = DEFAULT_USERNAME
    password: str | None = None
    """With a password every request needs HTTP basic auth; without one only loopback binding is allowed."""
    max_body_bytes: int = MAX_BODY_BYTES
    permission_timeout: float = PERMISSION_TIMEOUT_SECONDS
    heartbeat_seconds: float = HEARTBEAT_SECONDS

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str],
        *,
        hostname: str = DEFAULT_HOSTNAME,
        port: int = DEFAULT_PORT,
        cors: tuple[str, ...] = (),
        allowed_hosts: tuple[str, ...] = (),
    ) -> ServerSettings:
        """Settings with the password and username from the environment (Strata's variables first)."""
        password = next((env[name] for name in PASSWORD_VARIABLES if env.get(name)), None)
        username = next((env[name] for name in USERNAME_VARIABLES if env.get(name)), DEFAULT_USERNAME)
        settings = cls(
            hostname=hostname,
            port=port,
            cors=cors,
            allowed_hosts=allowed_hosts,
            username=username,
            password=password,
            heartbeat_seconds=_heartbeat(env.get(HEARTBEAT_VARIABLE)),
        )
        settings.check()
        return settings

    def check(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ServerSettingsError(f"--port must be between 0 and 65535, not {self.port}.")
        if self.password is None and not is_loopback(self.hostname):
            raise ServerSettingsError(
                f"--hostname {self.hostname} would expose the server beyond this machine without a password; "
                f"set {PASSWORD_VARIABLES[0]} (HTTP basic auth, user {self.username!r}) or bind to 127.0.0.1."
            )
        for origin in self.cors:
            if not origin.startswith(("http://", "https://")) or origin.count("/") != 2:
                raise ServerSettingsError(
                    f"--cors {origin!r} is not a browser origin; give scheme and host, like http://localhost:5173."
                )
        for name in self.allowed_hosts:
            if not HOST_NAME.fullmatch(name):
                raise ServerSettingsError(
                    f"--allowed-host {name!r} is not a host name; give the name alone (no scheme, port or path), "
                    "like opencode.example.com."
                )


def _heartbeat(raw: str | None) -> float:
    if not raw:
        return HEARTBEAT_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise ServerSettingsError(f"{HEARTBEAT_VARIABLE}={raw!r} must be a number of seconds above 0, like 10.")
    return seconds


def is_loopback(hostname: str) -> bool:
    if hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False
