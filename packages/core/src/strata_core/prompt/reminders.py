"""Synthetic text the loop adds to the conversation: plan and build-switch reminders, plan mode, max steps.

Everything here is a pure function over messages. The functions return a NEW list in which only the changed
message is a copy (with a new parts list), so the stored messages and parts are never touched. OpenCode
mutates its in-memory list instead (`session/reminders.ts`); the result sent to the model is the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from attrs import evolve, frozen

from strata_core.config.flags import env_flag
from strata_core.ids import Ids
from strata_core.message import AssistantMessage, MessageWithParts, TextPart, UserMessage
from strata_core.texts import read_prompt

PLAN_AGENT = "plan"
BUILD_AGENT = "build"
STRUCTURED_OUTPUT_TOOL_NAME = "StructuredOutput"
STRUCTURED_OUTPUT_SYSTEM_PROMPT = (
    "IMPORTANT: The user has requested structured output. You MUST use the StructuredOutput tool to provide "
    "your final response. Do NOT respond with plain text - you MUST call the StructuredOutput tool with your "
    "answer formatted according to the schema."
)
"""An interface string (reference 1.4): the exact line OpenCode adds to the system prompt."""
PLAN_INFO_PLACEHOLDER = "${planInfo}"


# ---------------------------------------------------------------------------------------------------------
# Texts


def plan_reminder() -> str:
    return read_prompt("reminders/plan.txt")


def build_switch_reminder() -> str:
    return read_prompt("reminders/build_switch.txt")


def plan_mode_reminder(plan_info: str) -> str:
    """The experimental plan-mode workflow, told where its plan file is."""
    return read_prompt("reminders/plan_mode.txt").replace(PLAN_INFO_PLACEHOLDER, plan_info)


def max_steps_prefill() -> str:
    """The trailing assistant message sent once an agent reaches its step limit (tools stay available)."""
    return read_prompt("reminders/max_steps.txt")


def structured_output_tool_description() -> str:
    return read_prompt("reminders/structured_output_tool.txt")


def queued_user_message(text: str) -> str:
    """A user message that arrived while the agent was working, wrapped so the model addresses it."""
    return "\n".join(
        [
            "<system-reminder>",
            "The user sent the following message:",
            text,
            "",
            "Please address this message and continue with your tasks.",
            "</system-reminder>",
        ]
    )


# ---------------------------------------------------------------------------------------------------------
# Adding parts without touching stored objects


def _last_index(messages: Sequence[MessageWithParts], role: str) -> int | None:
    return next((i for i in range(len(messages) - 1, -1, -1) if messages[i].info.role == role), None)


def synthetic_text_part(message: UserMessage, text: str, part_id: str) -> TextPart:
    return TextPart(id=part_id, session_id=message.session_id, message_id=message.id, text=text, synthetic=True)


def _append_to_last_user(
    messages: Sequence[MessageWithParts], texts: Sequence[str], ids: Ids
) -> tuple[list[MessageWithParts], list[TextPart]]:
    result = list(messages)
    index = _last_index(messages, "user")
    if index is None or not texts:
        return result, []
    target = messages[index]
    assert isinstance(target.info, UserMessage)
    added = [synthetic_text_part(target.info, text, ids.new("prt")) for text in texts]
    result[index] = MessageWithParts(info=target.info, parts=[*target.parts, *added])
    return result, added


def apply_reminders(messages: Sequence[MessageWithParts], agent_name: str, ids: Ids) -> list[MessageWithParts]:
    """The default reminders, added in memory on every step (never persisted).

    - the plan agent gets the read-only plan reminder;
    - the build agent gets the build-switch reminder while any plan-agent answer is in the history. This
      repeats on every build step until compaction drops that answer, as OpenCode 1.15 does.
    """
    texts: list[str] = []
    if agent_name == PLAN_AGENT:
        texts.append(plan_reminder())
    if agent_name == BUILD_AGENT and any(
        isinstance(m.info, AssistantMessage) and m.info.agent == PLAN_AGENT for m in messages
    ):
        texts.append(build_switch_reminder())
    return _append_to_last_user(messages, texts, ids)[0]


def wrap_queued_user_messages(messages: Sequence[MessageWithParts], last_finished_id: str) -> list[MessageWithParts]:
    """Wrap the real text of user messages sent after the last finished answer (from step 2 of a turn on)."""
    result: list[MessageWithParts] = []
    for message in messages:
        if not (isinstance(message.info, UserMessage) and message.info.id > last_finished_id):
            result.append(message)
            continue
        parts = [
            evolve(part, text=queued_user_message(part.text))
            if isinstance(part, TextPart) and not part.synthetic and not part.ignored and part.text.strip()
            else part
            for part in message.parts
        ]
        result.append(MessageWithParts(info=message.info, parts=parts))
    return result


# ---------------------------------------------------------------------------------------------------------
# Experimental plan mode: a plan file (`context/plan_file.py`), reminders that are persisted


def experimental_plan_mode(env: Mapping[str, str]) -> bool:
    """`STRATA_EXPERIMENTAL_PLAN_MODE` (or `STRATA_EXPERIMENTAL`, or the `OPENCODE_` names)."""
    return env_flag(env, "EXPERIMENTAL_PLAN_MODE") or env_flag(env, "EXPERIMENTAL")


@frozen
class PlanModeUpdate:
    messages: list[MessageWithParts]
    new_parts: list[TextPart]
    """Parts to persist (plan mode reminders are stored, unlike the default ones)."""


def _plan_info(plan_file: Path, plan_exists: bool) -> str:
    if plan_exists:
        return (
            f"A plan file already exists at {plan_file}. "
            "You can read it and make incremental edits using the edit tool."
        )
    return f"No plan file exists yet. You should create your plan at {plan_file} using the write tool."


def apply_plan_mode(
    messages: Sequence[MessageWithParts], agent_name: str, plan_file: Path, plan_exists: bool, ids: Ids
) -> PlanModeUpdate:
    """Plan-mode reminders: entering plan mode, or leaving it for another agent.

    The caller checks whether the plan file exists (and creates its directory on entering plan mode).
    """
    index = _last_index(messages, "assistant")
    last_agent = messages[index].info.agent if index is not None else None
    if agent_name != PLAN_AGENT and last_agent == PLAN_AGENT:
        text = build_switch_reminder()
        if plan_exists:
            text += f"\n\nA plan file exists at {plan_file}. You should execute on the plan defined within it"
    elif agent_name == PLAN_AGENT and last_agent != PLAN_AGENT:
        text = plan_mode_reminder(_plan_info(plan_file, plan_exists))
    else:
        return PlanModeUpdate(list(messages), [])
    updated, added = _append_to_last_user(messages, [text], ids)
    return PlanModeUpdate(updated, added)


def plan_mode_step(messages: Sequence[MessageWithParts], agent_name: str, plan_file: Path, ids: Ids) -> PlanModeUpdate:
    """`apply_plan_mode` with the file checks done: whether the plan exists, and its directory on entering."""
    exists = plan_file.exists()
    update = apply_plan_mode(messages, agent_name, plan_file, exists, ids)
    if update.new_parts and agent_name == PLAN_AGENT and not exists:
        plan_file.parent.mkdir(parents=True, exist_ok=True)
    return update
