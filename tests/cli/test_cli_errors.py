"""Every expected failure becomes one paragraph and an exit code; defects say they are bugs."""

from __future__ import annotations

import pytest

from strata_cli.errors import EXIT_FAILURE, EXIT_INTERNAL, CliError, describe, report
from strata_core.llm import AuthenticationError, ModelNotFoundError, TransportError
from strata_core.permission.rules import NoResponderError
from strata_core.session.store import SessionNotFoundError


def test_self_explaining_errors_are_shown_as_they_are() -> None:
    assert describe(SessionNotFoundError("ses_x")) == ("Session not found: ses_x", EXIT_FAILURE)
    assert describe(ModelNotFoundError("No model is configured.")) == ("No model is configured.", EXIT_FAILURE)
    refusal = NoResponderError("bash", ["rm x"])
    assert describe(refusal) == (str(refusal), EXIT_FAILURE)
    assert describe(CliError("bad", exit_code=2)) == ("bad", 2)


def test_model_errors_say_what_to_check() -> None:
    auth = describe(AuthenticationError("401 invalid key", status=401))
    assert auth is not None and "Check the API key" in auth[0] and "401 invalid key" in auth[0]
    unreachable = describe(TransportError("connection refused to 127.0.0.1:9"))
    assert unreachable is not None and "Is the server running" in unreachable[0]


def test_a_single_failure_inside_task_groups_is_unwrapped() -> None:
    nested = ExceptionGroup("outer", [ExceptionGroup("inner", [SessionNotFoundError("ses_y")])])
    assert describe(nested) == ("Session not found: ses_y", EXIT_FAILURE)


def test_a_missing_file_is_named() -> None:
    described = describe(FileNotFoundError(2, "No such file or directory", "/tmp/nope.json"))
    assert described == ("Cannot use /tmp/nope.json: No such file or directory.", EXIT_FAILURE)


def test_a_defect_is_reported_as_a_bug_with_the_traceback_saved(capsys: pytest.CaptureFixture[str]) -> None:
    assert describe(ZeroDivisionError("boom")) is None
    assert report(ZeroDivisionError("boom")) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("Error: Strata hit an unexpected internal error (ZeroDivisionError: boom). This is a bug.")
    assert "The traceback was saved to" in err and "Traceback" not in err
