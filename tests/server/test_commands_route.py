"""`GET /command`: every command a client can offer, in OpenCode 1.18.33's shape."""

from __future__ import annotations

import json
from typing import Any

import httpx
from mcp_servers import fixture_server
from server_harness import ServeFactory


def test_commands_list_mcp_prompts_and_skills_as_opencode_does(serve: ServeFactory, project: Any) -> None:
    """`GET /command` as OpenCode 1.18.33 answers it for the same project: an MCP prompt is `server:prompt`
    (source `mcp`, a hint per argument), a skill is a command of its name (source `skill`)."""
    skill = project / ".opencode/skill/tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tidy\ndescription: Tidy up the imports.\n---\nSort the imports.\n")
    mcp = {"mcp": {"fixture": fixture_server(environment={"MCP_FIXTURE_PROMPTS": "1"})}}
    (project / ".opencode/opencode.json").write_text(json.dumps(mcp))
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        listed = {command["name"]: command for command in client.get("/command").json()}
    assert listed["init"]["source"] == "command" and listed["init"]["hints"] == ["$ARGUMENTS"]
    review = listed["fixture:review"]
    assert (review["source"], review["description"], review["hints"]) == (
        "mcp",
        "Ask for a review of some code.",
        ["$1", "$2"],
    )
    assert (listed["tidy"]["source"], listed["tidy"]["hints"]) == ("skill", [])
    assert listed["tidy"]["template"].startswith("Sort the imports.\n\n\nBase directory for this skill: ")
