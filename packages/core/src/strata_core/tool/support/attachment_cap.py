"""Images and PDFs the read tool attaches, kept to a size a request can carry.

A PDF is sent as it is up to `MAX_ATTACHMENT_BYTES`. An image larger than that, or wider or taller than
`MAX_IMAGE_SIDE`, is downscaled with Pillow (imported here, on the first image that needs it) and
re-encoded; one so large that decoding it would itself cost hundreds of megabytes is refused from its
header alone. A 100 MB PNG so never becomes a 140 MB request body.
"""

from __future__ import annotations

import io
import math
import os

from strata_core.tool.contract import ToolFailure
from strata_core.tool.support.confined_file import descriptor, read_all

MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024
MAX_IMAGE_SIDE = 2000
MAX_DECODED_PIXELS = 12_500_000
"""Larger images are refused: decoding one costs 4 bytes a pixel before it can be scaled down."""


def _refuse(path: os.PathLike[str] | str, why: str) -> ToolFailure:
    return ToolFailure(f"Cannot attach {path}: {why}")


def _megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB"


def capped_attachment(fd: int, path: os.PathLike[str] | str, mime: str) -> tuple[bytes, str]:
    """The bytes to attach and their media type; closes `fd`. Raises `ToolFailure` when it cannot fit."""
    with descriptor(fd):
        size = os.fstat(fd).st_size
        if mime == "application/pdf":
            if size > MAX_ATTACHMENT_BYTES:
                raise _refuse(path, f"the PDF is {_megabytes(size)}; at most {_megabytes(MAX_ATTACHMENT_BYTES)}")
            return read_all(fd, MAX_ATTACHMENT_BYTES), mime
        return _image(fd, path, mime, size)


def _image(fd: int, path: os.PathLike[str] | str, mime: str, size: int) -> tuple[bytes, str]:
    from PIL import Image, UnidentifiedImageError

    with os.fdopen(os.dup(fd), "rb") as handle:
        try:
            image = Image.open(handle)  # reads the header only
        except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
            if size > MAX_ATTACHMENT_BYTES:
                raise _refuse(path, f"the image is {_megabytes(size)} and cannot be decoded to shrink it") from None
            return read_all(fd, MAX_ATTACHMENT_BYTES), mime
        width, height = image.size
        if size <= MAX_ATTACHMENT_BYTES and max(width, height) <= MAX_IMAGE_SIDE:
            return read_all(fd, MAX_ATTACHMENT_BYTES), mime
        if width * height > MAX_DECODED_PIXELS and image.format != "JPEG":
            raise _refuse(
                path,
                f"the image is {width}x{height} pixels ({_megabytes(size)}); images up to "
                f"{MAX_DECODED_PIXELS / 1_000_000:g} megapixels are scaled down to attach, larger ones are not",
            )
        image.draft("RGB", (MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))  # JPEG decodes at a fraction of its size
        factor = math.ceil(max(image.size) / MAX_IMAGE_SIDE)
        # `reduce` averages whole blocks in one pass; `thumbnail` alone would hold a half-resized copy too.
        smaller = image.reduce(factor) if factor > 1 else image
        smaller.format = image.format
        del image
        smaller.thumbnail((MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))
        return _encoded(smaller, path)


def _encoded(image: object, path: os.PathLike[str] | str) -> tuple[bytes, str]:
    from PIL import Image

    assert isinstance(image, Image.Image)
    out = io.BytesIO()
    if image.mode in ("RGBA", "LA", "P") and image.format != "JPEG":
        image.save(out, format="PNG", optimize=True)
        if out.tell() <= MAX_ATTACHMENT_BYTES:
            return out.getvalue(), "image/png"
        out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=85)
    if out.tell() > MAX_ATTACHMENT_BYTES:
        raise _refuse(path, "even scaled down it is larger than the attachment limit")
    return out.getvalue(), "image/jpeg"
