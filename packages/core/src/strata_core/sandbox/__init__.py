"""How shell commands are contained: modes, the bubblewrap sandbox, the scrubbed environment, process lifetime.

Modes (as Codex names them): `read-only` (nothing on disk writable but a private /tmp), `workspace-write`
(the project and Strata's tool-output and temp dirs writable; the default where bubblewrap works) and
`danger-full-access` (no sandbox). Set by `sandbox.mode` in config or `--sandbox MODE`. The bash tool, and
so every subagent (same runtime), runs its commands through `ShellSandbox`; `contained` (a context manager)
wraps any other argv, such as a local MCP server's, the same way. See `bubblewrap.py` for what is visible
inside, `protected.py` for what stays read-only or hidden in the project (`project_scan.py` finds it,
`masks.py` hides the `.env` files; `tool/support/created_config.py` looks at what a bash command created),
`environment.py` for the environment's scrubbing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import by_module, lazy_exports

if TYPE_CHECKING:
    from strata_core.sandbox.describe import describe
    from strata_core.sandbox.environment import SECRET_PATTERNS, looks_secret, scrubbed_environment
    from strata_core.sandbox.sandbox import (
        PreparedCommand,
        SandboxState,
        ShellSandbox,
        configured_sandbox,
        shell_sandbox,
        writable_root,
    )
    from strata_core.sandbox.settings import SandboxSettingError, SandboxSettings, parse_mode

__all__ = [
    "SECRET_PATTERNS",
    "PreparedCommand",
    "SandboxSettingError",
    "SandboxSettings",
    "SandboxState",
    "ShellSandbox",
    "configured_sandbox",
    "describe",
    "looks_secret",
    "parse_mode",
    "scrubbed_environment",
    "shell_sandbox",
    "writable_root",
]

# Lazy: a run that never starts a shell command (`strata run "say hello"`) imports `sandbox.protected` alone
# (which files a snapshot leaves out), not bubblewrap's machinery (~6 ms).
__getattr__, __dir__ = lazy_exports(
    __name__,
    by_module(
        {
            "strata_core.sandbox.describe": ["describe"],
            "strata_core.sandbox.environment": ["SECRET_PATTERNS", "looks_secret", "scrubbed_environment"],
            "strata_core.sandbox.sandbox": [
                "PreparedCommand",
                "SandboxState",
                "ShellSandbox",
                "configured_sandbox",
                "shell_sandbox",
                "writable_root",
            ],
            "strata_core.sandbox.settings": ["SandboxSettingError", "SandboxSettings", "parse_mode"],
        }
    ),
)
