"""The opt-in pytest plugin, as an application's test suite uses it (each case a pytest run of its own)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONFTEST = 'pytest_plugins = ["strata_providers.testing.pytest_plugin"]\n'

APP_TESTS = """
import urllib.request

import pytest

from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.message import TextPart
from strata_providers.testing import ScriptExhaustedError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.parametrize("model_script", [[{"text": "Hello from the script."}]])
async def test_a_turn_on_the_parametrized_script(strata_runtime, scripted_model):
    session = await strata_runtime.sessions.create()
    answer = await strata_runtime.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
    assert [p.text for p in answer.parts if isinstance(p, TextPart)] == ["Hello from the script."]
    assert scripted_model.turns_used == 1 and strata_runtime.models.default_model() is scripted_model


async def test_the_default_script_is_empty_so_a_turn_fails_loudly(strata_runtime):
    session = await strata_runtime.sessions.create()
    with pytest.raises(ScriptExhaustedError, match="turn #1 was asked for"):
        await strata_runtime.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))


async def test_the_runtime_works_in_a_fresh_project(strata_runtime, strata_project, tmp_path):
    assert strata_runtime.project.directory == strata_project.resolve()
    assert strata_project.parent == tmp_path and list(strata_project.iterdir()) == []


def test_started_servers_answer_over_loopback(scripted_server):
    first = scripted_server([{"text": "one"}])
    second = scripted_server([{"text": "two"}], title_text="T")
    assert first.port != second.port
    for server, text in ((first, "one"), (second, "two")):
        request = urllib.request.Request(f"{server.base_url}/chat/completions", data=b"{}")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert text in response.read().decode()
"""


def test_the_fixtures_serve_an_applications_tests(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_app=APP_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=4)


def test_an_unscripted_request_to_a_fixture_server_fails_the_test_at_teardown(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        test_app="""
        import urllib.error, urllib.request

        def test_one_request_too_many(scripted_server):
            server = scripted_server([])
            request = urllib.request.Request(f"{server.base_url}/chat/completions", data=b"{}")
            try:
                urllib.request.urlopen(request, timeout=10)
            except urllib.error.HTTPError:
                pass  # the code under test swallowed the failure
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*ScriptExhaustedError: ScriptedServer: the script ran out: turn #1*"])


def test_an_application_overrides_the_script_and_the_runtime_options_with_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        test_app="""
        import pytest

        from strata_core.engine.prompt_input import PromptRequest, TextInput
        from strata_core.permission.approval import approve_all

        @pytest.fixture
        def anyio_backend():
            return "asyncio"

        @pytest.fixture
        def model_script():
            return [{"text": "overridden"}]

        @pytest.fixture
        def strata_runtime_options():
            return {"approver": approve_all}

        @pytest.mark.anyio
        async def test_it(strata_runtime, scripted_model):
            session = await strata_runtime.sessions.create()
            await strata_runtime.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
            assert strata_runtime.approver is approve_all and scripted_model.turns_used == 1
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1)


def test_installing_the_package_does_not_register_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app="def test_it(scripted_server):\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'scripted_server' not found*"])
