"""The pure pieces of the ACP agent: an edit's diff as ACP diff content, prompt blocks as prompt parts, tool
kinds and locations, the todo list as a plan."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from acp import RequestError, embedded_text_resource, image_block, resource_block, resource_link_block, text_block

from strata_acp.permission import diff_content
from strata_acp.prompt_blocks import prompt_parts
from strata_acp.updates import plan_of, tool_kind, tool_locations
from strata_core.engine import FileInput, TextInput

EDIT_DIFF = """Index: /p/a.txt
===================================================================
--- /p/a.txt
+++ /p/a.txt
@@ -1,3 +1,3 @@
 one
-two
+deux
 three
"""


def test_an_edits_diff_becomes_the_text_before_and_after_its_hunks() -> None:
    content = diff_content("/p/a.txt", EDIT_DIFF)
    assert (content.path, content.old_text, content.new_text) == ("/p/a.txt", "one\ntwo\nthree\n", "one\ndeux\nthree\n")


def test_prompt_blocks_become_text_files_and_attachments(tmp_path: Path) -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    parts = prompt_parts(
        [
            text_block("look"),
            resource_link_block("notes", "file:///p/notes.txt"),
            resource_block(embedded_text_resource("file:///p/b.txt", "bee")),
            resource_block(embedded_text_resource("https://example.invalid/doc", "the doc")),
            resource_link_block("rel", "src/app.py"),
            image_block(png, "image/png"),
        ],
        tmp_path,
    )
    assert parts[:5] == [
        TextInput("look"),
        FileInput(Path("/p/notes.txt")),
        TextInput("[/p/b.txt]\nbee"),
        TextInput("https://example.invalid/doc\n\nthe doc"),
        FileInput(tmp_path / "src/app.py"),
    ]
    image = parts[5]
    assert isinstance(image, FileInput) and image.mime == "image/png"
    assert image.path.read_bytes() == b"\x89PNG\r\n\x1a\n"
    image.path.unlink()


def test_an_empty_prompt_or_a_bad_image_is_the_clients_error(tmp_path: Path) -> None:
    with pytest.raises(RequestError):
        prompt_parts([], tmp_path)
    with pytest.raises(RequestError):
        prompt_parts([image_block("not base64!", "image/png")], tmp_path)


def test_tool_kinds_and_locations_follow_opencode() -> None:
    assert [tool_kind(t) for t in ("bash", "read", "write", "grep", "webfetch", "task")] == [
        "execute",
        "read",
        "edit",
        "search",
        "fetch",
        "other",
    ]
    assert tool_locations("read", {"filePath": "/p/a"}, "/p")[0].path == "/p/a"
    assert tool_locations("bash", {"command": "ls"}, "/p")[0].path == "/p"
    assert tool_locations("task", {"prompt": "x"}, "/p") == []


def test_the_todo_list_is_a_plan() -> None:
    plan = plan_of({"todos": [{"content": "write tests", "status": "in_progress", "priority": "high"}, {"x": 1}]})
    assert [(e.content, e.status, e.priority) for e in plan.entries] == [
        ("write tests", "in_progress", "high"),
        ("", "pending", "medium"),
    ]
