"""The ask/reply flow (reference 12.7-12.8), with configured denies ranking above remembered approvals: the
flow asks its approver (here mostly the bus approver of the server and the terminal, answered by `reply`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
import pytest
from anyio.abc import TaskGroup

from strata_core.bus import Bus, BusEvent, PermissionAsked, PermissionReplied, PermissionRequest
from strata_core.clock import SystemClock
from strata_core.ids import Ids
from strata_core.permission.approval import Approval, NoAnswer, Reject, approve_all
from strata_core.permission.bus_approver import BusApprover
from strata_core.permission.flow import PermissionFlow
from strata_core.permission.rules import (
    CorrectedError,
    DeniedError,
    NoResponderError,
    PermissionRefusedError,
    RejectedError,
    Rule,
    Ruleset,
)

ASK_BASH: Ruleset = (Rule("*", "*", "allow"), Rule("bash", "*", "ask"), Rule("bash", "rm *", "deny"))

Outcome = list[BaseException | None]

IDS = Ids(SystemClock())


def _asking(bus: Bus, timeout: float | None = None) -> tuple[PermissionFlow, BusApprover]:
    """A flow whose questions go out on `bus` and are answered by the returned approver's `reply`."""
    questions = BusApprover(bus)
    return PermissionFlow(IDS, questions, approval_timeout=timeout), questions


def _spawn_ask(
    tg: TaskGroup, flow: PermissionFlow, session_id: str, pattern: str, always: str | None = None
) -> Outcome:
    """Start an ask in the background; the returned list gets None (allowed) or the raised error."""
    outcome: Outcome = []

    async def run() -> None:
        try:
            await flow.ask(session_id, "bash", [pattern], [always or pattern], {}, ASK_BASH)
            outcome.append(None)
        except PermissionRefusedError as error:
            outcome.append(error)

    tg.start_soon(run)
    return outcome


async def _asked(events: Callable[[], Awaitable[BusEvent]]) -> PermissionRequest:
    event = await events()
    assert isinstance(event, PermissionAsked)
    return event.request


@pytest.mark.anyio
async def test_a_denied_pattern_fails_at_once_naming_the_relevant_rules() -> None:
    flow, questions = _asking(Bus())
    with pytest.raises(DeniedError) as caught:
        await flow.ask("ses_1", "bash", ["ls", "rm -rf /"], ["*"], {}, ASK_BASH)
    assert '"pattern": "rm *", "action": "deny"' in str(caught.value)
    assert questions.pending() == []


@pytest.mark.anyio
async def test_allowed_calls_pass_without_asking() -> None:
    bus = Bus()
    flow, _ = _asking(bus)
    async with bus.subscribe() as events:
        await flow.ask("ses_1", "read", ["src/a.py"], ["*"], {}, ASK_BASH)
        assert events.statistics().current_buffer_used == 0


@pytest.mark.anyio
async def test_once_lets_one_call_through_and_remembers_nothing() -> None:
    bus = Bus()
    flow, questions = _asking(bus)
    async with bus.subscribe() as events, anyio.create_task_group() as tg:
        outcome = _spawn_ask(tg, flow, "ses_1", "ls -la", "ls *")
        request = await _asked(events.receive)
        assert (request.permission, request.patterns, request.always) == ("bash", ("ls -la",), ("ls *",))
        questions.reply(request.id, "once")
        assert await events.receive() == PermissionReplied("ses_1", request.id, "once")
    assert outcome == [None]
    assert flow.approvals("ses_1") == ()


@pytest.mark.anyio
async def test_reject_with_feedback_corrects_and_cascades_to_the_sessions_other_questions() -> None:
    bus = Bus()
    flow, questions = _asking(bus)
    async with bus.subscribe() as events, anyio.create_task_group() as tg:
        first = _spawn_ask(tg, flow, "ses_1", "make")
        first_request = await _asked(events.receive)
        second = _spawn_ask(tg, flow, "ses_1", "make test")
        await _asked(events.receive)
        elsewhere = _spawn_ask(tg, flow, "ses_2", "make")
        elsewhere_request = await _asked(events.receive)
        questions.reply(first_request.id, "reject", "use the Makefile target instead")
        questions.reply(elsewhere_request.id, "once")
    assert isinstance(first[0], CorrectedError)
    assert "following feedback: use the Makefile target instead" in str(first[0])
    assert isinstance(second[0], RejectedError)
    assert str(second[0]) == "The user rejected permission to use this specific tool call."
    assert elsewhere == [None]


@pytest.mark.anyio
async def test_always_is_remembered_for_the_session_and_resolves_matching_pending_questions() -> None:
    bus = Bus()
    flow, questions = _asking(bus)
    async with bus.subscribe() as events, anyio.create_task_group() as tg:
        first = _spawn_ask(tg, flow, "ses_1", "git status", "git status *")
        first_request = await _asked(events.receive)
        matching = _spawn_ask(tg, flow, "ses_1", "git status --short")
        await _asked(events.receive)
        other = _spawn_ask(tg, flow, "ses_1", "git push")
        other_request = await _asked(events.receive)
        questions.reply(first_request.id, "always")
        await anyio.wait_all_tasks_blocked()
        assert matching == [None]
        assert other == []
        assert [r.id for r in questions.pending("ses_1")] == [other_request.id]
        questions.reply(other_request.id, "once")
    assert first == [None]
    assert flow.approvals("ses_1") == (Rule("bash", "git status *", "allow"),)
    # Later calls in the session pass silently; another session is still asked.
    await flow.ask("ses_1", "bash", ["git status -v"], ["*"], {}, ASK_BASH)
    with pytest.raises(NoResponderError):
        await PermissionFlow(IDS).ask("ses_1", "bash", ["git status"], ["*"], {}, ASK_BASH)


