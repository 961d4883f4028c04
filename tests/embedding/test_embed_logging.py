"""Embedded, Strata logs like a library: silent unless the application configures logging, then stdlib records
with the event's key-values (strata_core.logging)."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from strata_core.config.files import check_config
from strata_core.logging import EventMessage, get_logger

# Loads a project config with a key Strata does not know: the config service logs `config.unknown_key` at
# warning level; a server-side logger logs a warning too. argv[1] says how the application set up logging first:
# not at all, stdlib's basicConfig, structlog's documented ProcessorFormatter recipe (structlog.configure and
# the formatter), or the formatter alone.
EMBEDDED_APP = """
import logging, sys
from pathlib import Path
import anyio
setup = sys.argv[1]
if setup == "basicConfig":
    logging.basicConfig(format="%(levelname)s|%(name)s|%(funcName)s|%(message)s")
if setup in ("recipe", "formatter"):
    import structlog
    shared_processors = [structlog.stdlib.add_log_level, structlog.processors.TimeStamper(fmt="%Y-%m-%d %H:%M:%S")]
    if setup == "recipe":
        structlog.configure(
            processors=shared_processors + [structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
            logger_factory=structlog.stdlib.LoggerFactory(),
            cache_logger_on_first_use=True,
        )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared_processors,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.dev.ConsoleRenderer(colors=False),
        ],
    )
    handler = logging.StreamHandler()
    handler.setFormatter(formatter)
    logging.getLogger().addHandler(handler)
from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigService
from strata_core.project import ProjectService
from strata_core.logging import get_logger
repo = Path(sys.argv[2])
env = {"HOME": str(repo / "home")}
info = anyio.run(ConfigService(StrataPaths.from_env(env), ProjectService(repo), env).get)
assert info.model == "a/b"
get_logger("strata_server.embedded").warning("server.thing_happened", path="/x")
if setup in ("nothing", "basicConfig"):
    assert "structlog" not in sys.modules, "the library imported structlog"
"""


def _run_embedded_app(tmp_path: Path, logging_setup: str) -> subprocess.CompletedProcess[str]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    (repo / "opencode.json").write_text(json.dumps({"model": "a/b", "frobnicate": True}))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(repo / "home")}
    return subprocess.run(
        [sys.executable, "-c", EMBEDDED_APP, logging_setup, str(repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_an_application_that_configures_no_logging_sees_nothing_of_a_warning(tmp_path: Path) -> None:
    done = _run_embedded_app(tmp_path, "nothing")
    assert (done.stdout, done.stderr) == ("", "")


def test_an_application_with_basic_config_receives_the_warning_with_its_fields(tmp_path: Path) -> None:
    done = _run_embedded_app(tmp_path, "basicConfig")
    assert done.stdout == ""
    path = tmp_path / "repo" / "opencode.json"
    assert done.stderr.splitlines() == [
        f"WARNING|strata_core.config.files|unknown_key|config.unknown_key key=frobnicate file={path} line=1 column=32 "
        f'says=\'{path}:1:32: unknown config key "frobnicate"; Strata does not use it (OpenCode would refuse '
        "the file)'",
        "WARNING|strata_server.embedded|<module>|server.thing_happened path=/x",
    ]


@pytest.mark.parametrize("setup", ["recipe", "formatter"])
def test_structlogs_processor_formatter_recipe_shows_strata_lines_with_time_level_and_logger(
    tmp_path: Path, setup: str
) -> None:
    done = _run_embedded_app(tmp_path, setup)
    assert done.stdout == ""
    [config_line, server_line] = done.stderr.splitlines()
    when = r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\S*"
    assert re.fullmatch(
        rf"{when} \[warning +\] config\.unknown_key +\[strata_core\.config\.files\] .*key=frobnicate.*", config_line
    )
    assert re.fullmatch(
        rf"{when} \[warning +\] server\.thing_happened +\[strata_server\.embedded\] path=/x", server_line
    )


def test_caplog_sees_the_level_the_logger_and_the_key_values(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    with caplog.at_level(logging.WARNING):
        check_config({"frobnicate": 1}, tmp_path / "strata.json")
    [record] = [record for record in caplog.records if record.name == "strata_core.config.files"]
    assert record.levelname == "WARNING"
    assert isinstance(record.msg, EventMessage) and record.msg.fields()["key"] == "frobnicate"
    assert "config.unknown_key key=frobnicate" in caplog.text


@pytest.fixture
def structlog_defaults() -> Iterator[None]:
    yield
    structlog.reset_defaults()


@pytest.mark.usefixtures("structlog_defaults")
def test_the_applications_structlog_configuration_handles_strata_events_and_stays_in_effect(tmp_path: Path) -> None:
    def tag(logger: object, method: str, event: structlog.typing.EventDict) -> structlog.typing.EventDict:
        event["app"] = "demo"
        return event

    capture = structlog.testing.LogCapture()
    structlog.configure(processors=[tag, capture], logger_factory=structlog.stdlib.LoggerFactory())
    config = structlog.get_config()
    check_config({"frobnicate": 1}, tmp_path / "strata.json")
    structlog.get_logger("app").info("app.started")
    assert structlog.get_config() == config
    assert [(e["event"], e["log_level"], e.get("logger"), e["app"]) for e in capture.entries] == [
        ("config.unknown_key", "warning", "strata_core.config.files", "demo"),
        ("app.started", "info", None, "demo"),
    ]


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self.lines.append(self.format(record))


@pytest.fixture
def handler() -> Iterator[_Records]:
    """An application's handler on the root logger."""
    handler = _Records()
    root = logging.getLogger()
    root.addHandler(handler)
    yield handler
    root.removeHandler(handler)


