"""What a step does with the history, piece by piece, at the start of a session and after N stored messages.

`step_overhead.py` times whole steps; this times, without a model server, the work of each step that can
grow with the session, on the same seeded history (earlier turns of a question, then a reply with
reasoning, text, a `read` call and its ~1.8 kB result): each simulated step adds one answer and runs, as
the loop does, the filtered view and `latest`, the history's conversion for the model, the chat-completions
body and its bytes, the turn summary's scans, and the reminders. CPU time (`time.process_time`), median
over the steps after the first two (which fill what later steps reuse).

It runs against any checkout (what a piece is called there is looked up), so the same command measures a
tree before and after a change:

    uv run python -m benchmarks.step_history_work [--history 1000] [--steps 30]
    PYTHONPATH=<tree>/packages/core/src:<tree>/packages/providers/src python -m benchmarks.step_history_work
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from benchmarks.step_overhead import _seeded_turn
from strata_core import llm
from strata_core import message as m
from strata_core.clock import SystemClock
from strata_core.engine.turn_request import ConvertedHistory
from strata_core.history import filter_compacted, latest
from strata_core.ids import Ids
from strata_core.prompt.reminders import apply_reminders, wrap_queued_user_messages
from strata_core.session.summary import snapshot_range, turn_of
from strata_providers.openai_chat import chat_request_body


def _optional(module: str, name: str) -> Any:
    """A piece this change added (`extend_compacted`, `encode_body`), or None in an earlier tree."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def _dumps(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


extend_compacted = _optional("strata_core.history", "extend_compacted")
encode_body: Callable[[Any], bytes] = _optional("strata_providers.wire_json", "encode_body") or _dumps
MODEL = llm.ModelInfo("bench", "m")
TOOL = llm.ToolDefinition("read", "Read a file.", {"type": "object", "properties": {"filePath": {"type": "string"}}})
SESSION = "ses_bench"
SNAPSHOT = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def _history(ids: Ids, messages: int) -> list[m.MessageWithParts]:
    history: list[m.MessageWithParts] = []
    for turn in range(messages // 2):
        history += _seeded_turn(ids, SESSION, turn, SNAPSHOT)
    return history


def measure(messages: int, steps: int) -> dict[str, float]:
    """Median CPU ms a step of each piece, after `messages` stored messages."""
    ids = Ids(SystemClock())
    stored = _history(ids, messages)
    user = _seeded_turn(ids, SESSION, messages, SNAPSHOT)[0]
    stored.append(user)
    converted = ConvertedHistory()
    view: list[m.MessageWithParts] | None = None
    times: dict[str, list[float]] = {}
    for step in range(steps):
        answer = _seeded_turn(ids, SESSION, messages + 1 + step, SNAPSHOT)[1]
        assert isinstance(answer.info, m.AssistantMessage)
        answer.info.parent_id = user.info.id
        stored = [*stored, answer]
        with _timed(times, "loop: filtered view and latest"):
            view = _view(stored, view, [answer])
        with _timed(times, "history conversion for the model"):
            model_messages = converted.convert(view, MODEL)
        request = llm.ModelRequest(system=("You are a bench.",), messages=tuple(model_messages), tools=(TOOL,))
        with _timed(times, "chat-completions body and its bytes"):
            encode_body(chat_request_body(MODEL, request))
        with _timed(times, "turn summary's scans"):
            turn_of(stored, user.info.id), snapshot_range(stored)
        with _timed(times, "reminders"):
            wrap_queued_user_messages(apply_reminders(view, "build", ids), user.info.id)
    return {name: statistics.median(values[2:]) for name, values in times.items()}


@contextmanager
def _timed(times: dict[str, list[float]], name: str) -> Iterator[None]:
    started = time.process_time()
    yield
    times.setdefault(name, []).append((time.process_time() - started) * 1000)


def _view(
    stored: Sequence[m.MessageWithParts], view: list[m.MessageWithParts] | None, added: list[m.MessageWithParts]
) -> list[m.MessageWithParts]:
    latest(stored)
    if extend_compacted is not None and view is not None:
        extended: list[m.MessageWithParts] | None = extend_compacted(view, added)
        if extended is not None:
            return extended
    return filter_compacted(stored)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--history", type=int, default=1_000, help="stored messages before the turn")
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    for messages in (0, args.history):
        pieces = measure(messages, args.steps)
        total = sum(pieces.values())
        print(
            json.dumps(
                {"history": messages, "total_ms": round(total, 3), **{k: round(v, 3) for k, v in pieces.items()}}
            )
        )
