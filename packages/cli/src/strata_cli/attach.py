"""`strata run --attach URL`: one turn run by a Strata or OpenCode server, rendered here as a local run is.

Like `opencode run --attach`: the session is chosen or created on the server, the prompt is sent there, and
the server's event stream (read back into bus events by `RemoteEvents`) feeds the same renderers and the
same `drive_turn` as a local run, so the output, Ctrl-C (which aborts the turn on the server) and the exit
codes are the same. A permission question is answered here as a non-interactive run answers it: approved
with --auto, otherwise rejected, and the run fails saying what was refused. Only httpx is used; the server
package is never imported. What the server sends is decoded with `strata_core.json_text.loads`, so a lone
surrogate escaped in an event or an answer prints as U+FFFD. STRATA_SERVER_PASSWORD (or
OPENCODE_SERVER_PASSWORD) is sent as basic auth.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx
from attrs import define, field

from strata_cli.errors import EXIT_FAILURE, EXIT_INTERRUPTED, CliError
from strata_cli.json_events import JsonEventWriter
from strata_cli.remote_events import RemoteEvents
from strata_cli.render import RunRenderer
from strata_cli.run_session import RunSettings
from strata_cli.turn import drive_turn
from strata_core import bus as b
from strata_core import json_text
from strata_core import message as m
from strata_core.engine import TurnEnd
from strata_core.errors import StrataError
from strata_core.serialization import converter

if TYPE_CHECKING:
    from strata_core.session import UsageTotals

CONNECT_SECONDS = 10.0


@define
class _Attached:
    client: httpx.AsyncClient
    session_id: str
    auto: bool
    refused: list[str] = field(factory=list)

    async def answer(self, event: b.BusEvent) -> None:
        if isinstance(event, b.PermissionAsked) and event.request.session_id == self.session_id:
            request = event.request
            if not self.auto:
                self.refused.append(f"Permission '{request.permission}' for {', '.join(request.patterns) or '*'}")
            reply = "once" if self.auto else "reject"
            await _call(self.client, "POST", f"/permission/{request.id}/reply", json={"reply": reply})


async def run_attached(url: str, settings: RunSettings) -> int:
    auth = _auth()
    timeout = httpx.Timeout(None, connect=CONNECT_SECONDS)
    async with httpx.AsyncClient(base_url=url.rstrip("/"), auth=auth, timeout=timeout) as client:
        directory = (await _call(client, "GET", "/path"))["directory"]
        session = await _session(client, settings)
        attached = _Attached(client, session["id"], settings.auto)
        bus = b.Bus()
        try:
            async with anyio.create_task_group() as group:
                connected = anyio.Event()
                group.start_soon(_pump, client, bus, connected)
                with anyio.fail_after(CONNECT_SECONDS):
                    await connected.wait()
                code = await _turn(attached, bus, settings, session, directory)
                group.cancel_scope.cancel()
        except BaseExceptionGroup as failures:
            raise _first_leaf(failures) from None
    return code


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The failure itself, for the one-paragraph report (the task group only wrapped it)."""
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


async def _turn(attached: _Attached, bus: b.Bus, settings: RunSettings, session: dict[str, Any], directory: str) -> int:
    session_id = attached.session_id
    writer = JsonEventWriter(session_id, _print_line) if settings.json_output else None
    renderer = None if writer is not None else RunRenderer(session_id, Path(directory))
    started: list[bool] = []

    def begin(event: b.BusEvent) -> None:
        """The header, once the server has stored the question: its agent and model are the turn's."""
        if started or not isinstance(event, b.MessageUpdated) or event.message.session_id != session_id:
            return
        if not isinstance(event.message, m.UserMessage):
            return
        started.append(True)
        agent, model = event.message.agent, event.message.model.ref
        if writer is not None:
            writer.start(agent=agent, model=model, title=session.get("title", ""))
        elif renderer is not None:
            renderer.header(agent, model)

    async def handle(event: b.BusEvent) -> None:
        begin(event)
        if writer is not None:
            writer.handle(event)
        elif renderer is not None:
            renderer.handle(event)
        await attached.answer(event)

    async def start() -> m.MessageWithParts:
        answer = await _call(attached.client, "POST", f"/session/{session_id}/message", json=_prompt_body(settings))
        return _message(answer)

    async def cancel() -> None:
        await _call(attached.client, "POST", f"/session/{session_id}/abort")

    outcome = await drive_turn(bus, session_id, start, handle, cancel)
    info = outcome.answer.info
    error = info.error if isinstance(info, m.AssistantMessage) else None
    aborted = outcome.end is TurnEnd.ABORTED
    code = EXIT_INTERRUPTED if aborted else EXIT_FAILURE if error is not None or attached.refused else 0
    refusal = f"{attached.refused[0]} needs approval; rerun with --auto to approve it" if attached.refused else None
    if writer is not None:
        failure = error or (m.MessageError("NoResponderError", refusal) if refusal else None)
        writer.finish(ok=code == 0, failure=failure)
    elif renderer is not None:
        renderer.finish()
        if isinstance(info, m.AssistantMessage):
            from strata_cli.usage_line import usage_line

            try:
                renderer.note(usage_line(await _turn_usage(attached.client, session_id, info.parent_id)))
            except (StrataError, httpx.HTTPError):
                pass  # a server that cannot list the turn's messages costs the cost line, never the run
        if code == EXIT_INTERRUPTED:
            renderer.note(("Interrupted.", "yellow"))
        elif refusal:
            renderer.error(refusal)
    return code


