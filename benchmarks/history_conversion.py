"""How long history conversion takes on a 10,000-message session loaded from SQLite.

Builds the session (5,000 turns: a question, then a reply with reasoning, text, a tool call and its result;
every tenth reply takes two steps), stores it in a fresh SQLite file, loads it back the way the loop does,
and times `filter_compacted` + `to_model_messages`, the work the loop repeats on every step, three ways:

- a library call under CPython's default collector settings, in a process that changed none (an embedding
  application);
- under the `strata` command's settings (`strata_cli.lean_start.settle_gc`: the start-up imports frozen,
  the young generation collected every 10,000 allocations), with the history loaded afterwards as the CLI
  loads it, so not frozen;
- with the loaded history frozen too (`gc.freeze()`), which leaves the conversion's own cost.

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

from strata_cli.lean_start import settle_gc
from strata_core import llm
from strata_core import message as m
from strata_core.clock import SystemClock
from strata_core.history import filter_compacted, to_model_messages
from strata_core.ids import Ids
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session_info import SessionInfo, SessionTime

MODEL = llm.ModelInfo(provider_id="anthropic", id="claude-sonnet-4-5", npm="@ai-sdk/anthropic")

IDS = Ids(SystemClock())


class PartIds(TypedDict):
    id: str
    session_id: str


def question_and_reply(
    ids: Ids, session_id: str, turn: int, provider_id: str, model_id: str
) -> tuple[m.UserMessage, m.AssistantMessage]:
    """The two messages of one earlier turn of a seeded history (their parts are the caller's)."""
    user = m.UserMessage(
        id=ids.new("msg"),
        session_id=session_id,
        time=m.MessageTime(created=turn),
        agent="build",
        model=m.ModelRef(provider_id=provider_id, model_id=model_id),
    )
    reply = m.AssistantMessage(
        id=ids.new("msg"),
        session_id=session_id,
        parent_id=user.id,
        time=m.MessageTime(created=turn, completed=turn + 1),
        model_id=model_id,
        provider_id=provider_id,
        mode="build",
        agent="build",
        path=m.PathInfo(cwd="/work", root="/work"),
        finish="stop",
    )
    return user, reply


def completed_read(turn: int) -> m.ToolStateCompleted:
    """What an earlier turn's `read` of a 150-line module left in the history."""
    return m.ToolStateCompleted(
        input={"filePath": f"/work/src/module_{turn}.py"},
        output="1: import os\n" * 150,
        title=f"src/module_{turn}.py",
        metadata={"truncated": False},
        time=m.ToolCompletedTime(start=turn, end=turn + 1),
    )


def build_turn(session_id: str, turn: int) -> list[m.MessageWithParts]:
    def part_ids() -> PartIds:
        return {"id": IDS.new("prt"), "session_id": session_id}

    user, reply = question_and_reply(IDS, session_id, turn, "anthropic", "claude-sonnet-4-5")
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
                state=completed_read(turn),
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
        database = Path(tmp) / "strata.db"
        async with SqliteSessionStore.open(database) as store:
            session_id = await store_session(store, messages)
        history, load_ms = await load_history(database, session_id)
        parts = sum(len(message.parts) for message in history)
        print(f"session: {len(history)} messages, {parts} parts; loaded from SQLite in {load_ms:.0f} ms")
        print(f"filter_compacted + to_model_messages -> {len(convert(history))} model messages")
        report("library call, default collector", time_runs(history, runs))

        # As `strata` does it: settle the collector once the modules are loaded, then load the session.
        del history
        gc.collect()
        threshold = gc.get_threshold()
        settle_gc()
        history, _ = await load_history(database, session_id)
        report("strata CLI's collector settings", time_runs(history, runs))

        gc.collect()
        gc.freeze()
        report("history frozen too (gc.freeze)", time_runs(history, runs))
        gc.unfreeze()
        gc.set_threshold(*threshold)


async def load_history(database: Path, session_id: str) -> tuple[list[m.MessageWithParts], float]:
    """The session's messages as the loop reads them, and how long that took in ms."""
    async with SqliteSessionStore.open(database) as store:
        started = time.perf_counter()
        history = await store.messages(session_id)
        return history, (time.perf_counter() - started) * 1000


def convert(history: list[m.MessageWithParts]) -> list[llm.ModelMessage]:
    return to_model_messages(filter_compacted(history), MODEL)


def time_runs(history: list[m.MessageWithParts], runs: int) -> list[tuple[float, float]]:
    """Wall and CPU ms of each conversion; CPU time is the figure to trust on a busy, shared machine."""
    timings = []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        convert(history)
        timings.append(((time.perf_counter() - started) * 1000, (time.process_time() - started_cpu) * 1000))
    return timings


def report(label: str, timings: list[tuple[float, float]]) -> None:
    wall = [w for w, _ in timings]
    cpu = statistics.median(c for _, c in timings)
    median, low, high = statistics.median(wall), min(wall), max(wall)
    print(f"{label}: median {median:.1f} ms over {len(wall)} runs (min {low:.1f}, max {high:.1f}; CPU {cpu:.1f} ms)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    anyio.run(main, args.messages, args.runs)
