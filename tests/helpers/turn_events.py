"""The `/event` stream of four turns on a running server (`strata serve` or `opencode serve`), recorded and
normalised so two servers' recordings compare: a text turn, a tool turn, a permission question answered once,
and a turn aborted while its shell command runs.

Each turn runs in a session of its own, so a session's events are that turn's. `record_turns` drives the
server over plain HTTP as OpenCode's clients do (`prompt_async`, `/permission/{id}/reply`, `/abort`) and
waits on the stream itself: for the permission question, for the command's process, for `session.idle`.
The aborted turn runs first: OpenCode finishes it after its first `session.idle`, and the other turns give
its last events time to arrive before the recording ends (at the idle of a marker turn after the last).

`normalised` keeps what a client acts on (event types, the part type and tool status of each
`message.part.updated`, the role and completion of each `message.updated`, the status of `session.status`)
and drops ids, times, heartbeats and the chunking of deltas (a run of `message.part.delta` is one entry).
`comparable` then sets apart what OpenCode itself sends in no fixed place: the title's and the diff
summaries' `session.updated`, `session.diff` and user `message.updated`, which it forks beside the turn,
are compared as a sorted list; and a permission question asked before its call is shown running is put
after it (OpenCode's tool starts beside the stream's record of the call, and which comes first depends on
how fast its shell parser loads).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import httpx
from server_harness import WAIT_SECONDS, wait_until

Event = dict[str, Any]
TURNS = ("text", "tool", "permission", "abort")
RUN_ORDER = ("abort", "text", "tool", "permission")
BESIDE_THE_TURN = frozenset({"session.updated", "session.diff", "message.updated user open"})
"""Events OpenCode forks beside a turn once it is busy (title, diff summaries), in no fixed place."""
SLEEP = "sleep 29.75"
"""The aborted command: a duration no other test uses, so its process is found by its command line."""


def model_script(work: str) -> list[dict[str, Any]]:
    """The model's side of the four turns, in `RUN_ORDER` (`work`: the project directory, or `__WORK__`)."""
    read = {"name": "read", "arguments": {"filePath": f"{work}/notes.txt"}}
    echo = {
        "name": "bash",
        "arguments": {"command": "echo asked | tee asked.txt", "description": "Echo a word to a file"},
    }
    sleep = {"name": "bash", "arguments": {"command": SLEEP, "description": "Wait"}}
    return [
        {"tool_calls": [sleep]},
        {"text": "Hello there."},
        {"tool_calls": [read]},
        {"text": "The notes say hi."},
        {"tool_calls": [echo]},
        {"text": "Echoed."},
        {"text": "Done."},  # the marker turn's
    ]


@attrs.define
class EventLog:
    """Every event of one `/event` stream, in arrival order, with a way to wait for one."""

    events: list[Event] = attrs.field(factory=list)
    arrived: threading.Condition = attrs.field(factory=threading.Condition)

    def add(self, event: Event) -> None:
        with self.arrived:
            self.events.append(event)
            self.arrived.notify_all()

    def wait(self, test: Callable[[Event], bool], what: str) -> Event:
        with self.arrived:
            found = self.arrived.wait_for(lambda: next((e for e in self.events if test(e)), None), WAIT_SECONDS)
        if found is None:
            raise AssertionError(f"no event for {what} among {[e.get('type') for e in self.events]}")
        return found


@contextmanager
def listening(url: str) -> Iterator[EventLog]:
    log = EventLog()

    def listen() -> None:
        with httpx.Client(base_url=url, timeout=WAIT_SECONDS) as reader, reader.stream("GET", "/event") as stream:
            try:
                for line in stream.iter_lines():
                    if line.startswith("data:"):
                        log.add(json.loads(line.removeprefix("data:")))
            except httpx.HTTPError:
                return  # the server stopped

    threading.Thread(target=listen, daemon=True).start()
    log.wait(lambda e: e["type"] == "server.connected", "the stream's connection")
    yield log


def record_turns(url: str) -> dict[str, list[Event]]:
    """Run the four turns one after the other on the server at `url` (its model playing `model_script`) and
    return each turn's events (those naming its session), from its session's creation to its `session.idle`."""
    with listening(url) as log, httpx.Client(base_url=url, timeout=WAIT_SECONDS) as client:
        sessions = {turn: _run_turn(client, log, turn) for turn in RUN_ORDER}
        # A marker turn after the last: what a turn sends after its idle (OpenCode's forked diff summary) has
        # arrived by the marker's own idle, a whole model call later.
        _run_turn(client, log, "marker")
        events = list(log.events)
    return {turn: [e for e in events if session_of(e) == sessions[turn]] for turn in TURNS}


