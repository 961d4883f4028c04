"""For the sandbox tests: whether bubblewrap works here, a project with a secret beside it, a bash tool per mode."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest
from tool_fakes import Asker, Updates

from strata_core.config.paths import StrataPaths
from strata_core.config.schema import SandboxConfig, SandboxMode
from strata_core.llm import ModelInfo
from strata_core.project import discover_project
from strata_core.sandbox.bubblewrap import probe
from strata_core.tool.builtin.bash import BashTool
from strata_core.tool.contract import ToolContext, ToolResult
from strata_core.tool.truncation import Truncation

MetadataSink = Callable[[str | None, Mapping[str, Any]], None]
BWRAP_PROBLEM = probe("bwrap")
needs_bwrap = pytest.mark.skipif(
    BWRAP_PROBLEM is not None,
    reason=f"bubblewrap cannot contain commands here ({BWRAP_PROBLEM}); .ci/run installs the bubblewrap package",
)
SECRET = "TOPSECRET-4417"
"""The content of the file beside the project: it must never come back from a contained command."""
MISSING_BWRAP = "/nonexistent/bwrap"
"""`STRATA_BWRAP` pointing here forces the no-sandbox fallback."""
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
"""PATH for commands in the tests: the system's `python3`, not a shim from the developer's home."""

# The bash forms that escaped the project on main (issue 12), by the class of escape.
SECRET_FILE = "../outside/secret.txt"
READS = {
    "head": f"head {SECRET_FILE}",
    "absolute-binary": f"/bin/cat {SECRET_FILE}",
    "escaped-name": f"c\\at {SECRET_FILE}",
    "env-prefix": f"env cat {SECRET_FILE}",
    "command-substitution": f'cat "$(echo {SECRET_FILE})"',
    "variable": f"F={SECRET_FILE}; cat $F",
    "eval": f'eval "cat {SECRET_FILE}"',
    "sh-c": f"sh -c 'cat {SECRET_FILE}'",
    "redirect-in": f"cat < {SECRET_FILE}",
    "symlink-made-then-read": f"ln -s {SECRET_FILE} link.txt && cat link.txt",
    "hard-link-made-then-read": f"ln {SECRET_FILE} hard.txt && cat hard.txt",
    "python": f"python3 -c \"print(open('{SECRET_FILE}').read())\"",
    "base64-to-sh": "echo Y2F0IC4uL291dHNpZGUvc2VjcmV0LnR4dA== | base64 -d | sh",
}
WRITES = {
    "redirect-out": "echo PWNED > ../outside/x",
    "tee": "echo PWNED | tee ../outside/x",
    "sed-i": f"sed -i s/TOPSECRET/PWNED/ {SECRET_FILE}",
}

"""PATH for commands in the tests: the system's `python3`, not a shim from the developer's home."""


@attrs.frozen
class Site:
    """A git project, and beside it `outside/secret.txt` holding `SECRET`."""

    root: Path
    project: Path
    outside: Path

    @property
    def secret(self) -> Path:
        return self.outside / "secret.txt"


def make_site(tmp_path: Path) -> Site:
    root = tmp_path.resolve()
    project = root / "project"
    outside = root / "outside"
    outside.mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET + "\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return Site(root, project, outside)


def bash_tool(site: Site, mode: SandboxMode | None = "workspace-write", **settings: Any) -> BashTool:
    """The bash tool in `mode`, its tool output and Strata's dirs under the site (not the developer's)."""
    paths = StrataPaths.from_env({"HOME": str(site.root / "home")})
    return BashTool(
        truncation=Truncation.from_paths(paths, discover_project(site.project).id),
        sandbox=SandboxConfig(mode=mode, **settings.pop("config", {})),
        paths=paths,
        **settings,
    )


def tool_context(site: Site, asker: Asker | None = None, updates: MetadataSink | None = None) -> ToolContext:
    """A context whose asker allows every ask (as `--auto` would): the sandbox alone must hold."""
    return ToolContext(
        session_id="ses_sandbox",
        message_id="msg_sandbox",
        call_id="call_sandbox",
        agent="build",
        ruleset=(asker or Asker()).rules,
        directory=site.project,
        worktree=site.project,
        model=ModelInfo(provider_id="mock", id="mock-model"),
        ask=asker or Asker(),
        update_metadata=updates or Updates(),
    )


async def run_bash(tool: BashTool, site: Site, command: str, **extra: Any) -> ToolResult:
    return await tool.execute({"command": command, **extra}, tool_context(site))
