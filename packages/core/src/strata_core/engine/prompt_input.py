"""What a caller sends to `SessionLoop.prompt`, and the stored user message it becomes (reference 16.1).

Text is stored as given. A file becomes what OpenCode's prompt makes of it: a synthetic "Called the Read
tool with the following input: ..." text, then the read tool's output (text files, directories) or the file
inlined as a data URL (images, PDFs), and for text the original file part, which history leaves out since
its content is already there. A file that cannot be read adds a note instead; the prompt still goes ahead.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypeAlias

import anyio
import anyio.to_thread
from attrs import define, evolve, frozen

from strata_core.bus import Bus, SessionError
from strata_core.context.agent import parse_model
from strata_core.engine.attachment import attachment_data_url, mime_of
from strata_core.errors import StrataError
from strata_core.history import is_media
from strata_core.ids import TIME_PART_MODULUS, Ids, is_well_formed, time_part
from strata_core.message import (
    AgentPart,
    FilePart,
    MessageError,
    MessageTime,
    MessageWithParts,
    ModelRef,
    OutputFormat,
    Part,
    SubtaskPart,
    TextPart,
    UserMessage,
)
from strata_core.session.store import SessionStore
from strata_core.text import valid_text
from strata_core.texts import read_prompt
from strata_core.tool.contract import Tool, ToolContext, approve_everything

DIRECTORY_MIME = "application/x-directory"


@frozen
class TextInput:
    text: str


@frozen
class FileInput:
    path: Path
    mime: str | None = None
    """Guessed from the name when not given; anything that is not an image or a PDF is read as text."""


@frozen
class SubtaskInput:
    """Work for a subagent that the user starts directly (a `/command` bound to one): the task tool runs it
    without a model call in this session first (reference 1.5)."""

    prompt: str
    description: str
    agent: str
    model: str | None = None
    """`provider/model` for the subagent; default: the subagent's own, else this session's."""
    command: str | None = None
    """The command that started it; the model is then asked to summarise the result and carry on."""


@frozen
class AgentInput:
    """An `@agent` mention (in a command's template): the agent part, and a note asking the model to hand the
    work to that subagent through the task tool (OpenCode's agent part)."""

    name: str


PromptPart: TypeAlias = TextInput | FileInput | SubtaskInput | AgentInput


@frozen
class PromptRequest:
    session_id: str
    parts: Sequence[PromptPart]
    agent: str | None = None
    model: str | None = None
    """`provider/model`; default: the agent's model, else the session's last, else the configured default."""
    variant: str | None = None
    """One of the model's variants (`high`, `max`, ...): its options apply to this message's calls."""
    format: OutputFormat | None = None
    system: str | None = None
    """Extra system text for this message (appended last to the system prompt)."""
    tools: Mapping[str, bool] | None = None
    """Deprecated per-message tool switches; they replace the session's own rules, as in OpenCode."""
    message_id: str | None = None
    """The user message's id, chosen by the caller (OpenCode's clients make theirs): in OpenCode's format, no
    stored message's, and after every message the session holds; default: a new one."""
    no_reply: bool = False
    """Store the message and return it, without running a turn (OpenCode's `noReply`)."""


class MessageIdError(StrataError, ValueError):
    """A caller-chosen message id that cannot be used: malformed, or not after the session's messages."""


MAX_ID_AHEAD_MS = 24 * 3600 * 1000
"""How far ahead of this machine's clock a chosen id may be dated (a client's clock may run a little ahead)."""


def check_message_id(chosen: str | None, newest: str | None, now_ms: int, holder: str | None = None) -> None:
    """Refuse a chosen id that is not OpenCode's format, is already a message's (`holder`, the session
    holding it: storing it would take that message out of its session), would not sort after `newest` (the
    session's last message: history is ordered by id, so it would land amid what is already there), or is
    dated far ahead (ids made after it would have to follow it, and the ids' clock would wrap round)."""
    if chosen is None:
        return
    if not is_well_formed(chosen, "msg"):
        raise MessageIdError(f"messageID {chosen!r} is not an OpenCode message id (msg_ + 26 letters and digits)")
    if newest is not None and chosen <= newest:
        raise MessageIdError(f"messageID {chosen} must sort after the session's last message, {newest}")
    if holder is not None:
        raise MessageIdError(f"messageID {chosen} is already a message of session {holder}; choose a new id")
    ahead = (time_part(chosen) - now_ms) % TIME_PART_MODULUS
    if MAX_ID_AHEAD_MS < ahead < TIME_PART_MODULUS // 2:
        raise MessageIdError(f"messageID {chosen} is dated {ahead // 3_600_000} hours ahead of this machine's clock")


def file_mime(path: Path, given: str | None) -> str:
    if path.is_dir():
        return DIRECTORY_MIME
    if given:
        return given
    guessed = mimetypes.guess_type(path.name)[0] or ""
    return guessed if is_media(guessed) else "text/plain"


def read_call_text(path: Path) -> str:
    arguments = json.dumps({"filePath": str(path)}, separators=(",", ":"))  # JSON.stringify's spacing
    return f"Called the Read tool with the following input: {arguments}"


@define
class UserMessageWriter:
    """Stores a prompt as a user message with its parts, expanding files the way OpenCode does."""

    store: SessionStore
    bus: Bus
    ids: Ids

    async def write(
        self, request: PromptRequest, agent: str, model: ModelRef, ctx: ToolContext, read: Tool | None, now: int
    ) -> MessageWithParts:
        info = UserMessage(
            id=request.message_id or self.ids.new("msg"),
            session_id=request.session_id,
            time=MessageTime(now),
            agent=agent,
            model=model,
            format=request.format,
            system=request.system,
            tools=dict(request.tools) if request.tools else None,
        )
        parts: list[Part] = []
        for item in request.parts:
            if isinstance(item, TextInput):
                parts.append(self._text(info, item.text))
            elif isinstance(item, SubtaskInput):
                parts.append(self._subtask(info, item))
            elif isinstance(item, AgentInput):
                parts += self._agent(info, item)
            else:
                parts += await self._file(info, item, ctx, read)
        async with self.store.batch():  # the message with all its parts, or nothing (never an empty message)
            await self.store.put_message(info)
            for part in parts:
                await self.store.put_part(part)
        self.bus.message_updated(info)
        for part in parts:
            self.bus.part_updated(part)
        return MessageWithParts(info, parts)

    def _text(self, info: UserMessage, text: str, *, synthetic: bool = False) -> TextPart:
        return TextPart(
            id=self.ids.new("prt"), session_id=info.session_id, message_id=info.id, text=text, synthetic=synthetic
        )

    def _agent(self, info: UserMessage, item: AgentInput) -> list[Part]:
        part = AgentPart(id=self.ids.new("prt"), session_id=info.session_id, message_id=info.id, name=item.name)
        note = read_prompt("reminders/agent_mention.txt").replace("{name}", item.name)
        return [part, self._text(info, note, synthetic=True)]

    def _subtask(self, info: UserMessage, item: SubtaskInput) -> SubtaskPart:
        return SubtaskPart(
            id=self.ids.new("prt"),
            session_id=info.session_id,
            message_id=info.id,
            prompt=item.prompt,
            description=item.description,
            agent=item.agent,
            model=parse_model(item.model) if item.model else None,
            command=item.command,
        )

    async def _file(self, info: UserMessage, item: FileInput, ctx: ToolContext, read: Tool | None) -> list[Part]:
        path = item.path if item.path.is_absolute() else ctx.directory / item.path
        mime = file_mime(path, item.mime)
        called = self._text(info, read_call_text(path), synthetic=True)
        try:
            if is_media(mime):
                url = await anyio.to_thread.run_sync(attachment_data_url, path, mime)
                return [called, self._file_part(info, mime_of(url), url, path)]
            if read is None:
                raise LookupError("the read tool is not available")
            # The user chose the file: like OpenCode, reading it asks nothing (no `external_directory`, no `.env`).
            attached = evolve(ctx, ask=approve_everything, extra={**ctx.extra, "bypass_cwd_check": True})
            result = await read.execute({"filePath": str(path)}, attached)
        except Exception as error:  # an unreadable file is reported to the model, not fatal to the prompt
            message = f"Read tool failed to read {path} with the following error: {error}"
            self.bus.publish(SessionError(info.session_id, MessageError("UnknownError", message)))
            return [self._text(info, message, synthetic=True)]
        output = self._text(info, result.output, synthetic=True)
        return [called, output, self._file_part(info, mime, path.as_uri(), path)]

    def _file_part(self, info: UserMessage, mime: str, url: str, path: Path) -> FilePart:
        return FilePart(
            id=self.ids.new("prt"),
            session_id=info.session_id,
            message_id=info.id,
            mime=mime,
            url=url,
            filename=valid_text(path.name),  # a name that is not UTF-8 holds surrogate escapes
        )
