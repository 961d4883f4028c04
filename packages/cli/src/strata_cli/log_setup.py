"""structlog for the CLI: warnings (and debug lines with STRATA_DEBUG=1) as short lines on stderr.

The core logs through structlog and never configures it (DESIGN 4); left unconfigured, structlog would print
to stdout, where it would corrupt `--format json` output and piped answers.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

_configured = False


def _render(_: Any, method: str, event: MutableMapping[str, Any]) -> str:
    name = str(event.pop("event", ""))
    event.pop("logger", None)
    event.pop("level", None)
    details = " ".join(f"{key}={value}" for key, value in event.items())
    return f"{method}: {name}" + (f" ({details})" if details else "")


def configure_logging(*, debug: bool = False) -> None:
    """Send log events of `warning` and above (everything with `debug`) to stderr, once per process."""
    global _configured
    if _configured:
        return
    _configured = True
    structlog.configure(
        processors=[structlog.processors.add_log_level, _render],
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG if debug else logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
