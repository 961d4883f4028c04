"""MCP results as tool results, converted as OpenCode 1.18.33 converts them.

A `tools/call` result: its text blocks joined by a blank line; images as attachments; an embedded resource's
text as text and its blob as an attachment when the model can take that file type (PDF and the common image
types, up to 10 MB), otherwise a line saying it was left out; a result with no content but structured
content as that JSON. An `isError` result is a tool failure carrying its text. A `resources/read` result: each
content as `Resource:`/`MIME:` lines and its text, or a line for a blob attached or left out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from attrs import frozen

from strata_core.tool.contract import Attachment, ToolFailure

if TYPE_CHECKING:
    from mcp import types

ATTACHABLE = frozenset({"application/pdf", "image/gif", "image/jpeg", "image/png", "image/webp"})
MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
OCTET_STREAM = "application/octet-stream"


@frozen
class Converted:
    text: str
    attachments: tuple[Attachment, ...] = ()


def call_result(result: types.CallToolResult) -> Converted:
    """What the model reads of a `tools/call` result; raises `ToolFailure` for an `isError` one."""
    from mcp import types

    if result.is_error:
        said = [block.text for block in result.content if isinstance(block, types.TextContent)]
        raise ToolFailure("\n\n".join(text for text in said if text.strip()) or "MCP tool returned an error")
    if not result.content and result.structured_content is not None:
        return Converted(_compact_json(result.structured_content))
    texts: list[str] = []
    attachments: list[Attachment] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            texts.append(block.text)
        elif isinstance(block, types.ImageContent):
            attachments.append(Attachment(block.mime_type, _data_url(block.mime_type, block.data)))
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                if resource.text:
                    texts.append(resource.text)
                continue
            mime = resource.mime_type or OCTET_STREAM
            refusal = _not_attachable(resource.uri, mime, resource.blob)
            if refusal is not None:
                texts.append(refusal)
            else:
                attachments.append(Attachment(mime, _data_url(mime, resource.blob), filename=resource.uri))
    return Converted("\n\n".join(texts), tuple(attachments))


def resource_contents(server: str, uri: str, result: types.ReadResourceResult) -> tuple[Converted, int]:
    """What the model reads of a `resources/read` result, and how many contents it had."""
    from mcp import types

    blocks: list[str] = []
    attachments: list[Attachment] = []
    for content in result.contents:
        where = content.uri or uri
        mime = content.mime_type or OCTET_STREAM
        if isinstance(content, types.TextResourceContents):
            blocks.append(f"Resource: {where}\nMIME: {mime}\n{content.text}")
            continue
        refusal = _not_attachable(where, mime, content.blob)
        if refusal is not None:
            blocks.append(refusal)
            continue
        blocks.append(f"[Binary MCP resource attached: {where} ({mime})]")
        attachments.append(Attachment(mime, _data_url(mime, content.blob), filename=where))
    text = "\n\n".join(blocks) or f"MCP resource {uri} from {server} returned no contents."
    return Converted(text, tuple(attachments)), len(result.contents)


def _not_attachable(uri: str, mime: str, blob: str) -> str | None:
    size = base64_size(blob)
    omitted = f"[Binary MCP resource omitted: {uri} ({mime}, {human_size(size)})"
    if mime not in ATTACHABLE:
        return f"{omitted} is not a supported attachment type]"
    if size > MAX_ATTACHMENT_BYTES:
        return f"{omitted} exceeds {human_size(MAX_ATTACHMENT_BYTES)}]"
    return None


def base64_size(blob: str) -> int:
    """The decoded size of base64 text, from its length and padding (nothing is decoded)."""
    compact = "".join(blob.split())
    padding = 2 if compact.endswith("==") else 1 if compact.endswith("=") else 0
    return max(0, len(compact) * 3 // 4 - padding)


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{math.ceil(size / 1024)} KB"
    return f"{math.ceil(size / (1024 * 1024))} MB"


def listing_json(key: str, entries: Sequence[dict[str, object]]) -> str:
    """A resource or template listing as OpenCode prints it (two-space indented JSON)."""
    return json.dumps({key: list(entries)}, indent=2, ensure_ascii=False)


def _compact_json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _data_url(mime: str, data: str) -> str:
    return f"data:{mime};base64,{data}"
