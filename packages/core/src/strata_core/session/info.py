"""A session's own record: where it runs, its title, its parent, its extra permission rules."""

from __future__ import annotations

import re
from typing import Any

from attrs import define, field

from strata_core.message import json_name

DEFAULT_TITLE_RE = re.compile(r"^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


@define(kw_only=True)
class SessionTime:
    created: int
    updated: int
    compacting: int | None = None


@define(kw_only=True)
class SessionInfo:
    id: str
    project_id: str = field(metadata=json_name("projectID"))
    directory: str
    title: str
    version: str
    time: SessionTime
    parent_id: str | None = field(default=None, metadata=json_name("parentID"))
    permission: list[dict[str, str]] | None = None
    """Session rules (`permission.to_config` form); they come after the agent's and win."""
    summary: dict[str, Any] | None = None

    @property
    def slug(self) -> str:
        """A short display name derived from the id (OpenCode stores a random one; Strata does not keep it).

        It names the session's plan file and fills the `slug` OpenCode's importer requires in an export.
        """
        return f"strata-{self.id.removeprefix('ses_')[-10:].lower()}"

    @property
    def has_default_title(self) -> bool:
        return DEFAULT_TITLE_RE.match(self.title) is not None
