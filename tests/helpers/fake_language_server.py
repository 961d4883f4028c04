"""A language server for tests, speaking LSP on stdio: `python fake_language_server.py MODE COUNTER_FILE`.

MODE `crash`: answers initialize, then exits at the first didOpen (each start appends a line to COUNTER_FILE);
`silent`: answers initialize and everything else with nothing, never publishing diagnostics; `report`: pushes
one error on line 1 for every opened or changed file ("fake error N", N the start count), and answers
`workspace/symbol` with one function, `<query>_fake`, on line 1 of each file opened so far.
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
    while (message := read()) is not None:
        method = message.get("method")
        if method == "initialize":
            write({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
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


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
