"""Reminders: synthetic parts for plan and build, experimental plan mode, queued messages, fixed texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata_core.clock import SystemClock
from strata_core.ids import Ids
from strata_core.message import (
    AssistantMessage,
    MessageTime,
    MessageWithParts,
    ModelRef,
    Part,
    PathInfo,
    TextPart,
    UserMessage,
)
from strata_core.prompt.reminders import (
    STRUCTURED_OUTPUT_SYSTEM_PROMPT,
    apply_plan_mode,
    apply_reminders,
    build_switch_reminder,
    experimental_plan_mode,
    max_steps_prefill,
    plan_mode_reminder,
    plan_mode_step,
    plan_reminder,
    queued_user_message,
    structured_output_tool_description,
    wrap_queued_user_messages,
)
from strata_core.texts import read_prompt

IDS = Ids(SystemClock())


def user(id: str, *texts: str, agent: str = "build") -> MessageWithParts:
    info = UserMessage(id=id, session_id="ses_1", time=MessageTime(created=1), agent=agent, model=ModelRef("p", "m"))
    parts: list[Part] = [
        TextPart(id=f"prt_{id}_{n}", session_id="ses_1", message_id=id, text=text) for n, text in enumerate(texts)
    ]
    return MessageWithParts(info=info, parts=parts)


def assistant(id: str, agent: str) -> MessageWithParts:
    info = AssistantMessage(
        id=id,
        session_id="ses_1",
        parent_id="msg_0",
        time=MessageTime(created=1),
        model_id="m",
        provider_id="p",
        mode=agent,
        agent=agent,
        path=PathInfo(cwd="/", root="/"),
        finish="stop",
    )
    return MessageWithParts(info=info, parts=[])


def synthetic_texts(message: MessageWithParts) -> list[str]:
    return [p.text for p in message.parts if isinstance(p, TextPart) and p.synthetic]


# --- default reminders ----------------------------------------------------------------------------------


def test_plan_agent_gets_the_plan_reminder_on_the_last_user_message_only() -> None:
    messages = [user("msg_1", "first"), assistant("msg_2", "build"), user("msg_3", "plan this")]
    result = apply_reminders(messages, "plan", IDS)
    assert synthetic_texts(result[2]) == [plan_reminder()]
    assert synthetic_texts(result[0]) == []
    part = result[2].parts[-1]
    assert isinstance(part, TextPart)
    assert (part.session_id, part.message_id, part.id.startswith("prt_")) == ("ses_1", "msg_3", True)


def test_reminders_never_touch_the_stored_messages() -> None:
    last = user("msg_3", "plan this")
    original_parts = last.parts
    messages = [assistant("msg_2", "plan"), last]
    result = apply_reminders(messages, "plan", IDS)
    assert result is not messages
    assert last.parts is original_parts and len(last.parts) == 1
    assert result[1] is not last and result[1].info is last.info
    assert result[0] is messages[0]


def test_build_gets_the_build_switch_while_any_plan_answer_is_in_history() -> None:
    messages = [user("msg_1", "plan"), assistant("msg_2", "plan"), user("msg_3", "go"), assistant("msg_4", "build")]
    messages.append(user("msg_5", "continue"))
    result = apply_reminders(messages, "build", IDS)
    assert synthetic_texts(result[-1]) == [build_switch_reminder()]


def test_no_build_switch_without_a_plan_answer_or_for_other_agents() -> None:
    assert synthetic_texts(apply_reminders([assistant("msg_1", "build"), user("msg_2", "x")], "build", IDS)[-1]) == []
    plan_history = [assistant("msg_1", "plan"), user("msg_2", "x")]
    assert synthetic_texts(apply_reminders(plan_history, "general", IDS)[-1]) == []


def test_without_a_user_message_nothing_changes() -> None:
    messages = [assistant("msg_1", "plan")]
    assert apply_reminders(messages, "plan", IDS) == messages


# --- queued user messages -------------------------------------------------------------------------------


def test_queued_user_message_wrapper_is_exact() -> None:
    assert queued_user_message("also fix the docs") == (
        "<system-reminder>\n"
        "The user sent the following message:\n"
        "also fix the docs\n"
        "\n"
        "Please address this message and continue with your tasks.\n"
        "</system-reminder>"
    )


def test_only_real_text_of_messages_after_the_last_finished_answer_is_wrapped() -> None:
    queued = user("msg_5", "new request", "   ")
    synthetic = TextPart(id="prt_s", session_id="ses_1", message_id="msg_5", text="synthetic", synthetic=True)
    ignored = TextPart(id="prt_i", session_id="ses_1", message_id="msg_5", text="ignored", ignored=True)
    queued.parts += [synthetic, ignored]
    earlier = user("msg_1", "old request")
    result = wrap_queued_user_messages([earlier, assistant("msg_2", "build"), queued], "msg_2")
    assert result[0] is earlier
    texts = [p.text for p in result[2].parts if isinstance(p, TextPart)]
    assert texts == [queued_user_message("new request"), "   ", "synthetic", "ignored"]
    first = queued.parts[0]
    assert isinstance(first, TextPart) and first.text == "new request"  # the stored part is unchanged


# --- experimental plan mode -----------------------------------------------------------------------------


def test_experimental_plan_mode_flag_accepts_both_prefixes_and_the_umbrella_flag() -> None:
    assert not experimental_plan_mode({})
    assert experimental_plan_mode({"STRATA_EXPERIMENTAL_PLAN_MODE": "1"})
    assert experimental_plan_mode({"OPENCODE_EXPERIMENTAL_PLAN_MODE": "true"})
    assert experimental_plan_mode({"OPENCODE_EXPERIMENTAL": "TRUE"})
    assert not experimental_plan_mode({"STRATA_EXPERIMENTAL_PLAN_MODE": "yes"})


def test_entering_plan_mode_adds_the_workflow_with_where_to_write_the_plan(tmp_path: Path) -> None:
    plan = tmp_path / "plans" / "1-x.md"
    update = apply_plan_mode([assistant("msg_1", "build"), user("msg_2", "plan it")], "plan", plan, False, IDS)
    info = f"No plan file exists yet. You should create your plan at {plan} using the write tool."
    assert synthetic_texts(update.messages[-1]) == [plan_mode_reminder(info)]
    assert update.new_parts == update.messages[-1].parts[-1:]
    existing = apply_plan_mode([user("msg_2", "plan it")], "plan", plan, True, IDS)
    assert (
        f"A plan file already exists at {plan}. You can read it and make incremental edits"
        in existing.new_parts[0].text
    )


def test_staying_in_plan_mode_adds_nothing(tmp_path: Path) -> None:
    update = apply_plan_mode([assistant("msg_1", "plan"), user("msg_2", "more")], "plan", tmp_path / "p.md", False, IDS)
    assert update.new_parts == []
    assert synthetic_texts(update.messages[-1]) == []


def test_leaving_plan_mode_adds_the_build_switch_and_points_at_an_existing_plan(tmp_path: Path) -> None:
    plan = tmp_path / "p.md"
    messages = [assistant("msg_1", "plan"), user("msg_2", "go")]
    assert [p.text for p in apply_plan_mode(messages, "build", plan, False, IDS).new_parts] == [build_switch_reminder()]
    with_plan = apply_plan_mode(messages, "build", plan, True, IDS).new_parts[0].text
    assert with_plan == (
        f"{build_switch_reminder()}\n\nA plan file exists at {plan}. You should execute on the plan defined within it"
    )


def test_plan_mode_step_creates_the_plan_directory_only_when_entering(tmp_path: Path) -> None:
    plan = tmp_path / "repo" / ".strata" / "plans" / "1-x.md"
    plan_mode_step([assistant("msg_1", "plan"), user("msg_2", "go")], "build", plan, IDS)
    assert not plan.parent.exists()
    update = plan_mode_step([user("msg_2", "plan it")], "plan", plan, IDS)
    assert plan.parent.is_dir()
    assert "No plan file exists yet" in update.new_parts[0].text


# --- fixed texts ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["plan", "build_switch", "plan_mode"])
def test_reminder_texts_are_wrapped_in_system_reminder_tags(name: str) -> None:
    text = read_prompt(f"reminders/{name}.txt").strip()
    assert text.startswith("<system-reminder>\n")
    assert text.endswith("\n</system-reminder>")


def test_plan_mode_text_has_exactly_one_plan_info_placeholder() -> None:
    assert read_prompt("reminders/plan_mode.txt").count("${planInfo}") == 1
    assert "${planInfo}" not in plan_mode_reminder("HERE")
    assert "HERE" in plan_mode_reminder("HERE")


def test_structured_output_strings() -> None:
    assert STRUCTURED_OUTPUT_SYSTEM_PROMPT == (
        "IMPORTANT: The user has requested structured output. You MUST use the StructuredOutput tool to provide "
        "your final response. Do NOT respond with plain text - you MUST call the StructuredOutput tool with your "
        "answer formatted according to the schema."
    )
    assert "exactly once" in structured_output_tool_description()


def test_max_steps_prefill_asks_for_a_text_only_summary() -> None:
    text = max_steps_prefill()
    assert "do not call any more tools" in text.lower()
    assert len(text) < 1_000
