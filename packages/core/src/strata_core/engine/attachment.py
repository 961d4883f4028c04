"""A file the user attaches (`strata run -f`, a file part) as the data URL a request carries, within bounds.

Images and PDFs are inlined as base64, so a 100 MB file would become a 140 MB request that every later
request of the session repeats. Files over `MAX_ATTACHMENT_BYTES` are refused before a byte is read. Images
are fitted by `strata_core.image_fit` (at most 2000 pixels on the long side and `MAX_IMAGE_BYTES`), the
same fitting the read tool's attachments get.
"""

from __future__ import annotations

import base64
import stat
from pathlib import Path

from strata_core.errors import MissingExtraError, StrataError
from strata_core.image_fit import ImageFitError, fitted_image, megabytes

MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024
MAX_IMAGE_BYTES = 3_750_000
"""Anthropic's limit for one image (5 MB of base64)."""
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
            f"{path} is {megabytes(size)}, more than the {megabytes(MAX_ATTACHMENT_BYTES)} an attachment may be; "
            "attach a smaller file (or a downscaled copy of the image)"
        )
    if mime in _SCALABLE:
        with path.open("rb") as handle:
            try:
                data, mime = fitted_image(handle, mime, size=size, max_bytes=MAX_IMAGE_BYTES)
            except (ImageFitError, MissingExtraError) as error:
                raise AttachmentError(f"{path}: {error}") from None
    else:
        data = path.read_bytes()
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def mime_of(data_url: str) -> str:
    """The media type a `data:` URL declares (a downscaled PNG may have become a JPEG)."""
    return data_url[5 : data_url.index(";")]
