"""How long history conversion takes on a 10,000-message session loaded from SQLite.

Builds the session (5,000 turns: a question, then a reply with reasoning, text, a tool call and its result;
every tenth reply takes two steps), stores it in a fresh SQLite file, loads it back the way the loop does,
and times `filter_compacted` + `to_model_messages`, the work the loop repeats on every step.

    uv run python benchmarks/history_conversion.py [--messages 10000] [--runs 9]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from pathlib import Path
from typing import TypedDict

import anyio

from strata_core import llm
from strata_core import message as m
from strata_core.clock import SystemClock
from strata_core.history import filter_compacted, to_model_messages
from strata_core.ids import Ids
from strata_core.session.info import SessionInfo, SessionTime
from strata_core.session.sqlite_store import SqliteSessionStore

MODEL = llm.ModelInfo(provider_id="anthropic", id="claude-sonnet-4-5", npm="@ai-sdk/anthropic")

IDS = Ids(SystemClock())


class PartIds(TypedDict):
    id: str
    session_id: str


def build_turn(session_id: str, turn: int) -> list[m.MessageWithParts]:
    def part_ids() -> PartIds:
        return {"id": IDS.new("prt"), "session_id": session_id}

    user = m.UserMessage(
        id=IDS.new("msg"),
        session_id=session_id,
        time=m.MessageTime(created=turn),
        agent="build",
        model=m.ModelRef(provider_id="anthropic", model_id="claude-sonnet-4-5"),
    )
    reply = m.AssistantMessage(
        id=IDS.new("msg"),
        session_id=session_id,
        parent_id=user.id,
        time=m.MessageTime(created=turn, completed=turn + 1),
        model_id="claude-sonnet-4-5",
        provider_id="anthropic",
        mode="build",
        agent="build",
        path=m.PathInfo(cwd="/work", root="/work"),
        finish="stop",
    )
    question = m.TextPart(**part_ids(), message_id=user.id, text=f"Question {turn}: " + "please look at this. " * 10)
    steps = 2 if turn % 10 == 0 else 1
    parts: list[m.Part] = []
    for step in range(steps):
        parts += [
            m.StepStartPart(**part_ids(), message_id=reply.id),
            m.ReasoningPart(
                **part_ids(),
                message_id=reply.id,
                text="thinking about it " * 20,
                metadata={"anthropic": {"signature": "c2lnbmF0dXJl"}},
            ),
            m.TextPart(**part_ids(), message_id=reply.id, text="Here is what I found. " * 15),
            m.ToolPart(
                **part_ids(),
                message_id=reply.id,
                call_id=f"call_{turn}_{step}",
                tool="read",
                state=m.ToolStateCompleted(
                    input={"filePath": f"/work/src/module_{turn}.py"},
                    output="1: import os\n" * 150,
                    title=f"src/module_{turn}.py",
                    metadata={"truncated": False},
                    time=m.ToolCompletedTime(start=turn, end=turn + 1),
                ),
            ),
            m.StepFinishPart(**part_ids(), message_id=reply.id, reason="tool-calls" if step < steps - 1 else "stop"),
        ]
    return [m.MessageWithParts(user, [question]), m.MessageWithParts(reply, parts)]


async def store_session(store: SqliteSessionStore, messages: int) -> str:
    session = SessionInfo(
        id=IDS.new("ses"),
        project_id="bench",
        directory="/work",
        title="benchmark",
        version="bench",
        time=SessionTime(created=0, updated=0),
    )
    async with store.batch():
        await store.put_session(session)
        for turn in range(messages // 2):
            for message in build_turn(session.id, turn):
                await store.put_message(message.info)
                for part in message.parts:
                    await store.put_part(part)
    return session.id


async def main(messages: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with SqliteSessionStore.open(Path(tmp) / "strata.db") as store:
            session_id = await store_session(store, messages)
            started = time.perf_counter()
            history = await store.messages(session_id)
            load_ms = (time.perf_counter() - started) * 1000

    parts = sum(len(message.parts) for message in history)
    print(f"session: {len(history)} messages, {parts} parts; loaded from SQLite in {load_ms:.0f} ms")
    print(f"filter_compacted + to_model_messages -> {len(convert(history))} model messages")
    report("as is", time_runs(history, runs))
    # The conversion allocates ~65k objects that outlive it, which makes CPython run a full collection over
    # the whole heap (the loaded history included) about once per call. Freezing the long-lived heap, as an
    # application may do once a session is loaded, leaves the conversion's own cost.
    gc.collect()
    gc.freeze()
    report("history frozen (gc.freeze)", time_runs(history, runs))
    gc.unfreeze()


def convert(history: list[m.MessageWithParts]) -> list[llm.ModelMessage]:
    return to_model_messages(filter_compacted(history), MODEL)


def time_runs(history: list[m.MessageWithParts], runs: int) -> list[float]:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        convert(history)
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def report(label: str, timings: list[float]) -> None:
    median, low, high = statistics.median(timings), min(timings), max(timings)
    print(f"{label}: median {median:.1f} ms over {len(timings)} runs (min {low:.1f}, max {high:.1f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    anyio.run(main, args.messages, args.runs)
