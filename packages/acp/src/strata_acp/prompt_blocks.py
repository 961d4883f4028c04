"""The editor's prompt content blocks as the loop's prompt parts.

Text is text; a resource link to a `file://` path is the file (read as `strata run --file` reads it); an
embedded resource is the text the editor sent (its buffer), headed by the path or the URI; an
image is written to a temporary file and attached (the loop reads attachments from disk), and deleted once
the turn is over (`prompt_input`).
"""

from __future__ import annotations

import base64
import binascii
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp import RequestError
from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from strata_core.engine import FileInput, PromptPart, TextInput

IMAGE_SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


@contextmanager
def prompt_input(blocks: Sequence[Any], directory: Path) -> Iterator[list[PromptPart]]:
    """The prompt's parts, for as long as the turn reads them; the image files written for them go after."""
    images: list[Path] = []
    try:
        yield prompt_parts(blocks, directory, images)
    finally:
        for image in images:
            image.unlink(missing_ok=True)


def prompt_parts(blocks: Sequence[Any], directory: Path, images: list[Path] | None = None) -> list[PromptPart]:
    """The parts; the paths of the image files written for them are added to `images` (the caller deletes them)."""
    written = [] if images is None else images
    parts: list[PromptPart] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(TextInput(block.text))
        elif isinstance(block, ResourceContentBlock):
            parts.append(_resource(block.uri, None, directory))
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            text = resource.text if isinstance(resource, TextResourceContents) else None
            parts.append(_resource(resource.uri, text, directory))
        elif isinstance(block, ImageContentBlock):
            parts.append(_image(block, written))
        else:
            raise RequestError.invalid_params(
                {"reason": f"unsupported prompt content: {getattr(block, 'type', block)}"}
            )
    if not parts:
        raise RequestError.invalid_params({"reason": "the prompt has no content"})
    return parts


def _resource(uri: str, text: str | None, directory: Path) -> PromptPart:
    parsed = urlparse(uri)
    if parsed.scheme in ("file", ""):
        path = Path(unquote(parsed.path))
        path = path if path.is_absolute() else directory / path
        # The editor's buffer, which may differ from the disk (unsaved edits), as OpenCode sends it.
        return TextInput(f"[{path}]\n{text}") if text is not None else FileInput(path)
    return TextInput(f"{uri}\n\n{text}" if text is not None else uri)


def _image(block: ImageContentBlock, written: list[Path]) -> FileInput:
    try:
        data = base64.b64decode(block.data, validate=True)
    except binascii.Error:
        raise RequestError.invalid_params({"reason": "an image block's data is not base64"}) from None
    suffix = IMAGE_SUFFIXES.get(block.mime_type, ".img")
    with tempfile.NamedTemporaryFile(prefix="strata-acp-", suffix=suffix, delete=False) as file:
        written.append(Path(file.name))
        file.write(data)
    return FileInput(Path(file.name), block.mime_type)
