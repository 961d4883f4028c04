"""Strata offers and answers MCP tools as OpenCode 1.18.33 does, for the same two servers and script.

`tests/oracle_fixtures/captures/opencode-mcp-tools` is OpenCode's recording (the oracle's capture.sh) for
`tests/oracle_fixtures/mcp/opencode.json`: `mcp-server-time` over stdio as `time`, and the suite's fixture
server over streamable HTTP as `my.fixture` (a name that needs sanitising), played
`tests/oracle_fixtures/script-mcp.json`. Here the same servers and script run through Strata's engine, and
the offered tools (names, MCP tools' descriptions, every schema without its descriptions) and the tool results
are compared with the recording.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from engine_harness import ask, engine, scripted
from mcp_servers import FIXTURE_SERVER, http_fixture_server, marked, time_server

FIXTURES = Path(__file__).parents[1] / "oracle_fixtures"
CAPTURE = FIXTURES / "captures" / "opencode-mcp-tools"
MCP_TOOL = re.compile(r"^(time|my_fixture)_|mcp_resource")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}T")
WEEKDAY = re.compile(r'"day_of_week": "\w+"')


def _without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [_without_descriptions(v) for v in schema]
    return schema


def _tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t["function"] for t in body["tools"]}


def _results(body: dict[str, Any]) -> list[str]:
    results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    return [WEEKDAY.sub("<DAY>", DATE.sub("<DATE>T", r)) for r in results]


def _recorded(name: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((CAPTURE / name).read_text())
    return body


@pytest.fixture(scope="module")
def strata_requests(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    import anyio

    root = tmp_path_factory.mktemp("mcp-oracle")
    project = root / "work"
    project.mkdir()
    (root / "home").mkdir()
    env = {"HOME": str(root / "home"), "PATH": "/usr/bin:/bin"}
    script = json.loads((FIXTURES / "script-mcp.json").read_text())

    async def run(url: str) -> list[dict[str, Any]]:
        config = {"mcp": {"time": time_server(), "my.fixture": {"type": "remote", "url": url, "oauth": False}}}
        async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
            session = await runtime.sessions.create()
            await runtime.loop.prompt(ask(session.id, "use the tools"))
        return [request.body for request in server.main_requests]

    with http_fixture_server() as url:
        return anyio.run(run, url)


def test_the_same_tools_are_offered_under_the_same_names(strata_requests: list[dict[str, Any]]) -> None:
    assert list(_tools(strata_requests[0])) == list(_tools(_recorded("001.json")))


def test_mcp_tools_carry_the_servers_descriptions_and_opencodes_schemas(strata_requests: list[dict[str, Any]]) -> None:
    ours, theirs = _tools(strata_requests[0]), _tools(_recorded("001.json"))
    mcp_tools = [name for name in theirs if MCP_TOOL.search(name)]
    assert len(mcp_tools) == 12
    for name in mcp_tools:
        assert _without_descriptions(ours[name]["parameters"]) == _without_descriptions(theirs[name]["parameters"])
        if not name.endswith("mcp_resources") and "mcp_resource" not in name:
            assert ours[name]["description"] == theirs[name]["description"]
            assert ours[name]["parameters"] == theirs[name]["parameters"]


def test_results_text_errors_resources_and_listings_are_what_opencode_sent(
    strata_requests: list[dict[str, Any]],
) -> None:
    assert len(strata_requests) == 4
    assert _results(strata_requests[1]) == _results(_recorded("002.json"))
    *_, picture, resource = _results(strata_requests[2])
    *_, their_picture, their_resource = _results(_recorded("003.json"))
    # OpenCode could not resize the 1x1 image and says so; the texts before that note are the same.
    assert picture.startswith("a caption\n\nan embedded note") and their_picture.startswith(
        "a caption\n\nan embedded note\n\n"
    )
    assert resource == their_resource
    assert _results(strata_requests[3])[-2:] == _results(_recorded("004.json"))[-2:]


INSTRUCTIONS = re.compile(r"<mcp_instructions>\n.*?\n</mcp_instructions>\n", re.DOTALL)


@pytest.mark.anyio
async def test_servers_instructions_reach_the_system_prompt_as_opencode_puts_them(tmp_path: Path) -> None:
    """`captures/opencode-mcp-instructions` (config in `mcp-instructions/opencode.json`): two servers that send
    instructions, one whose every tool is denied; only the other's words go in, between the env block (and
    instruction files) and the skills."""
    project = tmp_path / "work"
    project.mkdir()
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    written = (FIXTURES / "mcp-instructions" / "opencode.json").read_text()
    written = written.replace("__PYTHON__", sys.executable).replace("__FIXTURE_SERVER__", str(FIXTURE_SERVER))
    config = json.loads(written)
    extra = {"mcp": marked(config["mcp"]), "permission": config["permission"]}
    async with scripted([{"text": "Fine."}]) as server, engine(project, env, server, extra_config=extra) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "hello"))
    ours = server.main_requests[0].body["messages"][0]["content"]
    theirs = _recorded("../opencode-mcp-instructions/001.json")["messages"][0]["content"]
    (block,) = INSTRUCTIONS.findall(theirs)
    assert INSTRUCTIONS.findall(ours) == [block]
    assert ours.index("</env>\n") + len("</env>\n") == ours.index(block)
    assert ours.index(block) + len(block) == ours.index("Skills provide")
