"""`strata run` loads the engine without garbage collection, freezes it, collects the young generation less
often, skips httpx's command-line client, and the Starlette module (where strata-server is installed),
pydantic and PyYAML dependency_injector would load, and leaves every library whole for the rest of the process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from strata_cli.lean_start import YOUNG_GENERATION_THRESHOLD

START_UP = """
import gc, json, sys
from strata_cli.lean_start import heavy_imports
with heavy_imports():
    during = gc.isenabled()
    import strata_cli.app, strata_cli.run_session
from strata_cli.log_setup import configure_logging
configure_logging()  # as build_container does before the run
result = {
    "enabled_during": during,
    "enabled_after": gc.isenabled(),
    "frozen": gc.get_freeze_count(),
    "young_threshold": gc.get_threshold()[0],
    "loaded": sorted(
        m
        for m in ("structlog", "pygments", "rich", "httpx._main", "logging.config", "starlette.requests", "pydantic",
                  "yaml")
        if m in sys.modules
    ),
}
"""

AFTERWARDS = """
import httpx, rich, structlog, yaml
from dependency_injector import providers

# structlog's console renderer with rich tracebacks
try:
    raise ValueError("boom")
except ValueError:
    rendered = structlog.dev.ConsoleRenderer(
        colors=False, exception_formatter=structlog.dev.RichTracebackFormatter(color_system=None, width=80)
    )(None, "error", {"event": "failed", "exc_info": sys.exc_info()})
result["structlog_rich"] = structlog.dev.rich is not None and "╭" in rendered and "ValueError" in rendered

# dependency_injector's YAML loading
config = providers.Configuration()
config.from_yaml(sys.argv[1])
result["yaml_config"] = config()
result["yaml_loader_is_safe"] = isinstance(providers.YamlLoader("a: 1"), yaml.SafeLoader)
from dependency_injector import containers
result["yaml_schema_loader"] = containers.yaml.SafeLoader is yaml.SafeLoader

# pydantic, whole; dependency_injector's pydantic settings say what they need, as they do without the stand-in
import pydantic
result["pydantic_model"] = pydantic.create_model("Point", x=(int, ...))(x="3").x
try:
    config.from_pydantic(object())
except Exception as error:
    result["from_pydantic"] = str(error)

# httpx: the client, its real command-line module, and `httpx.main` reaching it
import httpx._main
result["httpx_client"] = httpx.AsyncClient.__name__
import click
result["httpx_main_is_real"] = isinstance(httpx._main.main, click.Command)
try:
    httpx.main(["--help"])
except SystemExit as exit:
    result["httpx_main_exit"] = exit.code

# Starlette, whole, for the server (dependency_injector's wiring only saw a stand-in)
import starlette.requests
result["starlette_request"] = starlette.requests.Request.__module__

from strata_core.markdown import parse_markdown_text  # frontmatter parsing imports PyYAML when first needed
result["frontmatter"] = dict(parse_markdown_text("---\\nname: x\\n---\\nbody", None).data)
print(json.dumps(result), file=sys.stderr)
"""


def _probe(tmp_path: Path) -> dict[str, object]:
    settings = tmp_path / "settings.yml"
    settings.write_text("database:\n  port: 5432\n")
    # The start-up keeps attrs' compiled methods in the cache dir: this test's own.
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ["HOME"], "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", START_UP + AFTERWARDS, str(settings)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stderr.splitlines()[-1])
    return result


def test_heavy_imports_run_without_gc_then_settle_it_and_skip_what_a_run_never_uses(tmp_path: Path) -> None:
    result = _probe(tmp_path)
    assert result["enabled_during"] is False and result["enabled_after"] is True
    assert isinstance(result["frozen"], int) and result["frozen"] > 10_000  # the engine's modules and classes
    assert result["young_threshold"] == YOUNG_GENERATION_THRESHOLD
    assert result["loaded"] == []  # structlog only if the application imports it; logging.config never


def test_every_library_works_in_full_after_start_up(tmp_path: Path) -> None:
    result = _probe(tmp_path)
    assert result["structlog_rich"] is True
    assert result["yaml_config"] == {"database": {"port": 5432}}
    assert result["yaml_loader_is_safe"] is True and result["yaml_schema_loader"] is True
    assert result["httpx_client"] == "AsyncClient"
    assert result["httpx_main_is_real"] is True and result["httpx_main_exit"] == 0
    assert result["frontmatter"] == {"name": "x"}
    assert result["starlette_request"] == "starlette.requests"
    assert result["pydantic_model"] == 3
    assert "pydantic_settings is not installed" in str(result["from_pydantic"])
