"""`strata run` loads the engine without garbage collection, freezes it, and skips extras Strata never uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = """
import gc, json, sys
from strata_cli.lean_start import heavy_imports
with heavy_imports():
    during = gc.isenabled()
    import strata_cli.app, strata_cli.run_session
after = {
    "enabled_during": during,
    "enabled_after": gc.isenabled(),
    "frozen": gc.get_freeze_count(),
    "loaded": sorted(
        m for m in ("pygments", "rich.traceback", "rich.pretty", "httpx._main", "yaml") if m in sys.modules
    ),
}
import httpx, rich.traceback, yaml  # still importable, and httpx still works
after["httpx_client"] = httpx.AsyncClient.__name__
from strata_core.context.markdown import parse_markdown_text  # frontmatter parsing imports PyYAML when first needed
after["frontmatter"] = dict(parse_markdown_text("---\\nname: x\\n---\\nbody", None).data)
print(json.dumps(after))
"""


def test_heavy_imports_run_without_gc_then_freeze_and_skip_unused_extras() -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ["HOME"]}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    result = json.loads(done.stdout)
    assert result["enabled_during"] is False and result["enabled_after"] is True
    assert result["frozen"] > 10_000  # the engine's modules, classes and functions
    assert result["loaded"] == []
    assert result["httpx_client"] == "AsyncClient"
    assert result["frontmatter"] == {"name": "x"}