@pytest.mark.anyio
async def test_a_remembered_always_never_overrides_a_configured_deny() -> None:
    bus = Bus()
    flow, questions = _asking(bus)
    async with bus.subscribe() as events, anyio.create_task_group() as tg:
        _spawn_ask(tg, flow, "ses_1", "echo hi", "*")
        questions.reply((await _asked(events.receive)).id, "always")
    assert flow.approvals("ses_1") == (Rule("bash", "*", "allow"),)
    await flow.ask("ses_1", "bash", ["anything"], ["*"], {}, ASK_BASH)
    with pytest.raises(DeniedError):
        await flow.ask("ses_1", "bash", ["rm -rf build"], ["*"], {}, ASK_BASH)


@pytest.mark.anyio
async def test_without_an_approver_asks_are_refused_at_once_in_the_librarys_words() -> None:
    flow = PermissionFlow(IDS)
    with anyio.fail_after(1), pytest.raises(NoResponderError) as caught:
        await flow.ask("ses_1", "bash", ["make"], ["make *"], {}, ASK_BASH)
    assert "needs approval, but no one is here to approve it: this runtime was opened without an approver" in str(
        caught.value
    )
    assert "--" not in str(caught.value)  # no command-line flag: a library user has none


@pytest.mark.anyio
async def test_approve_all_approves_asks_but_not_denies() -> None:
    flow = PermissionFlow(IDS, approve_all)
    await flow.ask("ses_1", "bash", ["make"], ["*"], {}, ASK_BASH)
    with pytest.raises(DeniedError):
        await flow.ask("ses_1", "bash", ["rm x"], ["*"], {}, ASK_BASH)


@pytest.mark.anyio
async def test_a_cancelled_ask_withdraws_its_question() -> None:
    bus = Bus()
    flow, questions = _asking(bus)
    async with bus.subscribe() as events:
        with anyio.move_on_after(0.05):
            await flow.ask("ses_1", "bash", ["make"], ["*"], {}, ASK_BASH)
        request = await _asked(events.receive)
        assert await events.receive() == PermissionReplied("ses_1", request.id, "reject")
    assert questions.pending() == []
    questions.reply(request.id, "once")  # too late: ignored


@pytest.mark.anyio
async def test_with_an_approval_timeout_an_unanswered_question_fails_and_is_withdrawn() -> None:
    bus = Bus()
    flow, questions = _asking(bus, timeout=0.05)
    async with bus.subscribe() as events:
        with pytest.raises(NoResponderError) as caught:
            await flow.ask("ses_1", "bash", ["ls"], ["ls"], {}, ASK_BASH)
        asked, withdrawn = events.receive_nowait(), events.receive_nowait()
    assert "needs approval, but nobody answered within 0.05 s" in str(caught.value)
    assert isinstance(asked, PermissionAsked) and isinstance(withdrawn, PermissionReplied)
    assert withdrawn.reply == "reject" and questions.pending() == []


@pytest.mark.anyio
async def test_an_async_approver_is_asked_what_the_rules_leave_open_and_its_answers_count() -> None:
    asked: list[PermissionRequest] = []

    async def approver(request: PermissionRequest) -> Approval:
        asked.append(request)
        if request.patterns == ("make",):
            return "always"
        return Reject("run the tests with tox") if request.patterns == ("pytest",) else NoAnswer("the desk is closed")

    flow = PermissionFlow(IDS, approver)
    await flow.ask("ses_1", "read", ["a.py"], ["*"], {}, ASK_BASH)  # allowed by rule: not asked
    await flow.ask("ses_1", "bash", ["make"], ["make"], {"command": "make"}, ASK_BASH)
    await flow.ask("ses_1", "bash", ["make"], ["make"], {}, ASK_BASH)  # remembered: not asked again
    with pytest.raises(CorrectedError, match="following feedback: run the tests with tox"):
        await flow.ask("ses_1", "bash", ["pytest"], ["pytest"], {}, ASK_BASH)
    with pytest.raises(NoResponderError, match="needs approval, but the desk is closed"):
        await flow.ask("ses_1", "bash", ["tox"], ["tox"], {}, ASK_BASH)
    assert [(r.patterns, dict(r.metadata)) for r in asked] == [
        (("make",), {"command": "make"}),
        (("pytest",), {}),
        (("tox",), {}),
    ]


@pytest.mark.anyio
async def test_an_approver_that_never_answers_is_cut_short_by_the_timeout_and_by_a_reject_elsewhere() -> None:
    answered = anyio.Event()

    async def approver(request: PermissionRequest) -> Approval:
        if request.patterns == ("no",):
            await answered.wait()
            return "reject"
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    with pytest.raises(NoResponderError, match=r"nobody answered within 0\.01 s"):
        await PermissionFlow(IDS, approver, approval_timeout=0.01).ask("ses_1", "bash", ["x"], ["x"], {}, ASK_BASH)
    flow = PermissionFlow(IDS, approver)
    async with anyio.create_task_group() as tg:
        waiting = _spawn_ask(tg, flow, "ses_1", "ls")
        refused = _spawn_ask(tg, flow, "ses_1", "no")
        await anyio.wait_all_tasks_blocked()
        answered.set()
    assert isinstance(refused[0], RejectedError) and isinstance(waiting[0], RejectedError)
