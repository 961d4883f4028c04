"""`strata run --format json`: one JSON object per line on stdout, for scripts and other programs.

The format is stable: fields are only ever added, never renamed or removed. Every line has

    {"type": <kind>, "timestamp": <ms since the epoch>, "sessionID": "ses_...", ...}

(`sessionID` is null only when the run failed before it had a session: then the output is `error`, `done`).
The kinds are OpenCode's `run --format json` names and fields where it has them, so consumers of either work:

| type          | when                                   | extra fields |
| ------------- | -------------------------------------- | ------------ |
| `session`     | first line: the session the run uses   | `agent`, `model` (`provider/model`), `title` |
| `step_start`  | the model starts a step                | `part` |
| `text`        | a text part is complete                | `part` (its `text` is the whole text) |
| `reasoning`   | a reasoning part is complete           | `part` |
| `tool_use`    | a tool call finished or failed         | `part` (`state.status` is `completed` or `error`) |
| `step_finish` | the step and all its tool calls ended  | `part` (`reason`, `tokens`, `cost`) |
| `permission`  | a permission was asked or answered     | `request` (`id`, `permission`, `patterns`), `reply` |
| `retry`       | a failed model call will be retried    | `attempt`, `delay` (seconds), `message` |
| `title`       | the session got its title (if in time) | `title` |
| `error`       | what ended the run, once               | `error` (`name`, `message`, `data` with `message`) |
| `done`        | last line                              | `ok` (bool), `finish` (the last step's reason or null) |

Within a step the order is OpenCode's: `step_start`, then its `text`, `reasoning` and `tool_use` parts as each
completes (tool calls run in parallel, so in the order they finish), then `step_finish`, held back until the
step's tool calls are done even though the model's stream ended first. Every failure that ends a run gets an
`error` line before `done`: a model error (OpenCode's), a permission `ask` refused because nobody can answer
(OpenCode prints none there; its name is `NoResponderError`, `data` has `permission` and `patterns`), an
interrupt (`MessageAbortedError`), and a failure before the turn (bad config, no model) or inside it.
`error` is OpenCode's `{name, data: {message, ...}}` plus a top-level `message`. `session`, `permission`,
`retry`, `title` and `done` are Strata's own; `title` may come anywhere after `session`.

`part` objects use OpenCode's stored part shape (`id`, `sessionID`, `messageID`, `type`, ...), the same
shape `strata session export` writes; `step_start` and `step_finish` carry the worktree's `snapshot` as
OpenCode's do (none with `"snapshot": false` or without git).
A `permission` line's `reply` is null when it was asked and `once`/`always`/`reject` when it was
answered. Text streams as it arrives only in the default format; here a text part is printed once, whole.
`tests/e2e_cli/test_e2e_cli_json_events_oracle.py` compares this output with OpenCode 1.18.33's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import attrs
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
    _streamed: dict[str, list[str]] = field(factory=dict, init=False)
    """The deltas of open text and reasoning parts, for a part the run ends before it completes."""
    _held: dict[str, m.StepFinishPart] = field(factory=dict, init=False)
    """A step's `step_finish`, by message id, waiting for that step's tool calls to finish."""
    _finish: str | None = field(default=None, init=False)
    _error_printed: bool = field(default=False, init=False)
    _done: bool = field(default=False, init=False)

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
        elif isinstance(event, b.PartDelta):
            streamed = self._model_parts.streamed_into(event)
            if streamed is not None and streamed.id in self._open:
                self._streamed.setdefault(streamed.id, []).append(event.delta)
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
        elif isinstance(event, b.McpServerFailed):
            # OpenCode's MCPStatusFailed shape, under the server's name.
            self.line("mcp", server=event.server, status="failed", error=event.error)
        elif isinstance(event, b.SessionError) and event.session_id == self.session_id:
            self._print_error(event.error)

    def finish(self, *, ok: bool, failure: m.MessageError | None = None) -> None:
        """End the output: parts that never said they were complete (an aborted step), the steps they held
        back, the `error` line of what ended the run (unless the turn already printed one), then `done`."""
        if self._done:
            return
        for part in list(self._open.values()):
            pieces = self._streamed.get(part.id)
            if pieces and isinstance(part, m.TextPart | m.ReasoningPart):
                part = attrs.evolve(part, text=part.text + "".join(pieces))
            self._print_part(part)
        for step_finish in list(self._held.values()):
            self._print_part(step_finish)
        self._held.clear()
        if failure is not None and not self._error_printed:
            self._print_error(failure)
        self._done = True
        self.line("done", ok=ok, finish=self._finish)

    def _part(self, part: m.Part) -> None:
        if part.id in self._printed:
            return
        if isinstance(part, m.StepFinishPart):
            self._finish = part.reason
            if self._tool_calls_running(part.message_id):
                # The model's stream ends before the step's tools do; OpenCode prints a step's calls first.
                self._held[part.message_id] = part
                return
        if _is_complete(part):
            self._print_part(part)
            self._release_step_finish(part.message_id)
        elif isinstance(part, m.TextPart | m.ReasoningPart | m.ToolPart):
            self._open[part.id] = part
            self._streamed.pop(part.id, None)  # a whole part holds every delta before it

    def _tool_calls_running(self, message_id: str) -> bool:
        return any(isinstance(p, m.ToolPart) and p.message_id == message_id for p in self._open.values())

    def _release_step_finish(self, message_id: str) -> None:
        held = self._held.get(message_id)
        if held is not None and not self._tool_calls_running(message_id):
            del self._held[message_id]
            self._print_part(held)

    def _print_error(self, error: m.MessageError) -> None:
        self._error_printed = True
        self.line("error", error=_error(error))

    def _print_part(self, part: m.Part) -> None:
        self._open.pop(part.id, None)
        self._streamed.pop(part.id, None)
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
    # OpenCode's shape, `{name, data: {message, ...}}` (as stored), plus Strata's own top-level `message`.
    return {"name": error.name, "message": error.message, "data": {"message": error.message, **error.data}}


def print_failure_without_session(emit: Emit, error: m.MessageError, clock: Callable[[], int] = _now_ms) -> None:
    """The output of a run that failed before it had a session (bad config, no model): `error`, then `done`."""
    for record in (
        {"type": "error", "timestamp": clock(), "sessionID": None, "error": _error(error)},
        {"type": "done", "timestamp": clock(), "sessionID": None, "ok": False, "finish": None},
    ):
        emit(json.dumps(record, ensure_ascii=False, default=str))
