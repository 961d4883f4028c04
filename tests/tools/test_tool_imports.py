"""Loading every built-in tool keeps start-up light: what only one tool (or one code path) needs is imported
when it first runs, not by every `strata` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

LAZY_PACKAGES = (
    "markdownify",
    "bs4",
    "soupsieve",
    "jsonschema",
    "referencing",
    "pathspec",
    "tree_sitter",
    "wcmatch",
    "PIL",
    "httpcore",
)
LAZY_MODULES = (
    "strata_core.tool.support.shell_parse",
    "strata_core.tool.support.shell_process",
    "strata_core.tool.support.patch",
    "strata_core.tool.support.html_text",
    "strata_core.tool.support.attachment_cap",
    "strata_core.image_fit",
    "strata_core.tool.support.network_address",
    "strata_core.tool.support.pinned_network",
    "strata_core.sandbox",
    "strata_core.sandbox.bubblewrap",
    "strata_core.sandbox.environment",
    "html.parser",
)


def test_loading_the_builtin_tools_and_the_processor_imports_no_tool_only_dependency() -> None:
    code = (
        "import json, sys\n"
        "import strata_core.tool.builtin.defaults, strata_core.engine.processor\n"
        f"lazy = {set(LAZY_PACKAGES)!r}, {set(LAZY_MODULES)!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in lazy[0] or m in lazy[1])))"
    )
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ["HOME"]}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == []
