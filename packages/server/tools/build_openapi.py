"""Regenerate strata_server/openapi.json and opencode-routes.json from OpenCode's published OpenAPI document.

    uv run python packages/server/tools/build_openapi.py ../shared/reference/opencode-openapi-1.18.33.json

The document keeps OpenCode's paths, operation ids, parameters and schemas for the routes the app
implements (so OpenCode's generated SDK fits it), drops OpenCode's prose (descriptions, summaries) and adds
Strata's own one-line summaries. The routes file lists every path and method OpenCode serves (501 targets).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from starlette.routing import Route

from strata_server.app import implemented_routes
from strata_server.openapi import DOCUMENT, OPENCODE_ROUTES
from strata_server.version import VERSION

METHODS = ("get", "post", "put", "patch", "delete")
PROSE = {"description", "summary"}

SUMMARIES = {
    "global.health": "Whether the server is up, and its version.",
    "global.event": "Every event of the server, wrapped with its directory and project (server-sent events).",
    "event.subscribe": "The project's events as they happen (server-sent events).",
    "path.get": "The directories the server works with.",
    "vcs.get": "The project's current and default git branch.",
    "project.current": "The project the server serves.",
    "config.get": "The merged configuration.",
    "config.providers": "The providers a turn can use now, with each one's default model.",
    "provider.list": "Every known provider, the default model of each, and the ones that can be used now.",
    "app.agents": "The agents sessions can use.",
    "app.skills": "The skills the agents can load.",
    "command.list": "The custom commands (config entries and command files).",
    "session.list": "The project's sessions, most recently updated first.",
    "session.create": "Create a session.",
    "session.status": "The sessions that are busy or retrying, with their status.",
    "session.get": "One session.",
    "session.update": "Rename a session or replace its permission rules.",
    "session.delete": "Delete a session with its messages and child sessions (a running turn is aborted first).",
    "session.children": "The sessions a session started (subagent runs).",
    "session.todo": "The session's todo list.",
    "session.messages": "The session's messages with their parts, oldest first.",
    "session.prompt": "Send a message and wait for the turn to finish; answers with the last assistant message.",
    "session.message": "One message with its parts.",
    "session.deleteMessage": "Remove a message and its parts from the session (changed files stay as they are).",
    "part.delete": "Remove one part of a message.",
    "part.update": "Replace a part of a message with the one sent, or add it to the message.",
    "session.fork": "Copy a session, up to (not including) a message, or all of it.",
    "session.abort": "Abort the session's running turn, its tool calls and open questions.",
    "session.summarize": "Compact the session's history into a summary now.",
    "session.diff": "The files a user message's turn changed (or, without messageID, the whole session's).",
    "session.revert": "Put the files changed from a message on back as they were, and hide those messages.",
    "session.unrevert": "Put back what the last revert took away, and show its messages again.",
    "session.prompt_async": "Send a message and return at once; the turn runs in the server.",
    "permission.respond": "Answer a permission question (deprecated form).",
    "permission.list": "The permission questions waiting for an answer.",
    "permission.reply": "Answer a permission question: once, always (for this session) or reject.",
    "find.text": "Lines of the project's files matching a regular expression.",
    "find.files": "Project files and directories whose path fuzzily matches a query.",
    "file.list": "The entries of a directory of the project.",
    "file.read": "A project file's content (text, or base64 for binary files).",
    "file.status": "The files changed since the last commit (git), with lines added and removed.",
    "project.list": "The served project, then the other projects the store holds sessions of.",
    "project.directories": "The local directories a project's sessions ran in.",
    "provider.auth": "Sign-in methods beyond an API key, per provider (Strata has none).",
    "v2.location.get": "The directory served and its project.",
    "v2.agent.list": "The agents, in OpenCode's v2 shape.",
    "v2.command.list": "The commands of config entries and command files, in OpenCode's v2 shape.",
    "v2.skill.list": "The skills, in OpenCode's v2 shape.",
    "v2.reference.list": "The references of the location (Strata has none).",
    "v2.provider.list": "The providers a turn can use now, in OpenCode's v2 shape.",
    "v2.model.list": "The usable providers' models, newest release first.",
    "v2.integration.list": "Every known provider and how it can be connected.",
    "experimental.capabilities.get": "The experimental features this server has (none).",
    "experimental.console.get": "The Console organisation state (Strata has no Console).",
    "experimental.resource.list": "The connected MCP servers' resources.",
    "experimental.workspace.list": "The project's workspaces (Strata has none).",
    "experimental.workspace.status": "The workspaces' connection status (Strata has none).",
    "mcp.status": "Each configured MCP server's status.",
    "lsp.status": "The running language servers.",
    "formatter.status": "The formatters in force.",
    "find.symbols": "Workspace symbols from the running language servers.",
    "session.share": "The session, unshared: Strata has no share service (as OpenCode with sharing disabled).",
    "session.unshare": "The session, unshared: Strata has no share service (as OpenCode with sharing disabled).",
    "session.shell": "Run the user's shell command in the session (no model call); the message holding it.",
    "app.log": "Write a client's line to the server's log.",
    "question.list": "The question tool's open questions (Strata has no question tool: none).",
    "question.reply": "Answer a question of the question tool (none is ever open in Strata: 404).",
    "question.reject": "Reject a question of the question tool (none is ever open in Strata: 404).",
    "session.command": "Run a command (/name arguments) as a turn; answers with its last assistant message.",
    "session.init": "Run the init command (write AGENTS.md) as a turn, and wait for it.",
    "tui.appendPrompt": "Append text to an attached TUI's prompt (publishes tui.prompt.append).",
    "tui.openHelp": "Open the help dialog of an attached TUI.",
    "tui.openSessions": "Open the session list of an attached TUI.",
    "tui.openThemes": "Open the session list of an attached TUI (as OpenCode's route does).",
    "tui.openModels": "Open the model list of an attached TUI.",
    "tui.submitPrompt": "Submit an attached TUI's prompt.",
    "tui.clearPrompt": "Clear an attached TUI's prompt.",
    "tui.executeCommand": "Run a command in an attached TUI (publishes tui.command.execute).",
    "tui.showToast": "Show a toast in an attached TUI (publishes tui.toast.show).",
    "auth.set": "Store a provider's credential (OpenCode's Auth object) in Strata's auth.json; answers true.",
    "auth.remove": "Forget a provider's credential stored in Strata's auth.json; answers true.",
    "tui.selectSession": "Open a session in an attached TUI.",
    "tui.publish": "Publish one of the TUI's events as given.",
    "tui.control.next": "The oldest queued TUI control request, waiting for one.",
    "tui.control.response": "Answer the oldest TUI control request.",
}

DOC_OPERATION = {
    "operationId": "strata.doc",
    "summary": "This document.",
    "responses": {"200": {"content": {"application/json": {"schema": {"type": "object"}}}}},
}


def without_prose(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_prose(v) for k, v in value.items() if k not in PROSE or not isinstance(v, str)}
    if isinstance(value, list):
        return [without_prose(v) for v in value]
    return value


def references(value: Any) -> set[str]:
    if isinstance(value, dict):
        found = {value["$ref"].rsplit("/", 1)[1]} if isinstance(value.get("$ref"), str) else set()
        return found.union(*(references(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(references(v) for v in value))
    return set()


def build(reference: dict[str, Any]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for route in implemented_routes():
        assert isinstance(route, Route)
        for method in sorted(m.lower() for m in route.methods or () if m != "HEAD"):
            if route.path == "/doc":
                paths.setdefault(route.path, {})[method] = DOC_OPERATION
                continue
            operation = without_prose(reference["paths"][route.path][method])
            operation["summary"] = SUMMARIES[operation["operationId"]]
            paths.setdefault(route.path, {})[method] = operation
    schemas = reference["components"]["schemas"]
    wanted, todo = set(), references(paths)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo |= references(schemas[name])
    return {
        "openapi": reference["openapi"],
        "info": {
            "title": "strata",
            "version": VERSION,
            "description": "Strata's server: OpenCode's API, as far as implemented.",
        },
        "paths": paths,
        "components": {"schemas": {name: without_prose(schemas[name]) for name in sorted(wanted)}},
    }


def opencode_routes(reference: dict[str, Any]) -> dict[str, list[str]]:
    return {path: [m.upper() for m in METHODS if m in item] for path, item in reference["paths"].items()}


def main(reference_path: str) -> None:
    reference = json.loads(Path(reference_path).read_text(encoding="utf-8"))
    DOCUMENT.write_text(json.dumps(build(reference), indent=1) + "\n", encoding="utf-8")
    OPENCODE_ROUTES.write_text(json.dumps(opencode_routes(reference), indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
