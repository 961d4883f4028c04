"""The listings OpenCode's TUI reads at start (`/api/*`, `/experimental/*`, projects, provider sign-in methods),
each in OpenCode 1.18.33's response schema and with what OpenCode answers for a project like this one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from server_harness import ServeFactory, schema_problems

V2 = ("location", "agent", "command", "skill", "reference", "provider", "model", "integration")


def get_all(url: str, paths: list[str]) -> dict[str, Any]:
    with httpx.Client(base_url=url, timeout=30) as client:
        answers = {path: client.get(path) for path in paths}
    assert {path: r.status_code for path, r in answers.items()} == dict.fromkeys(paths, 200)
    return {path: r.json() for path, r in answers.items()}


def test_the_v2_listings_fit_opencodes_schemas_and_describe_the_project(serve: ServeFactory, project: Path) -> None:
    skill = project / ".opencode/skill/tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tidy\ndescription: Tidy up.\n---\nSort the imports.\n")
    server = serve([])
    answers = get_all(server.url, [f"/api/{name}" for name in V2])
    assert [p for path, body in answers.items() if (p := schema_problems(path, "get", body))] == []
    location = answers["/api/location"]
    assert location["directory"] == str(project) and location["project"]["directory"] == str(project)
    assert all(body["location"] == location for path, body in answers.items() if path != "/api/location")
    agents = {agent["id"]: agent for agent in answers["/api/agent"]["data"]}
    assert agents["build"]["mode"] == "primary" and agents["general"]["mode"] == "subagent"
    assert {"action": "bash", "resource": "*", "effect": "ask"} in agents["build"]["permissions"]
    assert "init" in {command["name"] for command in answers["/api/command"]["data"]}
    (tidy,) = [s for s in answers["/api/skill"]["data"] if s["name"] == "tidy"]
    assert tidy["content"].strip() == "Sort the imports." and tidy["location"] == str(skill / "SKILL.md")
    assert answers["/api/reference"]["data"] == []
    assert "mock" in {provider["id"] for provider in answers["/api/provider"]["data"]}
    assert server.model is not None
    (mock,) = [m for m in answers["/api/model"]["data"] if m["providerID"] == "mock"]
    assert (mock["id"], mock["api"]["url"], mock["enabled"]) == ("gpt-4o-mock", server.model.base_url, True)
    integrations = {i["id"]: i for i in answers["/api/integration"]["data"]}
    assert {"type": "env", "names": ["ANTHROPIC_API_KEY"]} in integrations["anthropic"]["methods"]


def test_an_integrations_connection_is_its_key_variable_when_set(serve: ServeFactory) -> None:
    server = serve([], extra_env={"ANTHROPIC_API_KEY": "sk-test"})
    listed = get_all(server.url, ["/api/integration"])["/api/integration"]["data"]
    (anthropic,) = [i for i in listed if i["id"] == "anthropic"]
    assert anthropic["connections"] == [{"type": "env", "name": "ANTHROPIC_API_KEY"}]


def test_the_provider_listing_carries_no_api_key(serve: ServeFactory) -> None:
    server = serve([])
    answers = get_all(server.url, ["/api/provider", "/api/model"])
    assert '"x"' not in str(answers).replace("'", '"')  # the mock provider's apiKey is "x"


def test_experimental_routes_answer_as_opencode_does_without_those_features(serve: ServeFactory) -> None:
    server = serve([])
    paths = ["/experimental/capabilities", "/experimental/console", "/experimental/resource"]
    paths += ["/experimental/workspace", "/experimental/workspace/status", "/provider/auth"]
    answers = get_all(server.url, paths)
    assert answers == {
        "/experimental/capabilities": {"backgroundSubagents": False},
        "/experimental/console": {"consoleManagedProviders": [], "switchableOrgCount": 0},
        "/experimental/resource": {},
        "/experimental/workspace": [],
        "/experimental/workspace/status": [],
        "/provider/auth": {},
    }
    assert [p for path, body in answers.items() if (p := schema_problems(path, "get", body))] == []


def test_projects_list_the_served_one_and_its_directories(serve: ServeFactory, project: Path) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        client.post("/session", json={})
        listed = client.get("/project").json()
        current = client.get("/project/current").json()
        directories = client.get(f"/project/{current['id']}/directories").json()
        unknown = client.get("/project/nope/directories").json()
    assert listed == [current] and current["worktree"] == str(project)
    assert schema_problems("/project", "get", listed) is None
    assert directories == [{"directory": str(project)}] and unknown == []
    assert schema_problems("/project/{projectID}/directories", "get", directories) is None


def test_no_question_is_ever_open_and_an_answer_to_one_is_opencodes_404(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        listed = client.get("/question").json()
        reply = client.post("/question/que_x/reply", json={"answers": []})
        reject = client.post("/question/que_x/reject")
    assert listed == []
    missing = {"_tag": "QuestionNotFoundError", "requestID": "que_x", "message": "Question request not found: que_x"}
    assert (reply.status_code, reply.json()) == (404, missing) and (reject.status_code, reject.json()) == (404, missing)


def test_a_clients_log_line_is_taken_and_a_bad_one_refused(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        taken = client.post("/log", json={"service": "tui", "level": "warn", "message": "hello", "extra": {"a": 1}})
        refused = client.post("/log", json={"service": "tui", "level": "loud", "message": "hello"})
    assert (taken.status_code, taken.json()) == (200, True)
    assert refused.status_code == 400 and "level" in refused.json()["data"]["message"]


def test_the_model_dialog_offers_only_providers_strata_can_call(serve: ServeFactory) -> None:
    """OpenCode counts its hosted gateway's keyless free models as connected; Strata offers a provider once it
    has a key for it (packages/server/README.md, "The model list")."""
    without_key = serve([])
    answers = get_all(without_key.url, ["/provider", "/config/providers"])
    assert "opencode" in {provider["id"] for provider in answers["/provider"]["all"]}  # the catalogue knows it
    assert answers["/provider"]["connected"] == ["mock"]
    assert [provider["id"] for provider in answers["/config/providers"]["providers"]] == ["mock"]


def test_a_key_for_opencodes_gateway_puts_it_in_the_model_dialog(serve: ServeFactory) -> None:
    server = serve([], extra_env={"OPENCODE_API_KEY": "a-key"})
    answers = get_all(server.url, ["/provider", "/config/providers"])
    assert "opencode" in answers["/provider"]["connected"]
    assert "opencode" in {provider["id"] for provider in answers["/config/providers"]["providers"]}
