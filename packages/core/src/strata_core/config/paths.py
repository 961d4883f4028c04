"""Where Strata keeps things on disk: XDG config, data, cache and state directories.

Every location is computed from an environment mapping so tests (and embedders) can pass their own
instead of mutating `os.environ`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from attrs import frozen

APP_NAME = "strata"
COMPAT_NAME = "opencode"


@frozen
class StrataPaths:
    """The directories Strata reads and writes, resolved once from an environment."""

    home: Path
    config: Path
    """`$XDG_CONFIG_HOME/strata`: global strata.json(c), AGENTS.md, agents and skills."""
    compat_config: Path
    """`$XDG_CONFIG_HOME/opencode`: read for compatibility with an existing OpenCode setup."""
    data: Path
    """`$XDG_DATA_HOME/strata`: the session database, tool-output/<project id>/, plans/, auth.json."""
    compat_data: Path
    """`$XDG_DATA_HOME/opencode`: OpenCode's `auth.json` is read from here (never written) for compatibility."""
    cache: Path
    state: Path
    tmp: Path

    @property
    def database(self) -> Path:
        return self.data / "strata.db"

    @property
    def project_ids(self) -> Path:
        """`$XDG_CACHE_HOME/strata/project-id/`: each repository's root commit (its project id), by the sha1 of its
        worktree path, so the history is walked once per repository (OpenCode keeps it in `.git/opencode`)."""
        return self.cache / "project-id"

    @property
    def tool_output(self) -> Path:
        """`tool-output/`: every project's saved full outputs, one subdirectory per project id."""
        return self.data / "tool-output"

    def project_tool_output(self, project_id: str) -> Path:
        """`tool-output/<project id>`: the saved full outputs of one project, apart from every other project's
        (the sandbox and the agents' rules open this one only)."""
        if not project_id or project_id in (".", "..") or "/" in project_id or "\\" in project_id:
            raise ValueError(f"a project id must be one path component to name its tool-output dir, got {project_id!r}")
        return self.tool_output / project_id

    @property
    def credentials(self) -> Path:
        """`auth.json`: the provider credentials stored by OpenCode's TUI `/connect` (`PUT /auth/{providerID}`)."""
        return self.data / "auth.json"

    @property
    def compat_credentials(self) -> Path:
        """OpenCode's own `auth.json`, read for providers Strata's file does not name."""
        return self.compat_data / "auth.json"

    @property
    def plans(self) -> Path:
        return self.data / "plans"

    @property
    def global_config_dirs(self) -> tuple[Path, ...]:
        """Global config directories in merge order: OpenCode's first, so Strata's own wins."""
        return (self.compat_config, self.config)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> StrataPaths:
        env = os.environ if env is None else env
        home = Path(env.get("STRATA_TEST_HOME") or env.get("HOME") or Path.home())

        def xdg(var: str, default: str) -> Path:
            value = env.get(var)
            return Path(value) if value else home / default

        config_home = xdg("XDG_CONFIG_HOME", ".config")
        data_home = xdg("XDG_DATA_HOME", ".local/share")
        return cls(
            home=home,
            config=Path(env["STRATA_CONFIG_DIR"]) if env.get("STRATA_CONFIG_DIR") else config_home / APP_NAME,
            compat_config=config_home / COMPAT_NAME,
            data=Path(env["STRATA_DATA_DIR"]) if env.get("STRATA_DATA_DIR") else data_home / APP_NAME,
            compat_data=data_home / COMPAT_NAME,
            cache=xdg("XDG_CACHE_HOME", ".cache") / APP_NAME,
            state=xdg("XDG_STATE_HOME", ".local/state") / APP_NAME,
            tmp=Path(tempfile.gettempdir()) / APP_NAME,
        )
