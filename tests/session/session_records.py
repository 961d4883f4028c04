"""Small builders for stored sessions, messages and parts."""

from __future__ import annotations

from strata_core import ids
from strata_core import message as m
from strata_core.session.info import SessionInfo, SessionTime


def session_info(
    session_id: str | None = None, *, project_id: str = "proj", parent_id: str | None = None, updated: int = 1000
) -> SessionInfo:
    return SessionInfo(
        id=session_id or ids.ascending("ses"),
        project_id=project_id,
        directory="/work/project",
        title="a session",
        version="test",
        time=SessionTime(created=updated, updated=updated),
        parent_id=parent_id,
    )


def user_message(session_id: str, message_id: str | None = None, *, created: int = 1000) -> m.UserMessage:
    return m.UserMessage(
        id=message_id or ids.ascending("msg"),
        session_id=session_id,
        time=m.MessageTime(created=created),
        agent="build",
        model=m.ModelRef(provider_id="test", model_id="model"),
    )


def assistant_message(session_id: str, parent_id: str, message_id: str | None = None) -> m.AssistantMessage:
    return m.AssistantMessage(
        id=message_id or ids.ascending("msg"),
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
    return m.TextPart(id=part_id or ids.ascending("prt"), session_id=session_id, message_id=message_id, text=text)
