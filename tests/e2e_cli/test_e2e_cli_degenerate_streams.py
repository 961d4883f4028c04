"""Streams that finish without an answer: each is an error with its own message and a non-zero exit."""

from __future__ import annotations

import pytest
from cli_harness import Cli, mock_provider_config, write_config
from hostile_server import Behaviour, HostileServer, raw, sse

ANTHROPIC = "@ai-sdk/anthropic"
CHAT = "@ai-sdk/openai-compatible"

CASES: list[tuple[str, str, Behaviour, str]] = [
    (
        "length-without-content",
        CHAT,
        raw(sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}), sse("[DONE]")),
        'finish reason "length") before writing anything',
    ),
    ("done-only", CHAT, raw(sse("[DONE]")), "ended with [DONE] before a single choice arrived"),
    (
        "choices-null",
        CHAT,
        raw(sse({"choices": None}), sse({"choices": None, "usage": {"prompt_tokens": 1}}), sse("[DONE]")),
        'every chunk had "choices": null',
    ),
    ("message-stop-only", ANTHROPIC, raw(sse({"type": "message_stop"}, "message_stop")), "only message_stop"),
    (
        "anthropic-max-tokens-without-content",
        ANTHROPIC,
        raw(
            sse({"type": "message_start", "message": {"usage": {"input_tokens": 3}}}),
            sse({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 0}}),
            sse({"type": "message_stop"}),
        ),
        'finish reason "length") before writing anything',
    ),
]


@pytest.mark.parametrize(("npm", "behaviour", "message"), [case[1:] for case in CASES], ids=[c[0] for c in CASES])
def test_a_degenerate_stream_is_an_error_saying_what_was_wrong(
    cli: Cli, npm: str, behaviour: Behaviour, message: str
) -> None:
    with HostileServer(behaviour) as server:
        write_config(cli.project, mock_provider_config(server.base_url, npm=npm))
        done = cli("run", "say hello")
    assert done.returncode != 0, done.stdout
    assert message in done.stderr
    assert server.model_requests == 1  # a degenerate answer is final, not retried
