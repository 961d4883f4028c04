"""The server's version, as `/global/health` reports it."""

from __future__ import annotations

from importlib import metadata

try:
    VERSION = metadata.version("strata-server")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    VERSION = "0+unknown"
