"""A session's own record: where it runs, its title, its parent, its extra permission rules, and the fields
OpenCode keeps on a session (agent, model, usage, ...) so an import and an export back lose none of them."""

from __future__ import annotations

import re
from typing import Any

from attrs import define, field

from strata_core.message import Tokens, json_name

DEFAULT_TITLE_RE = re.compile(r"^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


@define(kw_only=True)
class SessionTime:
    created: int
    updated: int
    compacting: int | None = None
    archived: int | None = None


@define(kw_only=True)
class SessionModel:
    """The model a session last ran with, in OpenCode's session shape (`{id, providerID, variant}`)."""

    id: str
    provider_id: str = field(metadata=json_name("providerID"))
    variant: str | None = None


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
    stored_slug: str | None = field(default=None, metadata=json_name("slug"))
    """The slug an imported OpenCode session came with; a Strata session has none and derives one (`slug`)."""
    path: str | None = None
    """The directory relative to the worktree (OpenCode's `path`)."""
    workspace_id: str | None = field(default=None, metadata=json_name("workspaceID"))
    agent: str | None = None
    model: SessionModel | None = None
    cost: float | None = None
    tokens: Tokens | None = None
    share: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    revert: dict[str, Any] | None = None

    @property
    def slug(self) -> str:
        """A short display name: the one OpenCode gave an imported session, else one derived from the id.

        It names the session's plan file and fills the `slug` OpenCode's importer requires in an export.
        """
        return self.stored_slug or derived_slug(self.id)

    @property
    def has_default_title(self) -> bool:
        return DEFAULT_TITLE_RE.match(self.title) is not None


def derived_slug(session_id: str) -> str:
    """The slug of a session that came with none (every Strata session)."""
    return f"strata-{session_id.removeprefix('ses_')[-10:].lower()}"
