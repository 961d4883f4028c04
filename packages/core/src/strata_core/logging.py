"""How Strata's libraries log: key-value events, handed to the application's logging as it is configured.

    log = get_logger(__name__)
    log.notice("skill path not found", path=str(root))

A library must leave the process's logging to the application, so nothing here calls `structlog.configure`
or installs a handler other than the `NullHandler` that stdlib's guide asks libraries to add to their
top-level logger. Whether an event is logged at all is decided by stdlib: the level of the module's logger
(`logging.getLogger("strata_core.config.files")`, inherited from `strata_core` and the root). An event that
passes goes where the application said:

- if it configures no logging, it sees nothing: without the `NullHandler`, stdlib's `lastResort` handler would
  print Strata's warnings to stderr of a program that never asked for them;
- if it configured structlog to log through stdlib (`structlog.configure(..., logger_factory=
  structlog.stdlib.LoggerFactory())`, as structlog's stdlib recipes do), the event goes through that
  configuration like one of its own, `structlog.get_logger("strata_core.config.files").warning(
  "config.unknown_key", key=...)`, with the logger's name as `logger`: its processors add what it wants
  (timestamps, levels, its context), and with `ProcessorFormatter.wrap_for_formatter` the line ends in the
  application's handlers as its own lines do. Strata never changes that configuration; a structlog that
  prints (its default `PrintLogger`) is not used, so Strata's events never land on stdout;
- otherwise each event is a stdlib record of the logger named after the module that logged it, at the event's
  level, with the caller's file, line and function; `%(message)s` reads `event key=value ...`; `record.msg` is
  the event dict itself (an `EventMessage`: `event`, the key-values, and `level`, `logger` and an ISO
  `timestamp` for structured renderers), marked as structlog marks its own records, so structlog's
  `ProcessorFormatter` renders it as structured data with its timestamp, level and logger name; `exc_info` is
  the record's, so every formatter can print the traceback; and context variables the application bound
  (`structlog.contextvars.bind_contextvars`) are merged into the event.

structlog is never imported here: `import structlog` loads `structlog.dev` and, with rich installed, rich's
traceback support (95-140 ms on a busy 2-core machine; benchmarks/README.md, "Logging: the first event"), so it
is used only when the application has imported it already.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]

_LIBRARY_LOGGER = "strata_core"
logging.getLogger(_LIBRARY_LOGGER).addHandler(logging.NullHandler())
_QUIETED = {_LIBRARY_LOGGER}

_NOTICE = "strata_notice"
# Keys of an event dict that are not the event's own fields: what every structured renderer expects to find.
_NOT_FIELDS = frozenset({"event", "exc_info", "level", "logger", "timestamp"})

# `stdlib.log` is called in `_log`, which the public method called for the module that logged.
_CALLER = 3


def get_logger(name: str) -> Logger:
    """The logger of module `name` (pass `__name__`)."""
    _quiet(name.partition(".")[0])
    return Logger(logging.getLogger(name))


def _quiet(top: str) -> None:
    """Every Strata package's top-level logger gets a `NullHandler`, so nothing of it reaches `lastResort`."""
    if top.startswith("strata_") and top not in _QUIETED:
        _QUIETED.add(top)
        logging.getLogger(top).addHandler(logging.NullHandler())


