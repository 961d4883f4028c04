"""A stdio MCP server of the test suite that breaks the protocol on purpose (written raw: the SDK's server would
not), one way per word in argv: `python mcp_misbehaving_server.py WORD...`.

- `prompt-error`, `prompt-silent`, `prompt-malformed`: `prompts/get` is answered with a JSON-RPC error, never,
  or with `messages` that are not a list;
- `endless-prompts`, `endless-resources`, `endless-tools`: the listing always names a next page, a new cursor
  each time; `repeated-prompts`: it names the same cursor again;
- `explain-and-exit`: writes why it cannot start to stderr and exits before answering anything;
  `flood-and-exit`: first writes 10,000 lines and one of 100,000 characters (and escape sequences);
- `array-schema`: one of its tools has an `inputSchema` of type `array`.

It offers prompts (`p1`), resources (`mem://a`) and tools (`t0`, `t1`, and `bad` with `array-schema`).
"""

from __future__ import annotations

import json
import sys
from typing import Any

MODES = set(sys.argv[1:])
EXPLANATION = ["starting the server", "reading settings from /etc/nothing.toml", "fatal: the API token is missing"]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tools() -> list[dict[str, Any]]:
    found = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(2)]
    if "array-schema" in MODES:
        found.append({"name": "bad", "inputSchema": {"type": "array", "items": {"type": "string"}}})
    return found


def page(key: str, items: list[dict[str, Any]], cursor: str | None) -> dict[str, Any]:
    """One page of a listing; an endless one always names a next page."""
    if f"endless-{key}" in MODES:
        return {key: items, "nextCursor": str(int(cursor or "0") + 1)}
    if f"repeated-{key}" in MODES:
        return {key: items, "nextCursor": "again"}
    return {key: items}


def prompt(params: dict[str, Any]) -> dict[str, Any]:
    if "prompt-malformed" in MODES:
        return {"messages": "not a list"}
    return {"messages": [{"role": "user", "content": {"type": "text", "text": f"prompt {params['name']}"}}]}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The result for a request; None: no answer at all."""
    cursor = params.get("cursor")
    if method == "initialize":
        capabilities: dict[str, Any] = {"tools": {}, "prompts": {}, "resources": {}}
        info = {"name": "misbehaving", "version": "1"}
        return {"protocolVersion": params["protocolVersion"], "capabilities": capabilities, "serverInfo": info}
    if method == "tools/list":
        return page("tools", tools(), cursor)
    if method == "prompts/list":
        return page("prompts", [{"name": "p1", "description": "a prompt"}], cursor)
    if method == "resources/list":
        return page("resources", [{"uri": "mem://a", "name": "a"}], cursor)
    if method == "prompts/get" and "prompt-silent" in MODES:
        return None
    if method == "prompts/get":
        return prompt(params)
    return {}


def main() -> None:
    if "flood-and-exit" in MODES:
        sys.stderr.write("".join(f"line {number}\n" for number in range(10_000)) + "\x1b[31m" + "x" * 100_000 + "\n")
    if "explain-and-exit" in MODES or "flood-and-exit" in MODES:
        sys.stderr.write("".join(f"{line}\n" for line in EXPLANATION))
        sys.exit(3)
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        method, params = message["method"], message.get("params") or {}
        if method == "prompts/get" and "prompt-error" in MODES:
            error = {"code": -32602, "message": "Missing required argument: topic"}
            send({"jsonrpc": "2.0", "id": message["id"], "error": error})
            continue
        result = answer(method, params)
        if result is not None:
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})


if __name__ == "__main__":
    main()
