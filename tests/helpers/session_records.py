"""Small builders for stored sessions, messages and parts."""

from __future__ import annotations

from datetime import date
from typing import Any

from attrs import define

from strata_core import message as m
from strata_core.clock import SystemClock
from strata_core.ids import Ids
from strata_core.session_info import SessionInfo, SessionTime

IDS = Ids(SystemClock())
"""The records' and the services' ids come from one generator, so they sort in the order they were made."""


@define
class SteppingClock:
    """A `Clock` that moves on `step` milliseconds each time it is read, starting at `ms`."""

    ms: int
    step: int = 1000

    def now_ms(self) -> int:
        now, self.ms = self.ms, self.ms + self.step
        return now

    def today(self) -> date:
        return date(2026, 1, 1)


def session_info(
    session_id: str | None = None, *, project_id: str = "proj", parent_id: str | None = None, updated: int = 1000
) -> SessionInfo:
    return SessionInfo(
        id=session_id or IDS.new("ses"),
        project_id=project_id,
        directory="/work/project",
        title="a session",
        version="test",
        time=SessionTime(created=updated, updated=updated),
        parent_id=parent_id,
    )


def user_message(session_id: str, message_id: str | None = None, *, created: int = 1000) -> m.UserMessage:
    return m.UserMessage(
        id=message_id or IDS.new("msg"),
        session_id=session_id,
        time=m.MessageTime(created=created),
        agent="build",
        model=m.ModelRef(provider_id="test", model_id="model"),
    )


def assistant_message(session_id: str, parent_id: str, message_id: str | None = None) -> m.AssistantMessage:
    return m.AssistantMessage(
        id=message_id or IDS.new("msg"),
        session_id=session_id,
        parent_id=parent_id,
        time=m.MessageTime(created=1000),
        model_id="model",
        provider_id="test",
        mode="build",
        agent="build",
        path=m.PathInfo(cwd="/work/project", root="/work/project"),
    )


def text_part(session_id: str, message_id: str, text: str, part_id: str | None = None) -> m.TextPart:
    return m.TextPart(id=part_id or IDS.new("prt"), session_id=session_id, message_id=message_id, text=text)


async def stored_message(store: Any, session_id: str, message_id: str) -> Any:
    """The message with its parts as `messages()` lists them (the store's one way to read messages back)."""
    return next((message for message in await store.messages(session_id) if message.info.id == message_id), None)
