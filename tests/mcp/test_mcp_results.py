"""MCP results converted as OpenCode 1.18.33 converts them (plain values, no server)."""

from __future__ import annotations

import base64

import pytest
from mcp import types

from strata_core.mcp.results import base64_size, call_result, human_size, resource_contents
from strata_core.mcp.tools import input_schema, tool_name
from strata_core.tool.contract import Attachment, ToolFailure

PNG = base64.b64encode(b"\x89PNG....").decode()


def test_names_are_sanitised_on_both_sides() -> None:
    assert tool_name("my.files", "find file") == "my_files_find_file"
    assert tool_name("a-b_c", "x/y:z") == "a-b_c_x_y_z"


def test_a_schema_becomes_an_object_with_properties_and_no_others() -> None:
    tool = types.Tool(name="t", input_schema={"type": "object", "required": []})
    assert input_schema(tool) == {"type": "object", "required": [], "properties": {}, "additionalProperties": False}


def test_text_image_and_embedded_resources() -> None:
    blob = types.BlobResourceContents(uri="file:///a.png", mime_type="image/png", blob=PNG)
    zipped = types.BlobResourceContents(uri="file:///a.zip", mime_type="application/zip", blob=PNG)
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="one"),
            types.ImageContent(type="image", data=PNG, mime_type="image/png"),
            types.EmbeddedResource(type="resource", resource=blob),
            types.EmbeddedResource(type="resource", resource=zipped),
            types.TextContent(type="text", text="two"),
        ]
    )
    converted = call_result(result)
    assert converted.text == (
        "one\n\n[Binary MCP resource omitted: file:///a.zip (application/zip, 8 B) is not a supported attachment "
        "type]\n\ntwo"
    )
    assert converted.attachments == (
        Attachment("image/png", f"data:image/png;base64,{PNG}"),
        Attachment("image/png", f"data:image/png;base64,{PNG}", filename="file:///a.png"),
    )


def test_structured_content_alone_is_sent_as_compact_json() -> None:
    result = types.CallToolResult(content=[], structured_content={"a": 1, "b": "é"})
    assert call_result(result).text == '{"a":1,"b":"é"}'


@pytest.mark.parametrize(
    ("texts", "message"),
    [(["bad input", " ", "try again"], "bad input\n\ntry again"), ([], "MCP tool returned an error")],
)
def test_an_is_error_result_is_a_failure_with_its_text(texts: list[str], message: str) -> None:
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=text) for text in texts]
    with pytest.raises(ToolFailure) as raised:
        call_result(types.CallToolResult(content=content, is_error=True))
    assert str(raised.value) == message


def test_resource_contents_as_opencode_prints_them() -> None:
    text = types.TextResourceContents(uri="note://a", mime_type="text/plain", text="hello")
    picture = types.BlobResourceContents(uri="note://b", mime_type="image/png", blob=PNG)
    result = types.ReadResourceResult(contents=[text, picture])
    converted, count = resource_contents("notes", "note://a", result)
    assert count == 2
    assert (
        converted.text
        == "Resource: note://a\nMIME: text/plain\nhello\n\n[Binary MCP resource attached: note://b (image/png)]"
    )
    assert len(converted.attachments) == 1
    empty, _ = resource_contents("notes", "note://c", types.ReadResourceResult(contents=[]))
    assert empty.text == "MCP resource note://c from notes returned no contents."


def test_sizes() -> None:
    assert base64_size(base64.b64encode(b"x" * 10).decode()) == 10
    assert [human_size(n) for n in (10, 1025, 5 * 1024 * 1024 + 1)] == ["10 B", "2 KB", "6 MB"]
