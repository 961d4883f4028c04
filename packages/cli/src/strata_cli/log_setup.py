"""Logging for the CLI: internal log lines go to a log file, or to stderr with STRATA_DEBUG=1.

The core and providers log through stdlib `logging` and configure nothing (`strata_core.logging`); the CLI is the
application, so it decides where events go. What a person must know (a failed turn, a refused permission) is printed
by the commands themselves, and a notice about the user's own input (`log.notice`: a config file, agent, skill or
instruction skipped) is printed on stderr as it comes; any other log line (`title.failed`) is for whoever
investigates, so in normal operation it never reaches the terminal: it is appended to
`$XDG_STATE_HOME/strata/log/strata.log` (started afresh past 1 MB, the previous one kept as `strata.log.1`). With
STRATA_DEBUG=1 every record, Strata's debug events included, is written to stderr instead, each logged exception
followed by its traceback. Either way every record, Strata's and third-party libraries' alike, is rendered as
`warning: event (key=value ...)`, or `warning: sentence` for a notice that `says=` one (in the file, after the
time; without debug an exception is one `exception=Type: message` field). stdout carries answers and `--format
json`, so nothing here writes to it. Plain `logging` only:
neither `logging.config` nor structlog is imported on the way to the first model request, and the file is opened
only when a first record comes. Every line is passed through `strata_core.redaction.redact_text`: a credential
config loading saw, or a URL's `user:password@`, never reaches the terminal or the log file.
"""

from __future__ import annotations

import io
import logging
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from strata_core.logging import EventMessage, is_notice
from strata_core.redaction import redact_text

STRATA_LOGGERS = ("strata_core", "strata_providers", "strata_cli")

LOG_FILE_LIMIT = 1_000_000
"""Bytes after which the log file is started afresh (the old one kept as `.1`): logs never grow without bound."""

_configured = False


def log_file(state: Path) -> Path:
    """Where log lines go without STRATA_DEBUG, under the state directory (`StrataPaths.state`)."""
    return state / "log" / "strata.log"


class ShortLineFormatter(logging.Formatter):
    """`level: event (key=value ...)`, and the traceback of a logged exception when `tracebacks` is on."""

    def __init__(self, *, tracebacks: bool) -> None:
        super().__init__()
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        name, fields = _event_and_fields(record)
        if "says" in fields and not record.exc_info:
            # A notice written for a person (`says=`): its sentence is the whole line, the fields are for tools.
            return redact_text(f"{record.levelname.lower()}: {fields['says']}")
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


class _LogFile(logging.FileHandler):
    """Appends to the log file, opened at the first record; a file past `LOG_FILE_LIMIT` is moved aside first."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8", delay=True)

    def _open(self) -> io.TextIOWrapper:
        path = Path(self.baseFilename)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > LOG_FILE_LIMIT:
            path.replace(path.with_name(path.name + ".1"))
        return super()._open()

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(record.created))
        return f"{stamp} {super().format(record)}"

    def handleError(self, record: logging.LogRecord) -> None:
        pass  # an unwritable log file must not put a traceback on the terminal


def configure_logging(*, debug: bool = False, log_file: Path | None = None) -> None:
    """Send log records of `warning` and above to `log_file` (nowhere without one) and notices about the
    user's input to stderr too, or, with `debug`, every record of Strata's (debug ones too) and warnings of
    other libraries to stderr; once per process."""
    global _configured
    if _configured:
        return
    _configured = True
    handlers: list[logging.Handler] = []
    if debug:
        handlers.append(_StderrHandler())
    else:
        notices = _StderrHandler()
        notices.addFilter(is_notice)
        handlers.append(notices)
        if log_file is not None:
            handlers.append(_LogFile(log_file))
    root = logging.getLogger()
    for handler in handlers:
        handler.setFormatter(ShortLineFormatter(tracebacks=debug))
        root.addHandler(handler)
    root.setLevel(logging.WARNING)  # third-party libraries' debug and info chatter stays off
    for name in STRATA_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG if debug else logging.WARNING)
