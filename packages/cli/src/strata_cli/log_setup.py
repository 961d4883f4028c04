"""Logging for the CLI: warnings (and debug lines with STRATA_DEBUG=1) as short lines on stderr.

The core and providers log through stdlib `logging` and configure nothing (`strata_core.logging`); the CLI is
the application, so it decides how events look. stdout carries answers and `--format json`, so nothing here
writes to it. One handler on the root logger renders every record, Strata's and third-party libraries' alike,
as `warning: event (key=value ...)`; with STRATA_DEBUG=1 Strata's debug events show too, and an event logged
with an exception is followed by its traceback (without it, one `exception=Type: message` field says what
failed). Plain `logging` only: neither `logging.config` nor structlog is imported on the way to the first
model request. Every line is passed through `strata_core.redaction.redact_text`: a credential config
loading saw, or a URL's `user:password@`, never reaches the terminal or a captured log.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

from strata_core.logging import EventMessage
from strata_core.redaction import redact_text

STRATA_LOGGERS = ("strata_core", "strata_providers", "strata_cli")

_configured = False


class ShortLineFormatter(logging.Formatter):
    """`level: event (key=value ...)`, and the traceback of a logged exception when `tracebacks` is on."""

    def __init__(self, *, tracebacks: bool) -> None:
        super().__init__()
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        name, fields = _event_and_fields(record)
        if record.exc_info and not self.tracebacks:
            fields["exception"] = _one_line(record.exc_info[1])
        details = " ".join(f"{key}={value}" for key, value in fields.items())
        line = f"{record.levelname.lower()}: {name}" + (f" ({details})" if details else "")
        if record.exc_info and self.tracebacks:
            line += "\n" + self.formatException(record.exc_info)
        return redact_text(line)


def _event_and_fields(record: logging.LogRecord) -> tuple[str, dict[str, Any]]:
    if isinstance(record.msg, EventMessage):
        return record.msg.event, record.msg.fields()
    return record.getMessage(), {}


def _one_line(error: BaseException | None) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever `sys.stderr` is when a record comes (as stdlib's own last-resort handler does), so
    a stream swapped in later (click's test runner, a redirect) is the one written to."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _: TextIO) -> None:
        pass


def configure_logging(*, debug: bool = False) -> None:
    """Send log records of `warning` and above (Strata's debug ones too with `debug`) to stderr, once per process."""
    global _configured
    if _configured:
        return
    _configured = True
    handler = _StderrHandler()
    handler.setFormatter(ShortLineFormatter(tracebacks=debug))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)  # third-party libraries' debug and info chatter stays off
    for name in STRATA_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG if debug else logging.WARNING)
