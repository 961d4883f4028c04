"""The installed version of a distribution, read without importing `importlib.metadata`.

    installed_version("strata-core")   # "0.1.0", or None when it is not installed

`importlib.metadata` costs ~25 ms to import (it pulls in the `email` package and `zipfile`), which is a third
of `strata --version`. An installed distribution has a `NAME-VERSION.dist-info` directory in one of the
import paths; the first one in `sys.path` order is the one `importlib.metadata` would find too, and its
`METADATA` file says `Version:` in its header. Anything else (eggs, zip imports) is left to
`importlib.metadata`, so the answer is the same either way.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def installed_version(distribution: str) -> str | None:
    """The version of `distribution` (any spelling: `strata-core`, `strata_core`), or None if not installed."""
    found = _dist_info_version(_normalized(distribution) + "-")
    if found is not None:
        return found
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _normalized(name: str) -> str:
    """The name as a `.dist-info` directory spells it (PEP 503 normalized, `_` for the separators)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _dist_info_version(prefix: str) -> str | None:
    for entry in sys.path:
        directory = Path(entry or ".")
        try:
            names = sorted(child.name for child in directory.iterdir())
        except OSError:
            continue
        dist_info = next((n for n in names if n.lower().startswith(prefix) and n.endswith(".dist-info")), None)
        if dist_info is None:
            continue
        return _metadata_version(directory / dist_info / "METADATA")
    return None


def _metadata_version(metadata: Path) -> str | None:
    try:
        with metadata.open(encoding="utf-8") as file:
            for line in file:
                if line.startswith("Version:"):
                    return line.removeprefix("Version:").strip()
                if not line.strip():  # the header ends at the first blank line
                    break
    except OSError:
        pass
    return None
