"""Loading every built-in tool keeps start-up light: what only one tool (or one code path) needs is imported
when it first runs, not by every `strata` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

LAZY = ("markdownify", "bs4", "soupsieve", "jsonschema", "referencing", "pathspec", "tree_sitter", "tree_sitter_bash")


def test_loading_the_builtin_tools_and_the_processor_imports_no_tool_only_dependency() -> None:
    code = (
        "import json, sys\n"
        "import strata_core.tool.defaults, strata_core.processor\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(LAZY)!r})))"
    )
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ["HOME"]}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == []
