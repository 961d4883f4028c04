"""How Strata's libraries log: key-value events through structlog, handed to stdlib `logging`.

    log = get_logger(__name__)
    log.notice("skill path not found", path=str(root))

A library must leave the process's logging to the application, so nothing here calls `structlog.configure`
or installs a handler other than the `NullHandler` that stdlib's guide asks libraries to add to their
top-level logger. What that means for an application:

- if it configures no logging, it sees nothing: without the `NullHandler`, stdlib's `lastResort` handler would
  print Strata's warnings to stderr of a program that never asked for them (structlog left unconfigured would
  even print them to stdout);
- if it configures stdlib logging (`logging.basicConfig()` is enough), each event is a record of the logger
  named after the module that logged it (`strata_core.config.files`), at the event's level, with the caller's
  file, line and function; `%(message)s` reads `event key=value ...`, and `record.msg` is the event dict itself
  (an `EventMessage`), so structlog's `ProcessorFormatter` renders it as structured data, and `exc_info` is the
  record's, so every formatter can print the traceback;
- structlog context variables the application bound (`structlog.contextvars.bind_contextvars`) are merged into
  Strata's events.

structlog is imported at the first event that passes its logger's level, not when a module creates its logger:
it costs ~12 ms to import (more with rich installed: structlog then loads rich's traceback support), and most
runs log nothing.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from structlog.stdlib import BoundLogger

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]

_LIBRARY_LOGGER = "strata_core"
logging.getLogger(_LIBRARY_LOGGER).addHandler(logging.NullHandler())

_NOTICE = "strata_notice"
# Keys of an event dict that are not the event's own fields.
_NOT_FIELDS = frozenset({"event", "exc_info", _NOTICE})


def get_logger(name: str) -> Logger:
    """The logger of module `name` (pass `__name__`)."""
    return Logger(logging.getLogger(name))


class Logger:
    """A module's logger: `log.warning("event name", key=value, ...)`; `exc_info=True` adds the traceback."""

    __slots__ = ("_bound", "_stdlib")

    def __init__(self, stdlib: logging.Logger) -> None:
        self._stdlib = stdlib
        self._bound: BoundLogger | None = None

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
        records; a notice's record has `record.strata_notice` set (see `is_notice`)."""
        self._log(logging.WARNING, "warning", event, {**fields, _NOTICE: True})

    def error(self, event: str, **fields: Any) -> None:
        self._log(logging.ERROR, "error", event, fields)

    def exception(self, event: str, **fields: Any) -> None:
        """An error with the traceback of the exception being handled (call it in an `except` block)."""
        fields.setdefault("exc_info", True)
        self._log(logging.ERROR, "exception", event, fields)

    def _log(self, level: int, method: str, event: str, fields: dict[str, Any]) -> None:
        if not self._stdlib.isEnabledFor(level):
            return  # the common case costs one cached level check, and structlog stays unimported
        if self._bound is None:
            self._bound = _bind(self._stdlib)
        getattr(self._bound, method)(event, **fields)


def _bind(stdlib: logging.Logger) -> BoundLogger:
    """A structlog logger over `stdlib` with Strata's own processors: the global configuration is not read."""
    import structlog

    return structlog.stdlib.BoundLogger(stdlib, [structlog.contextvars.merge_contextvars, _to_record], {})


class EventMessage(dict[str, Any]):
    """An event as a log record's `msg`: the event dict, which `str()` (and so `%(message)s`) reads as
    `event key=value ...`."""

    @property
    def event(self) -> str:
        return str(self.get("event", ""))

    def fields(self) -> dict[str, Any]:
        """The event's key-values, without the event name and the exception."""
        return {key: value for key, value in self.items() if key not in _NOT_FIELDS}

    def __str__(self) -> str:
        pairs = " ".join(f"{key}={_quoted(value)}" for key, value in self.fields().items())
        return f"{self.event} {pairs}" if pairs else self.event


def _quoted(value: object) -> str:
    """Text values as they are unless a space or quote would make the line ambiguous; others as repr."""
    if isinstance(value, str):
        return value if value and not any(c in value for c in " \t\n\"'=") else repr(value)
    return repr(value)


def _to_record(logger: Any, method: str, event: MutableMapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """structlog's last processor: the arguments of the stdlib logging call."""
    exc_info = _exc_info(event.pop("exc_info", None))
    if exc_info is not None:
        event["exc_info"] = exc_info  # structlog's ProcessorFormatter reads it from the event dict
    extra = {"_logger": logger, "_name": method}  # what ProcessorFormatter looks for on the record
    if event.pop(_NOTICE, False):
        extra[_NOTICE] = True
    return (EventMessage(event),), {"exc_info": exc_info, "extra": extra, "stacklevel": _caller_level()}


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


def _caller_level() -> int:
    """The `stacklevel` that makes stdlib record Strata's calling frame rather than structlog's.

    Processors run in structlog's `_process_event`, called by the frame that then calls the stdlib logger; from
    there up, every frame in structlog or this module lies between that call and the module that logged.
    """
    frame: FrameType | None = sys._getframe(3)  # 0 this, 1 _to_record, 2 _process_event, 3 the caller of both
    level = 1
    while frame is not None and _is_logging_frame(frame):
        frame = frame.f_back
        level += 1
    return level


def _is_logging_frame(frame: FrameType) -> bool:
    module = str(frame.f_globals.get("__name__", ""))
    return module == __name__ or module.partition(".")[0] == "structlog"


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
            self.events.append({**record.msg, "log_level": record.levelname.lower()})
