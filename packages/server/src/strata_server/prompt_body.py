"""A prompt's JSON body (OpenCode's `session.prompt` input, already schema-checked) as the core's `PromptRequest`.

Text, file, subtask and agent (`@agent` mention) parts, `noReply` (store without a turn), a caller-chosen
`messageID` (OpenCode's format, after the session's messages) and `variant` are taken as OpenCode takes them.
What Strata cannot do yet is refused with a 400 that says so, rather than silently dropped: inline `data:`
files. A `file://` part outside the project is refused (403) like the file routes: the prompt would
otherwise read any file for the caller; one naming a FIFO, a socket or a device is refused (400) as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlparse

from strata_core.engine import (
    AgentInput,
    FileInput,
    PromptPart,
    PromptRequest,
    SubtaskInput,
    TextInput,
)
from strata_core.message import OutputFormat
from strata_core.project import ProjectInfo
from strata_core.serialization import converter
from strata_server.errors import bad_request
from strata_server.project_files import ordinary_path


def prompt_request(session_id: str, body: Mapping[str, Any], project: ProjectInfo) -> PromptRequest:
    """The core's request for a prompt body; file parts must name files in the project (as the file routes)."""
    parts = [_part(index, raw, project) for index, raw in enumerate(body["parts"])]
    if not parts:
        raise bad_request("parts: a prompt needs at least one part.")
    fmt = body.get("format")
    return PromptRequest(
        session_id,
        parts,
        agent=body.get("agent"),
        model=model_ref(body.get("model")),
        format=converter.structure(fmt, OutputFormat) if fmt is not None else None,
        system=body.get("system"),
        tools=body.get("tools"),
        variant=body.get("variant"),
        message_id=body.get("messageID"),
        no_reply=bool(body.get("noReply")),
    )


def model_ref(raw: Mapping[str, str] | None) -> str | None:
    return None if raw is None else f"{raw['providerID']}/{raw['modelID']}"


def _part(index: int, raw: Mapping[str, Any], project: ProjectInfo) -> PromptPart:
    kind = raw["type"]
    if kind == "text":
        return TextInput(raw["text"])
    if kind == "subtask":
        return SubtaskInput(
            raw["prompt"], raw["description"], raw["agent"], model_ref(raw.get("model")), raw.get("command")
        )
    if kind == "agent":
        return AgentInput(raw["name"])
    if kind == "file":
        return file_input(index, raw, project)
    raise bad_request(
        f"parts[{index}]: {kind} parts are not supported by Strata's server; send text, file, agent or subtask parts."
    )


def file_input(index: int, raw: Mapping[str, Any], project: ProjectInfo) -> FileInput:
    """A `file` part's attachment: a `file://` URL naming an ordinary file in the project."""
    url = urlparse(raw["url"])
    if url.scheme != "file":
        raise bad_request(f"parts[{index}].url: only file:// URLs are supported, not {url.scheme or 'a bare path'}:")
    return FileInput(ordinary_path(project, unquote(url.path)), raw.get("mime"))