class Logger:
    """A module's logger: `log.warning("event name", key=value, ...)`; `exc_info=True` adds the traceback."""

    __slots__ = ("_app", "_stdlib")

    def __init__(self, stdlib: logging.Logger) -> None:
        self._stdlib = stdlib
        self._app: Any = None
        """The application's structlog logger of this name, once the application configured structlog."""

    @property
    def name(self) -> str:
        return self._stdlib.name

    def debug(self, event: str, **fields: Any) -> None:
        self._log(logging.DEBUG, "debug", event, fields)

    def info(self, event: str, **fields: Any) -> None:
        self._log(logging.INFO, "info", event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        self._log(logging.WARNING, "warning", event, fields)

    def notice(self, event: str, **fields: Any) -> None:
        """A warning about the user's own input (a config file, an agent, skill or instruction skipped), which
        an application should show its user; a plain `warning` is for whoever investigates. Both are WARNING
        events; a notice's stdlib record has `record.strata_notice` set (see `is_notice`)."""
        self._log(logging.WARNING, "warning", event, fields, notice=True)

    def error(self, event: str, **fields: Any) -> None:
        self._log(logging.ERROR, "error", event, fields)

    def exception(self, event: str, **fields: Any) -> None:
        """An error with the traceback of the exception being handled (call it in an `except` block)."""
        fields.setdefault("exc_info", True)
        self._log(logging.ERROR, "exception", event, fields)

    def _log(self, level: int, method: str, event: str, fields: dict[str, Any], *, notice: bool = False) -> None:
        if not self._stdlib.isEnabledFor(level):
            return  # the common case costs one cached level check
        if _structlog_to_stdlib():
            if self._app is None:
                self._app = sys.modules["structlog"].get_logger(self.name)  # a proxy: it follows reconfiguration
            getattr(self._app, method)(event, **{"logger": self.name, **fields})
            return
        exc_info = _exc_info(fields.pop("exc_info", None))
        message = EventMessage(_bound_context(), event=event, **fields)
        message.update(level=logging.getLevelName(level).lower(), logger=self.name, timestamp=_now())
        if exc_info is not None:
            message["exc_info"] = exc_info  # structlog's ProcessorFormatter reads it from the event dict
        extra: dict[str, Any] = {"_logger": self._stdlib, "_name": method}  # how structlog marks its records
        if notice:
            extra[_NOTICE] = True
        self._stdlib.log(level, message, exc_info=exc_info, extra=extra, stacklevel=_CALLER)


def _structlog_to_stdlib() -> bool:
    """Whether the application configured structlog to log through stdlib (`structlog.stdlib.LoggerFactory`).

    Only then are its processors used: a structlog left to its default `PrintLogger` (or reset to it, as
    `structlog.testing.capture_logs` leaves it) would print Strata's events on stdout."""
    structlog = sys.modules.get("structlog")
    if structlog is None or not structlog.is_configured():
        return False
    return isinstance(structlog.get_config()["logger_factory"], structlog.stdlib.LoggerFactory)


def _bound_context() -> dict[str, Any]:
    """The structlog context variables the application bound, if it uses structlog at all."""
    contextvars = sys.modules.get("structlog.contextvars")
    return dict(contextvars.get_contextvars()) if contextvars is not None else {}


def _now() -> str:
    """Now, as structlog's `TimeStamper(fmt="iso")` writes it."""
    seconds = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds % 1 * 1e6):06d}Z"


class EventMessage(dict[str, Any]):
    """An event as a log record's `msg`: the event dict, which `str()` (and so `%(message)s`) reads as
    `event key=value ...`."""

    @property
    def event(self) -> str:
        return str(self.get("event", ""))

    def fields(self) -> dict[str, Any]:
        """The event's key-values, without the event name, the exception, its level, logger and time."""
        return {key: value for key, value in self.items() if key not in _NOT_FIELDS}

    def __str__(self) -> str:
        pairs = " ".join(f"{key}={_quoted(value)}" for key, value in self.fields().items())
        return f"{self.event} {pairs}" if pairs else self.event


def _quoted(value: object) -> str:
    """Text values as they are unless a space or quote would make the line ambiguous; others as repr."""
    if isinstance(value, str):
        return value if value and not any(c in value for c in " \t\n\"'=") else repr(value)
    return repr(value)


def is_notice(record: logging.LogRecord) -> bool:
    """Whether `record` is a notice (`Logger.notice`): about the user's input, for the user to see."""
    return bool(getattr(record, _NOTICE, False))


def _exc_info(value: object) -> ExcInfo | None:
    if value is None or value is False:
        return None
    if isinstance(value, BaseException):
        return type(value), value, value.__traceback__
    if isinstance(value, tuple):
        return value  # already (type, value, traceback)
    current = sys.exc_info()  # `exc_info=True`: the exception being handled
    return current if current[0] is not None else None


@contextmanager
def capture_events(names: Sequence[str] = (_LIBRARY_LOGGER,)) -> Iterator[list[dict[str, Any]]]:
    """For tests: every event of the `names` loggers (and their children), at every level, as a dict of its
    fields with `event` and `log_level`, like structlog's `capture_logs`."""
    events: list[dict[str, Any]] = []
    handler = _Collector(events)
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    try:
        yield events
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


class _Collector(logging.Handler):
    def __init__(self, events: list[dict[str, Any]]) -> None:
        super().__init__(logging.DEBUG)
        self.events = events

    def emit(self, record: logging.LogRecord) -> None:
        if isinstance(record.msg, EventMessage):
            captured = {"event": record.msg.event, **record.msg.fields(), "log_level": record.levelname.lower()}
            if "exc_info" in record.msg:
                captured["exc_info"] = record.msg["exc_info"]
            self.events.append(captured)
