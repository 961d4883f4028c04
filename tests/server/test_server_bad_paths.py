"""Paths no file can have, in the file routes and in a prompt's file part: a NUL byte is refused as a bad
request (400), a name longer than the file system allows is not found (404); neither is a 500."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from server_harness import ServeFactory

TOO_LONG = "a" * 300
"""Longer than any file system's name limit (255 bytes on Linux): `lstat` answers ENAMETOOLONG."""


def refusal(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()
    return response.status_code, body["name"], body["data"]["message"]


def file_part(url: str) -> dict[str, Any]:
    return {"parts": [{"type": "file", "mime": "text/plain", "url": url}]}


def test_a_nul_byte_in_a_path_or_pattern_is_a_bad_request(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        content = client.get("/file/content", params={"path": "notes.txt\0.png"})
        listing = client.get("/file", params={"path": "\0"})
        found = client.get("/find", params={"pattern": "\0"})
        regular = client.get("/file/content", params={"path": "notes.txt"})
    assert refusal(content) == (
        400,
        "BadRequest",
        "notes.txt\\0.png is not a path: it holds a NUL byte (shown as \\0), which no file name can hold.",
    )
    assert refusal(listing)[:2] == (400, "BadRequest") and "NUL byte" in refusal(listing)[2]
    assert refusal(found) == (
        400,
        "BadRequest",
        "pattern: the pattern holds a NUL byte, which no searched line can hold (binary files are skipped)",
    )
    assert regular.json() == {"type": "text", "content": "hi\n"}


def test_a_name_too_long_to_exist_is_not_found(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        content = client.get("/file/content", params={"path": TOO_LONG})
        listing = client.get("/file", params={"path": TOO_LONG})
    expected = f"{TOO_LONG} names no file: it is longer than the file system allows a name to be."
    assert refusal(content) == (404, "NotFoundError", expected)
    assert refusal(listing) == (404, "NotFoundError", expected)


def test_a_prompt_or_command_naming_such_a_file_is_refused_and_stores_nothing(
    serve: ServeFactory, project: Path
) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        session = client.post("/session", json={}).json()["id"]
        nul = client.post(f"/session/{session}/message", json=file_part(f"{project.as_uri()}/x%00y"))
        command = client.post(
            f"/session/{session}/command",
            json={"command": "init", "arguments": "", **file_part(f"{project.as_uri()}/x%00y")},
        )
        long = client.post(f"/session/{session}/message", json=file_part((project / TOO_LONG).as_uri()))
        messages = client.get(f"/session/{session}/message").json()
    assert refusal(nul)[:2] == (400, "BadRequest") and f"{project}/x\\0y is not a path" in refusal(nul)[2]
    assert refusal(command) == refusal(nul)
    assert refusal(long) == (
        404,
        "NotFoundError",
        f"{project / TOO_LONG} names no file: it is longer than the file system allows a name to be.",
    )
    assert messages == []
    assert server.model is not None and server.model.main_requests == []
