"""A language server for tests, speaking LSP on stdio: `python fake_language_server.py MODE COUNTER_FILE`.

MODE `crash`: answers initialize, then exits at the first didOpen (each start appends a line to COUNTER_FILE);
`silent`: answers initialize and everything else with nothing, never publishing diagnostics; `report`: pushes
one error on line 1 for every opened or changed file ("fake error N", N the start count), and answers
`workspace/symbol` with one function, `<query>_fake`, on line 1 of each file opened so far; `tsserver`: acts
as typescript-language-server does for `tsserver_pull`: pushes twice for an opened file (nothing, then
"pushed: LINE", LINE the file's first line) and once for a changed one, and answers the
`typescript.tsserverRequest` command's `semanticDiagnosticsSync` with one error, "pulled: LINE [N]", N the
number of documents opened or changed so far (its other kinds with none), or, for a file whose text holds
REFUSE, with an error reply.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def read() -> dict[str, Any] | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(sys.stdin.buffer.read(length))
    return message


def write(message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def main(mode: str, counter: Path) -> None:
    with counter.open("a") as starts:
        starts.write("start\n")
    started = len(counter.read_text().splitlines())
    opened: list[str] = []
    documents = Documents()
    while (message := read()) is not None:
        method = message.get("method")
        if method == "initialize":
            write({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
        elif mode == "tsserver" and method in ("textDocument/didOpen", "textDocument/didChange"):
            tsserver_pushes(method, message["params"], documents)
        elif mode == "tsserver" and method == "workspace/executeCommand":
            write(tsserver_answer(message["id"], message["params"]["arguments"], documents))
        elif method in ("textDocument/didOpen", "textDocument/didChange"):
            if mode == "crash":
                sys.exit(3)
            if mode == "report":
                uri = message["params"]["textDocument"]["uri"]
                opened.extend([uri] if uri not in opened else [])
                error = {
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                    "severity": 1,
                    "message": f"fake error {started}",
                }
                params = {"uri": uri, "diagnostics": [error]}
                write({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params})
        elif method == "workspace/symbol" and mode == "report":
            line = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}
            name = f"{message['params']['query']}_fake"
            found = [{"name": name, "kind": 12, "location": {"uri": uri, "range": line}} for uri in opened]
            write({"jsonrpc": "2.0", "id": message["id"], "result": found})
        elif method == "exit":
            return
        elif "id" in message:
            write({"jsonrpc": "2.0", "id": message["id"], "result": None})


class Documents:
    """What the `tsserver` mode knows: each open document's text, and how many opens and changes it was sent."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.changes = 0

    def first_line(self, uri: str) -> str:
        text = self.texts.get(uri, "")
        return text.splitlines()[0] if text else ""


def tsserver_pushes(method: str, params: dict[str, Any], documents: Documents) -> None:
    uri = params["textDocument"]["uri"]
    opened = method.endswith("didOpen")
    documents.texts[uri] = params["textDocument"]["text"] if opened else params["contentChanges"][0]["text"]
    documents.changes += 1
    error = {
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
        "severity": 1,
        "message": f"pushed: {documents.first_line(uri)}",
    }
    for diagnostics in [[], [error]] if opened else [[error]]:
        params = {"uri": uri, "diagnostics": diagnostics}
        write({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params})


def tsserver_answer(request_id: int, arguments: list[Any], documents: Documents) -> dict[str, Any]:
    kind, uri = arguments[0], arguments[1]["file"]
    if "REFUSE" in documents.texts.get(uri, ""):
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "unknown command"}}
    error = {
        "start": {"line": 1, "offset": 7},
        "end": {"line": 1, "offset": 12},
        "text": f"pulled: {documents.first_line(uri)} [{documents.changes}]",
        "code": 2322,
        "category": "error",
    }
    body = [error] if kind == "semanticDiagnosticsSync" else []
    return {"jsonrpc": "2.0", "id": request_id, "result": {"type": "response", "success": True, "body": body}}


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