async def _turn_usage(client: httpx.AsyncClient, session_id: str, user_message_id: str) -> UsageTotals:
    """What the turn used, as `strata run` counts it (`run_session._turn_usage`), read from the server: the
    answers to this turn's user message, and the subagent sessions started since that message was sent."""
    from strata_core.session import usage_of

    stored = [_message(raw) for raw in await _call(client, "GET", f"/session/{session_id}/message")]
    asked = next((msg.info.time.created for msg in stored if msg.info.id == user_message_id), None)
    answers = [
        msg for msg in stored if isinstance(msg.info, m.AssistantMessage) and msg.info.parent_id == user_message_id
    ]
    total = usage_of(answers)
    for child in await _call(client, "GET", f"/session/{session_id}/children"):
        if asked is not None and child["time"]["created"] >= asked:
            total = total.plus_usage(await _all_usage(client, child["id"]))
    return total


async def _all_usage(client: httpx.AsyncClient, session_id: str) -> UsageTotals:
    """Everything a (subagent) session and its own subagents used."""
    from strata_core.session import usage_of

    total = usage_of(_message(raw) for raw in await _call(client, "GET", f"/session/{session_id}/message"))
    for child in await _call(client, "GET", f"/session/{session_id}/children"):
        total = total.plus_usage(await _all_usage(client, child["id"]))
    return total


def _message(raw: dict[str, Any]) -> m.MessageWithParts:
    return m.MessageWithParts(
        converter.structure(raw["info"], m.Message),  # type: ignore[arg-type]
        [converter.structure(p, m.Part) for p in raw["parts"]],  # type: ignore[arg-type]
    )


async def _pump(client: httpx.AsyncClient, bus: b.Bus, connected: anyio.Event) -> None:
    """Publish the server's events on the local bus until cancelled."""
    remote = RemoteEvents()
    async with client.stream("GET", "/event") as response:
        if response.status_code != 200:
            await response.aread()
            raise _server_error(response)
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            payload = json_text.loads(line.removeprefix("data:"))  # a lone surrogate's escape becomes U+FFFD
            if payload.get("type") == "server.connected":
                connected.set()
            event = remote.bus_event(payload)
            if event is not None:
                bus.publish(event)


async def _session(client: httpx.AsyncClient, settings: RunSettings) -> dict[str, Any]:
    if settings.session_id:
        session = await _call(client, "GET", f"/session/{settings.session_id}")
    elif settings.continue_last:
        roots = await _call(client, "GET", "/session", params={"roots": "true"})
        session = roots[0] if roots else None
    else:
        session = None
    if session is None:
        session = await _call(client, "POST", "/session", json={"title": settings.title} if settings.title else {})
        return dict(session)
    if settings.fork:
        session = await _call(client, "POST", f"/session/{session['id']}/fork", json={})
    if settings.title:
        session = await _call(client, "PATCH", f"/session/{session['id']}", json={"title": settings.title})
    return dict(session)


def _prompt_body(settings: RunSettings) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": settings.text}] if settings.text else []
    parts += [
        {"type": "file", "mime": "text/plain", "url": path.as_uri(), "filename": path.name} for path in settings.files
    ]
    body: dict[str, Any] = {"parts": parts}
    if settings.agent:
        body["agent"] = settings.agent
    if settings.model:
        provider, _, model = settings.model.partition("/")
        if not model:
            raise CliError(f"--model {settings.model!r} is not a model reference: write it as provider/model.")
        body["model"] = {"providerID": provider, "modelID": model}
    return body


async def _call(client: httpx.AsyncClient, method: str, path: str, **kwargs: Any) -> Any:
    try:
        response = await client.request(method, path, **kwargs)
    except httpx.TransportError as error:
        raise CliError(f"Could not reach the server at {client.base_url}: {error or type(error).__name__}.") from error
    if response.status_code >= 400:
        raise _server_error(response)
    return _body(response) if response.content else None


def _body(response: httpx.Response) -> Any:
    """The JSON answer, its strings valid text: an OpenCode server may escape a model's lone surrogate."""
    return json_text.loads(response.text)


def _server_error(response: httpx.Response) -> CliError:
    try:
        body = _body(response)
        message = f"{body['name']}: {body['data']['message']}"
    except (ValueError, KeyError, TypeError):
        message = response.text.strip()[:500] or response.reason_phrase
    if response.status_code == 401:
        message += " (set STRATA_SERVER_PASSWORD to the server's password)"
    return CliError(
        f"The server at {response.request.url.copy_with(query=None)} answered {response.status_code}: {message}"
    )


def _auth() -> httpx.BasicAuth | None:
    password = os.environ.get("STRATA_SERVER_PASSWORD") or os.environ.get("OPENCODE_SERVER_PASSWORD")
    if not password:
        return None
    username = os.environ.get("STRATA_SERVER_USERNAME") or os.environ.get("OPENCODE_SERVER_USERNAME") or "opencode"
    return httpx.BasicAuth(username, password)


def _print_line(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