def _run_turn(client: httpx.Client, log: EventLog, turn: str) -> str:
    session = str(client.post("/session", json={}).json()["id"])
    answer = client.post(f"/session/{session}/prompt_async", json={"parts": [{"type": "text", "text": turn}]})
    assert answer.status_code in (200, 204), answer.text
    if turn in ("permission", "abort"):
        asked = log.wait(lambda e: e["type"] == "permission.asked" and session_of(e) == session, f"{turn}'s ask")
        replied = client.post(f"/permission/{asked['properties']['id']}/reply", json={"reply": "once"})
        assert replied.status_code == 200, replied.text
    if turn == "abort":
        wait_until(lambda: command_running(SLEEP), f"`{SLEEP}` to start")
        aborted = client.post(f"/session/{session}/abort")
        assert aborted.status_code == 200, aborted.text
    log.wait(lambda e: e["type"] == "session.idle" and session_of(e) == session, f"{turn}'s idle")
    return session


def command_running(command: str) -> bool:
    """Whether a process runs `command` (its words as its command line), found through /proc."""
    wanted = command.split()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().decode(errors="replace").split("\0")[:-1]
        except OSError:
            continue  # it ended while we looked
        if words[-len(wanted) :] == wanted and Path(words[0]).name == wanted[0]:
            return True
    return False


def session_of(event: Event) -> str | None:
    """The session an event is about (OpenCode puts the id in a different place per event type)."""
    properties = event.get("properties", {})
    for holder in (properties, properties.get("info", {}), properties.get("part", {})):
        if isinstance(holder, dict) and isinstance(holder.get("sessionID"), str):
            return str(holder["sessionID"])
    if event.get("type", "").startswith("session.") and isinstance(properties.get("info"), dict):
        found = properties["info"].get("id")
        return found if isinstance(found, str) else None
    return None


def normalised(events: list[Event]) -> list[str]:
    """One line per event a client acts on; ids, times and delta chunking dropped."""
    lines: list[str] = []
    for event in events:
        line = _line(event)
        if line is None:
            continue
        if line.startswith("message.part.delta") and lines and lines[-1] == line:
            continue  # one entry per run of deltas: their chunking is the transport's, not the turn's
        lines.append(line)
    return lines


def _line(event: Event) -> str | None:
    kind = str(event["type"])
    properties = event.get("properties", {})
    if kind == "server.heartbeat":
        return None
    if kind == "message.part.updated":
        part = properties["part"]
        if part["type"] == "tool":
            return f"{kind} tool {part['tool']} {part['state']['status']}"
        return f"{kind} {part['type']}"
    if kind == "message.part.delta":
        return f"{kind} {properties['field']}"
    if kind == "message.updated":
        info = properties["info"]
        done = "completed" if info.get("time", {}).get("completed") else "open"
        return f"{kind} {info['role']} {done}"
    if kind == "session.status":
        return f"{kind} {properties['status']['type']}"
    return kind


@attrs.frozen
class Comparable:
    """A turn's normalised events: those in the turn's own order, and those OpenCode sends beside it."""

    sequence: list[str]
    beside: list[str]


def comparable(events: list[Event]) -> Comparable:
    lines = normalised(events)
    busy = lines.index("session.status busy") if "session.status busy" in lines else len(lines)
    sequence = lines[:busy] + [line for line in lines[busy:] if line not in BESIDE_THE_TURN]
    beside = sorted(line for line in lines[busy:] if line in BESIDE_THE_TURN)
    for index in range(len(sequence) - 1):
        if sequence[index] == "permission.asked" and _first_running(sequence, index + 1):
            sequence[index], sequence[index + 1] = sequence[index + 1], sequence[index]
    return Comparable(sequence, beside)


def _first_running(sequence: list[str], index: int) -> bool:
    """Whether `sequence[index]` is a call shown running for the first time (right after its pending)."""
    line = sequence[index]
    if not (line.startswith("message.part.updated tool ") and line.endswith(" running")):
        return False
    return line.removesuffix(" running") + " pending" in sequence[:index] and line not in sequence[:index]
