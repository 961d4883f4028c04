"""`strata run` sends what `opencode run` 1.18.33 sent for the same project and script.

The fixture (`tests/oracle_fixtures/cli-turns`) and OpenCode's recorded requests (`captures/opencode-cli-*`)
were made with the oracle's capture.sh. Here the installed `strata` runs on a copy of the fixture against a
ScriptedServer playing the same script, and every request is compared with the recording after the run's
own paths, port and date are normalised. Not compared, as the oracle does not compare them either: the
provider prompt text (each product words its own) and the built-in skill (`customize-strata` stands where
OpenCode lists `customize-opencode`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_harness import Cli

from strata_providers.testing import ScriptedServer

FIXTURES = Path(__file__).parents[1] / "oracle_fixtures"
TODAY = re.compile(r"Today's date: [^\n]*")
QUOTED = re.compile(r'^"(.*)"$', re.DOTALL)


def _without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [_without_descriptions(v) for v in schema]
    return schema


def _environment_and_instructions(system: str) -> str:
    """The system prompt from the model line to the skills block: env block and instruction files."""
    start = system.index("You are powered by the model named")
    end = system.index("\nSkills provide specialized instructions")
    return TODAY.sub("Today's date: <DATE>", system[start:end])


def _conversation(messages: list[dict[str, Any]]) -> list[Any]:
    """Messages after the system prompt: roles, texts (OpenCode's added quotes dropped), calls, results."""
    shaped: list[Any] = []
    for message in messages[1:]:
        content = message.get("content")
        if message["role"] == "user" and isinstance(content, str):
            content = QUOTED.sub(r"\1", content)
        calls = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message.get("tool_calls", [])]
        shaped.append((message["role"], content, calls))
    return shaped


def _shape(body: dict[str, Any], work: str, port: int) -> dict[str, Any]:
    text = json.dumps(body).replace(work, "<WORK>").replace(f"127.0.0.1:{port}", "127.0.0.1:<PORT>")
    body = json.loads(text)
    tools = body.get("tools", [])
    return {
        "params": {k: v for k, v in body.items() if k not in ("messages", "tools")},
        "tools": [(t["function"]["name"], _without_descriptions(t["function"]["parameters"])) for t in tools],
        "environment": _environment_and_instructions(body["messages"][0]["content"]),
        "conversation": _conversation(body["messages"]),
    }


def _recorded(name: str) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    folder = FIXTURES / "captures" / f"opencode-cli-{name}"
    work, port = (folder / "workdir.txt").read_text().strip(), int((folder / "port.txt").read_text())
    main = [json.loads(p.read_text()) for p in sorted(folder.glob("[0-9][0-9][0-9].json"))]
    titles = [json.loads(p.read_text()) for p in sorted(folder.glob("*_title.json"))]
    return [_shape(b, work, port) for b in main], [_conversation(b["messages"]) for b in titles]


@pytest.mark.parametrize(
    ("name", "script", "message"),
    [("hello", "script-hello.json", "say hello"), ("read", "script-cli-read.json", "read the notes in sub/notes.txt")],
)
def test_requests_match_what_opencode_sent(cli: Cli, tmp_path: Path, name: str, script: str, message: str) -> None:
    work = cli.project
    shutil.copytree(FIXTURES / "cli-turns", work, dirs_exist_ok=True)
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    turns = json.loads((FIXTURES / script).read_text().replace("__WORK__", str(work)))
    with ScriptedServer(turns) as server:
        config = (work / "opencode.json").read_text().replace("__PORT__", str(server.port))
        (work / "opencode.json").write_text(config)
        done = cli("run", message)
        assert done.returncode == 0, done.stderr
        main = [_shape(r.body, str(work), server.port) for r in server.main_requests]
        titles = [_conversation(r.body["messages"]) for r in server.title_requests]
    expected_main, expected_titles = _recorded(name)
    assert len(main) == len(expected_main)
    for ours, theirs in zip(main, expected_main, strict=True):
        assert ours["params"] == theirs["params"]
        assert [n for n, _ in ours["tools"]] == [n for n, _ in theirs["tools"]]
        assert ours["tools"] == theirs["tools"]
        assert ours["environment"] == theirs["environment"]
        assert ours["conversation"] == theirs["conversation"]
    assert titles == expected_titles