def test_the_record_carries_the_event_dict_and_the_calling_module(handler: _Records, tmp_path: Path) -> None:
    check_config({"frobnicate": 1}, tmp_path / "strata.json")
    [record] = handler.records
    assert (record.name, record.levelno) == ("strata_core.config.files", logging.WARNING)
    assert record.funcName == "unknown_key"  # the function that logged, not the logging module's own
    assert Path(record.pathname).parts[-2:] == ("config", "files.py")
    assert isinstance(record.msg, EventMessage)
    assert record.msg.event == "config.unknown_key"
    assert record.msg.fields() == {
        "key": "frobnicate",
        "file": str(tmp_path / "strata.json"),
        "says": f'{tmp_path / "strata.json"}: unknown config key "frobnicate"; Strata does not use it (OpenCode '
        "would refuse the file)",
    }


def test_a_logged_exception_is_the_records_exc_info(handler: _Records) -> None:
    log = get_logger("strata_core.tests.embedding")
    try:
        raise RuntimeError("the disk is on fire")
    except RuntimeError:
        log.exception("thing.failed", attempt=2)
    [record] = handler.records
    assert record.exc_info is not None and str(record.exc_info[1]) == "the disk is on fire"
    assert record.levelno == logging.ERROR and record.getMessage() == "thing.failed attempt=2"
    assert (record.funcName, record.pathname) == ("test_a_logged_exception_is_the_records_exc_info", __file__)
    assert "Traceback (most recent call last)" in handler.lines[0]


def test_structlogs_processor_formatter_renders_strata_events_as_structured_data(handler: _Records) -> None:
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(sort_keys=True),
            ]
        )
    )
    structlog.contextvars.bind_contextvars(request_id="r-1")
    try:
        get_logger("strata_core.tests.embedding").warning("thing.happened", size=3)
    finally:
        structlog.contextvars.clear_contextvars()
    rendered = json.loads(handler.lines[0])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", rendered.pop("timestamp"))
    assert rendered == {
        "event": "thing.happened",
        "level": "warning",
        "logger": "strata_core.tests.embedding",
        "request_id": "r-1",
        "size": 3,
    }


def test_events_below_the_loggers_level_never_reach_a_handler(handler: _Records) -> None:
    logger = logging.getLogger("strata_core.tests.quiet")
    logger.setLevel(logging.WARNING)
    try:
        get_logger(logger.name).debug("chatter")
        get_logger(logger.name).info("chatter")
    finally:
        logger.setLevel(logging.NOTSET)
    assert handler.records == []


@pytest.mark.usefixtures("structlog_defaults")
def test_a_structlog_that_prints_is_not_used_for_strata_events(
    handler: _Records, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with structlog.testing.capture_logs():
        pass  # leaves structlog configured, with its default PrintLogger
    check_config({"frobnicate": 1}, tmp_path / "strata.json")
    assert capsys.readouterr() == ("", "")
    assert [record.getMessage().split()[0] for record in handler.records] == ["config.unknown_key"]
