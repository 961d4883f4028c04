"""Which stored messages the model still sees: OpenCode's `filterCompacted`, and `latest` for the loop's next step
(whether the turn is over, the calls the doom-loop check looks back on).

Pure functions, linear in the size of the history: the loop calls them on every step, on sessions that can
reach tens of thousands of messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from attrs import frozen

from strata_core import message as m


def filter_compacted(messages: Sequence[m.MessageWithParts]) -> list[m.MessageWithParts]:
    """The part of a chronological history the model still sees once compactions have summarised the rest.

    Walking back from the newest message, stop at the newest compaction request that a finished summary
    answered (kept). If that compaction preserved a tail (`tail_start_id`), keep walking back to the tail's
    first message and put the summary first: request, summary, tail, then whatever came after the summary.
    """
    kept: list[m.MessageWithParts] = []  # newest first
    answered: set[str] = set()  # ids of user messages a completed summary replied to
    request: m.MessageWithParts | None = None  # the compaction request whose tail we are collecting
    tail_start = ""
    for message in reversed(messages):
        kept.append(message)
        info = message.info
        if request is not None:
            if info.id == tail_start:
                kept.reverse()
                return _summary_first(kept, request)
            continue
        if isinstance(info, m.UserMessage):
            compaction = _compaction_part(message) if info.id in answered else None
            if compaction is None:
                continue
            if compaction.tail_start_id is None or compaction.tail_start_id == info.id:
                break
            request, tail_start = message, compaction.tail_start_id
        elif _is_completed_summary(info):
            answered.add(info.parent_id)
    if request is not None:
        # The tail's first message is gone (deleted, or never in this history). Keeping everything would
        # undo the compaction and can overflow the context, so stop at the request as if it had no tail.
        kept = kept[: kept.index(request) + 1]
    kept.reverse()
    return kept


def extend_compacted(
    view: Sequence[m.MessageWithParts], added: Sequence[m.MessageWithParts]
) -> list[m.MessageWithParts] | None:
    """`filter_compacted(history + added)` from `view`, the history's own, when `added` cannot change where it
    starts (no completed summary among them: only one moves it); None when it must be worked out again.

    The loop's history grows by a step's answer at a time, so it need not walk the whole session each step.
    """
    if any(isinstance(message.info, m.AssistantMessage) and _is_completed_summary(message.info) for message in added):
        return None
    return [*view, *added]


def _is_completed_summary(info: m.AssistantMessage) -> bool:
    return info.summary and bool(info.finish) and info.error is None


def _compaction_part(message: m.MessageWithParts) -> m.CompactionPart | None:
    return next((p for p in message.parts if isinstance(p, m.CompactionPart)), None)


def _summary_first(history: list[m.MessageWithParts], request: m.MessageWithParts) -> list[m.MessageWithParts]:
    """Reorder `[tail … request … summary, rest …]` as `[request … summary] + [tail …] + [rest …]`."""
    at = history.index(request)
    summary = next(
        (
            i
            for i in range(at + 1, len(history))
            if isinstance(info := history[i].info, m.AssistantMessage)
            and info.parent_id == request.info.id
            and _is_completed_summary(info)
        ),
        None,
    )
    if summary is None:
        return history
    return history[at : summary + 1] + history[:at] + history[summary + 1 :]


Task: TypeAlias = m.CompactionPart | m.SubtaskPart


@frozen
class Latest:
    """What the loop needs to decide its next step: the newest messages by stored position, never by id."""

    user: m.MessageWithParts | None
    assistant: m.MessageWithParts | None
    finished: m.MessageWithParts | None
    """The newest assistant message that has a `finish` reason."""
    tasks: tuple[Task, ...]
    """Compaction and subtask parts on messages newer than `finished` (all messages when none finished)."""
    since_user: tuple[m.MessageWithParts, ...] = ()
    """The messages stored after `user`, oldest first: the answers to it so far."""

    @property
    def turn_finished(self) -> bool:
        """OpenCode's exit test of the loop: the newest answer finished for good, after the newest user message.

        "After" is the stored order (OpenCode compares ids, `lastUser.id < lastAssistant.id`): a session whose
        last stored message is a user message gets an answer, whatever its ids.
        """
        user, answer = self.user, self.assistant
        if user is None or answer is None or not isinstance(answer.info, m.AssistantMessage):
            return False
        if not answer.info.finish or answer.info.finish == "tool-calls":
            return False
        # A "stop" that still carries tool calls keeps going; calls an abort left behind do not count.
        if any(
            isinstance(p, m.ToolPart) and not p.provider_executed and not p.is_orphaned_interrupt for p in answer.parts
        ):
            return False
        return any(message is answer for message in self.since_user)

    @property
    def turn_tool_calls(self) -> list[m.ToolPart]:
        """Tool calls made since the newest user message, oldest first (the doom-loop check's window)."""
        return [
            part
            for message in self.since_user
            if isinstance(message.info, m.AssistantMessage)
            for part in message.parts
            if isinstance(part, m.ToolPart)
        ]


def latest(messages: Sequence[m.MessageWithParts]) -> Latest:
    """The newest user, assistant and finished assistant messages, and pending tasks, in the store's order.

    Newest means last in `messages`, which must be the store's (insertion) order, not `filter_compacted`'s
    view (that puts a summary before the tail it kept). Ids are not compared: an imported OpenCode session's
    ids may sort after the ones Strata makes now (another machine's clock, or the 48-bit wrap-around), and a
    user message stored last must still get an answer.
    """
    user_at = assistant_at = finished_at = -1
    # From the newest back to the newest user and finished messages: a step's cost does not grow with the
    # session (only a session with no finished answer is walked whole).
    for at in range(len(messages) - 1, -1, -1):
        info = messages[at].info
        if isinstance(info, m.UserMessage):
            user_at = at if user_at < 0 else user_at
        else:
            assistant_at = at if assistant_at < 0 else assistant_at
            if finished_at < 0 and info.finish:
                finished_at = at
        if user_at >= 0 and finished_at >= 0:
            break
    tasks = tuple(
        part
        for message in messages[finished_at + 1 :]
        for part in message.parts
        if isinstance(part, m.CompactionPart | m.SubtaskPart)
    )
    return Latest(
        user=messages[user_at] if user_at >= 0 else None,
        assistant=messages[assistant_at] if assistant_at >= 0 else None,
        finished=messages[finished_at] if finished_at >= 0 else None,
        tasks=tasks,
        since_user=tuple(messages[user_at + 1 :]) if user_at >= 0 else (),
    )
