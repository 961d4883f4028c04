"""What the user asked of the sandbox: the `sandbox` config block, `--sandbox` (as `STRATA_SANDBOX`), paths.

Pure values, cheap to build at start-up; nothing here probes or runs anything (`sandbox.py` does, at the
first shell command).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from attrs import frozen

from strata_core.config.schema import SANDBOX_MODES, SandboxConfig, SandboxMode
from strata_core.errors import StrataError

MODE_VARIABLE = "STRATA_SANDBOX"
"""Overrides `sandbox.mode`; `strata run --sandbox MODE` and the interactive `--sandbox` set it."""
BWRAP_VARIABLE = "STRATA_BWRAP"
"""The bubblewrap executable to use (default: `bwrap` on PATH); a path that does not work means no sandbox."""
DEFAULT_MODE: SandboxMode = "workspace-write"


class SandboxSettingError(StrataError, ValueError):
    """A `--sandbox`/`STRATA_SANDBOX` value that is not a mode."""


def parse_mode(value: str, where: str) -> SandboxMode:
    for mode in SANDBOX_MODES:
        if value == mode:
            return mode
    raise SandboxSettingError(f"{where}: unknown sandbox mode {value!r}; expected one of {', '.join(SANDBOX_MODES)}")


def _expand(path: str, home: Path) -> Path:
    return home / path[2:] if path.startswith("~/") else home if path == "~" else Path(path)


@frozen
class SandboxSettings:
    """The requested containment: mode (None: the default), network, extra paths, variables allowed through."""

    mode: SandboxMode | None = None
    network: bool = False
    writable: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    env_allow: tuple[str, ...] = ()
    hidden_env: frozenset[str] = frozenset()
    """Variables the config names with `{env:}`: dropped from shell commands like the API keys."""
    bwrap: str = "bwrap"

    @property
    def wanted_mode(self) -> SandboxMode:
        return self.mode or DEFAULT_MODE

    @classmethod
    def from_config(
        cls, config: SandboxConfig, env: Mapping[str, str], home: Path, env_names: frozenset[str] = frozenset()
    ) -> SandboxSettings:
        """The config's block, with `STRATA_SANDBOX` (the CLI flag) winning over `sandbox.mode`."""
        mode = config.mode
        if env.get(MODE_VARIABLE):
            mode = parse_mode(env[MODE_VARIABLE], f"${MODE_VARIABLE}")
        return cls(
            mode=mode,
            network=config.network,
            writable=tuple(_expand(path, home) for path in config.writable),
            readable=tuple(_expand(path, home) for path in config.readable),
            env_allow=config.env_allow,
            hidden_env=env_names,
            bwrap=env.get(BWRAP_VARIABLE) or "bwrap",
        )
