"""Real language servers and formatters for the LSP tests, installed into a cache dir by `.ci/run`.

npm: pyright, typescript-language-server, typescript 5, prettier under `$STRATA_LSP_TOOLS/npm`; PyPI:
python-lsp-server with pyflakes in `$STRATA_LSP_TOOLS/py` (ruff comes with the dev environment). Tests that
need one skip, naming it, where it is not installed. `fake_language_server.py` is a server of our own that
crashes or never reports, for the failure cases.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

TOOLS = Path(os.environ.get("STRATA_LSP_TOOLS", Path.home() / ".cache" / "strata-lsp-tools"))
NPM_BIN = TOOLS / "npm" / "node_modules" / ".bin"
NPM_MODULES = TOOLS / "npm" / "node_modules"
PY_BIN = TOOLS / "py" / "bin"
FAKE_SERVER = Path(__file__).with_name("fake_language_server.py")
INSTALL = "(.ci/run installs it into $STRATA_LSP_TOOLS, ~/.cache/strata-lsp-tools by default)"


def tool(path: Path) -> Path:
    """`path`, or a skip naming it when it is not installed."""
    if not path.exists():
        pytest.skip(f"{path.name} is not installed at {path} {INSTALL}")
    return path


def tools_path() -> str:
    """A PATH with the installed tools, this environment's (ruff), node's, and the system's."""
    node = shutil.which("node")
    folders = [NPM_BIN, PY_BIN, Path(sys.executable).parent, *([Path(node).parent] if node else [])]
    return os.pathsep.join([*map(str, folders), "/usr/bin", "/bin"])
