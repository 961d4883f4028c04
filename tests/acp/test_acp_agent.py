"""`strata acp` as a real subprocess, driven over stdio by the `agent-client-protocol` library's client, against
the scripted model server: the scenarios of issue 27, with the shapes `opencode acp` sent for them
(tests/acp/transcripts/opencode-1.18.33)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from acp import RequestError, text_block
from acp_client import FS_CLIENT, STRATA_ACP, AgentProcess, acp_agent, configure

from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio


async def started(agent: AgentProcess, project: Path) -> str:
    await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
    session = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
    agent.clear()
    return session.session_id


async def say(agent: AgentProcess, session_id: str, text: str) -> str:
    answer = await agent.conn.prompt(session_id=session_id, prompt=[text_block(text)])
    return answer.stop_reason


async def test_initialize_and_new_session_offer_opencodes_capabilities_and_config_options(
    project: Path, env: dict[str, str]
) -> None:
    with ScriptedServer([]) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            init = await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            session = await agent.conn.new_session(cwd=str(project), mcp_servers=[])

    capabilities = init.agent_capabilities
    assert init.protocol_version == 1
    assert capabilities is not None and capabilities.load_session
    assert capabilities.prompt_capabilities is not None and capabilities.prompt_capabilities.image
    assert capabilities.prompt_capabilities.embedded_context
    sessions = capabilities.session_capabilities
    assert sessions is not None and all([sessions.close, sessions.fork, sessions.list, sessions.resume])
    assert init.agent_info is not None and init.agent_info.name == "Strata"
    assert session.session_id.startswith("ses_")
    assert session.modes is None
    options = {option.id: option for option in session.config_options or []}
    assert set(options) == {"model", "mode"}
    model, mode = options["model"], options["mode"]
    assert model.current_value == "mock/gpt-4o-mock"
    assert "mock/gpt-4o-mock" in [choice.value for choice in model.options]
    assert mode.current_value == "build"
    assert {"build", "plan"} <= {choice.value for choice in mode.options}


async def test_a_text_turn_streams_the_answer_and_ends_the_turn(project: Path, env: dict[str, str]) -> None:
    with ScriptedServer([{"text": "Hello there."}]) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            stop = await say(agent, session_id, "say hello")

    assert stop == "end_turn"
    chunks = [u["content"]["text"] for u in agent.updates() if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(chunks) == "Hello there."
    assert server.main_requests[0].body["messages"][-1]["content"] == "say hello"


async def test_a_read_goes_pending_in_progress_completed_with_the_file_text(project: Path, env: dict[str, str]) -> None:
    notes = str(project / "notes.txt")
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "read", "arguments": {"filePath": notes}}]},
        {"text": "Two lines."},
    ]
    with ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            stop = await say(agent, session_id, "read the notes")

    assert stop == "end_turn"
    assert agent.tool_statuses() == [
        ("tool_call", "read", "pending"),
        ("tool_call_update", "read", "in_progress"),
        ("tool_call_update", None, "completed"),
    ]
    updates = [u for u in agent.updates() if u["sessionUpdate"] == "tool_call_update"]
    assert updates[0]["locations"] == [{"path": notes}]
    assert updates[1]["content"] == [{"type": "content", "content": {"type": "text", "text": "alpha\nbeta"}}]
    assert agent.update_kinds() == ["tool_call", "tool_call_update", "agent_message_chunk"]


async def test_an_allowed_write_is_made_and_handed_to_the_editor_and_a_rejected_command_fails(
    project: Path, env: dict[str, str]
) -> None:
    new = project / "new.txt"
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(new), "content": "fresh\n"}}]},
        {"text": "Wrote it."},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "touch ran", "description": "Touch"}}]},
    ]
    with ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            agent.permission_answers.append("once")
            allowed = await say(agent, session_id, "write new.txt")
            write_statuses = agent.tool_statuses()
            agent.clear()
            agent.permission_answers.append("reject")
            rejected = await say(agent, session_id, "touch a file")

    assert allowed == rejected == "end_turn"
    assert new.read_text() == "fresh\n"
    assert agent.client.writes == [(str(new), "fresh\n")]
    edit_question, bash_question = agent.client.permission_requests
    assert [option.kind for option in edit_question["options"]] == ["allow_once", "allow_always", "reject_once"]
    diff = edit_question["toolCall"].content[0]
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == ("diff", str(new), "", "fresh\n")
    assert write_statuses[-1] == ("tool_call_update", None, "completed")
    assert agent.tool_statuses()[-1] == ("tool_call_update", "execute", "failed")
    assert bash_question["toolCall"].kind == "execute"
    assert not (project / "ran").exists()


async def test_cancel_during_a_long_command_ends_the_prompt_cancelled(project: Path, env: dict[str, str]) -> None:
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30", "description": "Wait"}}]}
    ]
    with ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            agent.permission_answers.append("once")
            stop = "none"
            async with anyio.create_task_group() as group:

                async def prompt() -> None:
                    nonlocal stop
                    stop = await say(agent, session_id, "wait")

                group.start_soon(prompt)
                with anyio.fail_after(30):
                    await agent.until(lambda: ("tool_call_update", "execute", "in_progress") in agent.tool_statuses())
                with pytest.raises(RequestError) as busy:
                    await say(agent, session_id, "and another thing")
                await agent.conn.cancel(session_id=session_id)
                with anyio.fail_after(10):
                    await agent.until(lambda: any("result" in message for _, message in agent.transcript[-1:]))

    assert stop == "cancelled"
    assert busy.value.code == -32600 and "already running" in str(busy.value.data)


async def test_a_cancelled_command_ends_completed_with_the_abort_note_as_in_opencode(
    project: Path, env: dict[str, str]
) -> None:
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "touch started && sleep 30", "description": "Wait"}}]}
    ]
    with ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            agent.permission_answers.append("once")
            async with anyio.create_task_group() as group:
                group.start_soon(say, agent, session_id, "wait")
                # The command itself must be running: a cancel that lands before the tool starts its process
                # ends the call as aborted (failed), as in OpenCode, which is not this test's case.
                with anyio.fail_after(30):
                    while not (project / "started").exists():  # noqa: ASYNC110 (a file, no event to wait on)
                        await anyio.sleep(0.02)
                await agent.conn.cancel(session_id=session_id)

    last = [u for u in agent.updates() if u["sessionUpdate"] == "tool_call_update"][-1]
    assert last["status"] == "completed"
    assert "User aborted the command" in json.dumps(last["content"])


async def test_plan_mode_and_a_model_choice_apply_to_the_next_request(project: Path, env: dict[str, str]) -> None:
    with ScriptedServer([{"text": "Planned."}]) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            await agent.conn.set_session_mode(session_id=session_id, mode_id="plan")
            changed = await agent.conn.set_config_option(session_id=session_id, config_id="mode", value="plan")
            stop = await say(agent, session_id, "make a plan")

    assert stop == "end_turn"
    modes = [o for o in changed.config_options if getattr(o, "id", None) == "mode"]
    assert modes[0].current_value == "plan"
    assert "Plan mode is active" in str(server.main_requests[0].body["messages"])


async def test_a_second_process_loads_the_session_replaying_its_history(project: Path, env: dict[str, str]) -> None:
    notes = str(project / "notes.txt")
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "read", "arguments": {"filePath": notes}}]},
        {"text": "Two lines."},
        {"text": "Still here."},
    ]
    with ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as first:
            session_id = await started(first, project)
            await say(first, session_id, "read the notes")
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as second:
            await second.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            await second.conn.load_session(cwd=str(project), session_id=session_id, mcp_servers=[])
            replayed = second.update_kinds()
            texts = [
                u["content"]["text"]
                for u in second.updates()
                if "content" in u and u["sessionUpdate"].endswith("chunk")
            ]
            listed = await second.conn.list_sessions(cwd=str(project))
            forked = await second.conn.fork_session(session_id=session_id, cwd=str(project), mcp_servers=[])
            second.clear()
            stop = await say(second, session_id, "still there?")
            await second.conn.close_session(session_id=session_id)

    assert replayed == ["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]
    assert texts == ["read the notes", "Two lines."]
    assert session_id in [info.session_id for info in listed.sessions]
    assert forked.session_id != session_id
    assert stop == "end_turn"
    assert "read the notes" in str(server.main_requests[-1].body["messages"])


async def test_bad_input_gets_a_json_rpc_error_and_the_agent_keeps_serving(project: Path, env: dict[str, str]) -> None:
    with ScriptedServer([{"text": "Fine."}]) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            with pytest.raises(RequestError) as unknown:
                await say(agent, "ses_nope", "hello")
            with pytest.raises(RequestError) as bad_mode:
                await agent.conn.set_session_mode(session_id=session_id, mode_id="nonesuch")
            with pytest.raises(RequestError) as bad_option:
                await agent.conn.set_config_option(session_id=session_id, config_id="colour", value="red")
            stop = await say(agent, session_id, "hello")

    assert unknown.value.code == -32602 and "session not found: ses_nope" in str(unknown.value)
    assert bad_mode.value.code == bad_option.value.code == -32602
    assert stop == "end_turn"


async def test_the_projects_commands_are_listed_and_a_slash_prompt_runs_one(project: Path, env: dict[str, str]) -> None:
    with ScriptedServer([{"text": "Hello, world."}]) as server:
        configure(project, server.base_url)
        config = json.loads((project / "opencode.json").read_text())
        config["command"] = {"greet": {"template": "Greet $ARGUMENTS warmly.", "description": "Say hello"}}
        (project / "opencode.json").write_text(json.dumps(config))
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            session = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
            with anyio.fail_after(30):
                await agent.until(lambda: "available_commands_update" in agent.update_kinds(drop=()))
            stop = await say(agent, session.session_id, "/greet the team")

    listed = next(u for u in agent.updates() if u["sessionUpdate"] == "available_commands_update")
    commands = {command["name"]: command["description"] for command in listed["availableCommands"]}
    assert commands["greet"] == "Say hello"
    assert {"init", "review"} <= set(commands)
    assert stop == "end_turn"
    assert "Greet the team warmly." in str(server.main_requests[0].body["messages"][-1])


async def test_always_allow_is_remembered_for_the_session(project: Path, env: dict[str, str]) -> None:
    echo = {"name": "bash", "arguments": {"command": "echo hi", "description": "Say hi"}}
    script: list[dict[str, Any]] = [
        {"tool_calls": [echo]},
        {"text": "Once."},
        {"tool_calls": [echo]},
        {"text": "Twice."},
    ]
    with ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            agent.permission_answers.append("always")
            first = await say(agent, session_id, "say hi")
            second = await say(agent, session_id, "say hi again")

    assert first == second == "end_turn"
    assert len(agent.client.permission_requests) == 1
    completed = [status for status in agent.tool_statuses() if status[2] == "completed"]
    assert len(completed) == 2


async def test_malformed_messages_get_json_rpc_errors_on_a_clean_stdout(project: Path, env: dict[str, str]) -> None:
    lines = [
        "this is not json",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"sessionId": 5}}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/nonesuch", "params": {}}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": 1}}),
    ]
    with ScriptedServer([]) as server:
        configure(project, server.base_url)
        done = await anyio.run_process(STRATA_ACP, input="\n".join(lines).encode() + b"\n", cwd=project, env=env)

    answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
    by_id = {answer.get("id"): answer for answer in answers}
    assert by_id[1]["error"]["code"] == -32602
    assert by_id[2]["error"]["code"] == -32601
    assert by_id[3]["result"]["protocolVersion"] == 1
    assert all(answer["jsonrpc"] == "2.0" for answer in answers)


def test_a_file_as_stdout_is_refused_with_a_clear_message(project: Path, env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    with out.open("w") as stdout:
        done = subprocess.run(
            STRATA_ACP,
            stdout=stdout,
            stderr=subprocess.PIPE,
            cwd=project,
            env=env,
            input=b"",
            check=False,
        )
    assert done.returncode == 1
    assert "standard output is a file" in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()
    assert out.read_text() == ""


async def test_reasoning_streams_as_thought_chunks_and_the_todo_list_as_a_plan(
    project: Path, env: dict[str, str]
) -> None:
    todos = [{"content": "Read the notes", "status": "in_progress", "priority": "high"}]
    script: list[dict[str, Any]] = [
        {"reasoning": "Let me think.", "tool_calls": [{"name": "todowrite", "arguments": {"todos": todos}}]},
        {"text": "Planned.", "chunk_size": 3},
    ]
    with ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            stop = await say(agent, session_id, "plan it")

    assert stop == "end_turn"
    updates = agent.updates()
    thoughts = "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_thought_chunk")
    answer = "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")
    assert (thoughts, answer) == ("Let me think.", "Planned.")
    plans = [u for u in updates if u["sessionUpdate"] == "plan"]
    assert plans[-1]["entries"] == [{"content": "Read the notes", "status": "in_progress", "priority": "high"}]
    assert agent.update_kinds()[0] == "agent_thought_chunk"
