"""`strata run --format json`: one JSON object per line on stdout, for scripts and other programs.

The format is stable: fields are only ever added, never renamed or removed. Every line has

    {"type": <kind>, "timestamp": <ms since the epoch>, "sessionID": "ses_...", ...}

and the kinds are (OpenCode's `run --format json` names where it has them, so consumers of either work):

| type          | when                                   | extra fields |
| ------------- | -------------------------------------- | ------------ |
| `session`     | first line: the session the run uses   | `agent`, `model` (`provider/model`), `title` |
| `step_start`  | the model starts a step                | `part` |
| `text`        | a text part is complete                | `part` (its `text` is the whole text) |
| `reasoning`   | a reasoning part is complete           | `part` |
| `tool_use`    | a tool call finished or failed         | `part` (`state.status` is `completed` or `error`) |
| `step_finish` | the model finished a step              | `part` (`reason`, `tokens`, `cost`) |
| `permission`  | a permission was asked or answered     | `request` (`id`, `permission`, `patterns`), `reply` |
| `retry`       | a failed model call will be retried    | `attempt`, `delay` (seconds), `message` |
| `title`       | the session got its title (if in time) | `title` |
| `error`       | the turn failed                        | `error` (`name`, `message`, `data`) |
| `done`        | last line                              | `ok` (bool), `finish` (the last step's reason or null) |

`part` objects use OpenCode's stored part shape (`id`, `sessionID`, `messageID`, `type`, ...), the same
shape `strata session export` writes. A `permission` line's `reply` is null when it was asked and
`once`/`always`/`reject` when it was answered. Text streams as it arrives only in the default format; here a text
part is printed once, whole.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from attrs import define, field

from strata_cli.model_parts import ModelParts
from strata_core import bus as b
from strata_core import message as m
from strata_core.serialization import unstructure

Emit = Callable[[str], None]


def _now_ms() -> int:
    return int(time.time() * 1000)


@define
class JsonEventWriter:
    """Turns bus events for one session into JSON lines, each part printed once when it is complete."""

    session_id: str
    emit: Emit
    clock: Callable[[], int] = _now_ms
    _model_parts: ModelParts = field(init=False)
    _printed: set[str] = field(factory=set, init=False)
    _open: dict[str, m.Part] = field(factory=dict, init=False)
    _finish: str | None = field(default=None, init=False)

    @_model_parts.default
    def _follow_session(self) -> ModelParts:
        return ModelParts(self.session_id)

    def line(self, kind: str, **fields: Any) -> None:
        record = {"type": kind, "timestamp": self.clock(), "sessionID": self.session_id, **fields}
        self.emit(json.dumps(record, ensure_ascii=False, default=str))

    def start(self, *, agent: str, model: str, title: str) -> None:
        self.line("session", agent=agent, model=model, title=title)

    def handle(self, event: b.BusEvent) -> None:
        # Only the model's parts are output; the user's own parts are what the caller sent.
        part = self._model_parts.part_of(event)
        if part is not None:
            self._part(part)
        elif isinstance(event, b.PermissionAsked):
            if event.request.session_id == self.session_id:
                self.line("permission", request=_request(event.request), reply=None)
        elif isinstance(event, b.PermissionReplied):
            if event.session_id == self.session_id:
                self.line("permission", request={"id": event.request_id}, reply=event.reply)
        elif isinstance(event, b.SessionRetry):
            if event.session_id == self.session_id:
                self.line("retry", attempt=event.attempt, delay=event.delay, message=event.message)
        elif isinstance(event, b.TitleUpdated):
            if event.session_id == self.session_id:
                self.line("title", title=event.title)
        elif isinstance(event, b.SessionError) and event.session_id == self.session_id:
            self.line("error", error=_error(event.error))

    def finish(self, *, ok: bool) -> None:
        """Flush parts that never said they were complete (an aborted step), then the `done` line."""
        for part in list(self._open.values()):
            self._print_part(part)
        self.line("done", ok=ok, finish=self._finish)

    def _part(self, part: m.Part) -> None:
        if part.id in self._printed:
            return
        if isinstance(part, m.StepFinishPart):
            self._finish = part.reason
        if _is_complete(part):
            self._print_part(part)
        elif isinstance(part, m.TextPart | m.ReasoningPart | m.ToolPart):
            self._open[part.id] = part

    def _print_part(self, part: m.Part) -> None:
        self._open.pop(part.id, None)
        kind = _KIND.get(part.type)
        if kind is None or (isinstance(part, m.TextPart) and not part.text):
            return
        self._printed.add(part.id)
        self.line(kind, part=unstructure(part))


_KIND = {
    "step-start": "step_start",
    "step-finish": "step_finish",
    "text": "text",
    "reasoning": "reasoning",
    "tool": "tool_use",
}


def _is_complete(part: m.Part) -> bool:
    if isinstance(part, m.TextPart | m.ReasoningPart):
        return part.time is not None and part.time.end is not None
    if isinstance(part, m.ToolPart):
        return part.state.status in ("completed", "error")
    return isinstance(part, m.StepStartPart | m.StepFinishPart)


def _request(request: b.PermissionRequest) -> dict[str, Any]:
    return {"id": request.id, "permission": request.permission, "patterns": list(request.patterns)}


def _error(error: m.MessageError) -> dict[str, Any]:
    return {"name": error.name, "message": error.message, "data": dict(error.data)}
