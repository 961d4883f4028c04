"""A file the user attaches (`strata run -f`, a file part) as the data URL a request carries, within bounds.

Images and PDFs are inlined as base64, so a 100 MB file would become a 140 MB request that every later
request of the session repeats. Files over `MAX_ATTACHMENT_BYTES` are refused before a byte is read. Images
larger than a model looks at (`MAX_IMAGE_EDGE` pixels on the long side, or over `MAX_IMAGE_BYTES`) are
downscaled with Pillow, imported only then; one whose decoded pixels would not fit the memory budget is
refused rather than decoded (JPEG decodes at a reduced scale, so it is always scaled).
"""

from __future__ import annotations

import base64
import io
import math
import stat
from pathlib import Path

from strata_core.errors import StrataError

MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024
MAX_IMAGE_BYTES = 3_750_000
"""Anthropic's limit for one image (5 MB of base64)."""
MAX_IMAGE_EDGE = 2000
MAX_DECODED_PIXELS = 12_000_000
"""About 48 MB decoded (Pillow keeps 4 bytes a pixel): the most a non-JPEG may need in memory to be scaled.
A 4K screenshot (8.3 million pixels) fits."""
_SCALABLE = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})


class AttachmentError(StrataError, ValueError):
    """A file that cannot be attached as it is; the message says why and what would fit."""


def attachment_data_url(path: Path, mime: str) -> str:
    """The file as a `data:` URL, downscaled or refused per the limits above. Blocking: run in a thread."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):  # a FIFO or a device would block the prompt, or never end
        raise AttachmentError(f"{path} is not a regular file; attach a file")
    size = info.st_size
    if size > MAX_ATTACHMENT_BYTES:
        raise AttachmentError(
            f"{path} is {_mb(size)}, more than the {_mb(MAX_ATTACHMENT_BYTES)} an attachment may be; "
            "attach a smaller file (or a downscaled copy of the image)"
        )
    data = path.read_bytes()
    if mime in _SCALABLE:
        data, mime = fitted_image(data, mime, path)
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def fitted_image(data: bytes, mime: str, path: Path) -> tuple[bytes, str]:
    """The image as it is when small enough, else scaled to `MAX_IMAGE_EDGE` and re-encoded."""
    from PIL import Image, UnidentifiedImageError  # Pillow: ~30 ms to import, only for an image to check

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if len(data) <= MAX_IMAGE_BYTES and max(width, height) <= MAX_IMAGE_EDGE:
                return data, mime
            scale = min(1.0, MAX_IMAGE_EDGE / max(width, height))
            if image.format == "JPEG":  # decoded at 1/2, 1/4 or 1/8 scale, never below the size wanted
                image.draft("RGB", (math.ceil(width * scale), math.ceil(height * scale)))
            elif width * height > MAX_DECODED_PIXELS:
                raise AttachmentError(
                    f"{path} is {width}x{height} pixels, too large to scale down here; "
                    f"attach a copy of at most {MAX_IMAGE_EDGE} pixels on its long side"
                )
            image.thumbnail((MAX_IMAGE_EDGE, MAX_IMAGE_EDGE))
            return _encoded(image, mime)
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as error:
        raise AttachmentError(f"{path} is not an image Strata can read ({error})") from None


def _encoded(image: object, mime: str) -> tuple[bytes, str]:
    from PIL import Image

    assert isinstance(image, Image.Image)
    out = io.BytesIO()
    if mime == "image/png" or image.mode in ("RGBA", "LA", "P"):
        image.save(out, format="PNG", optimize=True)
        if out.tell() <= MAX_IMAGE_BYTES:
            return out.getvalue(), "image/png"
        out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=85)
    return out.getvalue(), "image/jpeg"


def mime_of(data_url: str) -> str:
    """The media type a `data:` URL declares (a downscaled PNG may have become a JPEG)."""
    return data_url[5 : data_url.index(";")]


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"
