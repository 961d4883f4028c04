"""An MCP server of the test suite (the SDK's MCPServer, once FastMCP): `python mcp_fixture_server.py stdio`, or
`python mcp_fixture_server.py http PORT` for streamable HTTP on 127.0.0.1:PORT/mcp, `sse PORT` for the older SSE
transport on 127.0.0.1:PORT/sse.

Its tools cover what a client must convert: text, an image, an embedded resource, an `isError` result, a call that
kills the server mid-call, a call that never returns (for abort), and a name that needs sanitising (`look.up`).
`MCP_FIXTURE_HANG=1` makes it hang before it answers `initialize` (a server that never starts);
`MCP_FIXTURE_STARTED=FILE` makes `wait_forever` write FILE when it is called; `MCP_FIXTURE_INSTRUCTIONS` is
what it tells clients at `initialize`; `MCP_FIXTURE_PROBES=1` adds `probe_write` and `probe_read`, which try
to write or read a path and say what happened (for containment tests; off, the tool list is the recorded one);
`MCP_FIXTURE_LIFECYCLE=1` adds `exit_soon` (answers, then the server exits) and `add_tool` (adds a tool and
sends `notifications/tools/list_changed`).
"""

from __future__ import annotations

import base64
import os
import sys
import threading
import time
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import EmbeddedResource, ImageContent, TextContent, TextResourceContents

# A 1x1 transparent PNG.
PIXEL = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
    )
).decode()

server = MCPServer("fixture", instructions=os.environ.get("MCP_FIXTURE_INSTRUCTIONS"), log_level="ERROR")


@server.tool(description="Echo the given text back, upper-cased.")
def shout(text: str) -> str:
    return text.upper()


@server.tool(name="look.up", description="Look a word up in a tiny dictionary.")
def look_up(word: str, limit: int = 3) -> str:
    return f"{word}: a word ({limit} senses at most)"


@server.tool(description="Always fails, with a message the model can read.")
def refuse(reason: str) -> list[TextContent]:
    raise ToolError(f"refused because {reason}")


@server.tool(description="Returns a caption, a picture and an embedded note.")
def picture() -> list[TextContent | ImageContent | EmbeddedResource]:
    note = TextResourceContents(uri="note://caption", mime_type="text/plain", text="an embedded note")
    return [
        TextContent(type="text", text="a caption"),
        ImageContent(type="image", data=PIXEL, mime_type="image/png"),
        EmbeddedResource(type="resource", resource=note),
    ]


@server.tool(description="Says which X-Test header the request came with (over HTTP).")
def header(ctx: Context) -> str:
    request = ctx.request_context.request
    headers = getattr(request, "headers", None)
    return str(headers.get("x-test") if headers is not None else None)


@server.tool(description="Kills the server in the middle of the call.")
def crash() -> str:
    os._exit(3)


@server.tool(description="Never returns.")
def wait_forever() -> str:
    started = os.environ.get("MCP_FIXTURE_STARTED")
    if started:  # tells a test the call is under way
        Path(started).write_text("started")
    while True:
        time.sleep(1)


@server.resource("note://readme", name="readme", description="A short note.", mime_type="text/plain")
def readme() -> str:
    return "Read me first."


def probe_write(path: str) -> str:
    try:
        Path(path).write_text("written by the MCP server")
    except OSError as error:
        return f"refused: {error.strerror}"
    return "written"


def probe_read(path: str) -> str:
    try:
        return "read: " + Path(path).read_bytes().decode("utf-8", "replace")
    except OSError as error:
        return f"refused: {error.strerror}"


if os.environ.get("MCP_FIXTURE_PROBES") == "1":
    server.tool(description="Try to write a file.")(probe_write)
    server.tool(description="Try to read a file.")(probe_read)


def exit_soon() -> str:
    threading.Timer(0.2, os._exit, (4,)).start()  # after the answer has gone out
    return "exiting"


async def add_tool(name: str, ctx: Context) -> str:
    server.add_tool(lambda: f"{name} answers", name=name, description=f"Added while running: {name}.")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


def review(code: str, focus: str = "correctness") -> str:
    return f"Review this code for {focus}:\n{code}"


if os.environ.get("MCP_FIXTURE_PROMPTS") == "1":
    server.prompt(name="review", description="Ask for a review of some code.")(review)


if os.environ.get("MCP_FIXTURE_LIFECYCLE") == "1":
    server.tool(description="Answer, then exit a moment later (a server that dies between calls).")(exit_soon)
    server.tool(description="Add a tool and tell the client the tool list changed.")(add_tool)


def main() -> None:
    if os.environ.get("MCP_FIXTURE_HANG") == "1":
        while True:
            time.sleep(1)
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif sys.argv[1:2] == ["sse"]:
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
