"""An image made small enough for a request, for everything that attaches one (the read tool, the user's
attachments): at most `MAX_SIDE` pixels on its long side and `max_bytes` encoded.

An image that already fits is sent as it is. A larger one is downscaled with Pillow (imported on the first
image that needs it) and re-encoded. Decoding costs 4 bytes a pixel before anything can be scaled, so a
non-JPEG over `MAX_DECODED_PIXELS` is refused from its header alone; a JPEG decodes at 1/2, 1/4 or 1/8 of its
size (draft mode), and `reduce` averages whole blocks in one pass, so no half-resized copy is held beside it.
"""

from __future__ import annotations

import io
import math
from typing import BinaryIO

from strata_core.errors import StrataError
from strata_core.extras import needing

MAX_SIDE = 2000
MAX_DECODED_PIXELS = 12_000_000
"""About 48 MB decoded: the most a non-JPEG may need in memory to be scaled. A 4K screenshot (8.3 million
pixels) fits."""


class ImageFitError(StrataError, ValueError):
    """An image that cannot be made to fit; the message says why (the caller names the file)."""


def megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def fitted_image(handle: BinaryIO, mime: str, *, size: int, max_bytes: int) -> tuple[bytes, str]:
    """The image in `handle` (`size` bytes, read from its start) and its media type, as it is when it fits,
    else scaled to `MAX_SIDE` and re-encoded (a PNG may become a JPEG). Blocking: run it in a thread.

    Raises `ImageFitError`, or `MissingExtraError` without Pillow."""
    # ~30 ms to import, only for an image to check. Without Pillow (the `images` extra) no image is attached:
    # its size cannot be checked, and a provider refuses one too large with an error about the whole request.
    with needing("images", "attaching an image"):
        from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(handle)  # reads the header only
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as error:
        if size > max_bytes:
            raise ImageFitError(
                f"it is not an image Strata can read ({error}), and at {megabytes(size)} too large to send as it is"
            ) from None
        return _all_of(handle), mime  # a format Pillow does not know; the model may
    with image:
        width, height = image.size
        if size <= max_bytes and max(width, height) <= MAX_SIDE:
            return _all_of(handle), mime
        if width * height > MAX_DECODED_PIXELS and image.format != "JPEG":
            raise ImageFitError(
                f"it is {width}x{height} pixels, too large to scale down here (images up to "
                f"{MAX_DECODED_PIXELS / 1_000_000:g} megapixels are); attach a copy of at most {MAX_SIDE} pixels "
                "on its long side"
            )
        scale = MAX_SIDE / max(width, height)
        # The size wanted, not a MAX_SIDE square: draft mode keeps both sides at least as large as asked.
        image.draft("RGB", (math.ceil(width * scale), math.ceil(height * scale)))
        keeps_alpha = image.format != "JPEG"
        factor = math.ceil(max(image.size) / MAX_SIDE)
        if factor > 1:
            smaller = image.reduce(factor)
            image.close()  # the full-size pixels go before the smaller copy is resized and encoded
        else:
            smaller = image
        smaller.thumbnail((MAX_SIDE, MAX_SIDE))
        return _encoded(smaller, keeps_alpha=keeps_alpha, max_bytes=max_bytes)


def _all_of(handle: BinaryIO) -> bytes:
    handle.seek(0)
    return handle.read()


def _encoded(image: object, *, keeps_alpha: bool, max_bytes: int) -> tuple[bytes, str]:
    from PIL import Image

    assert isinstance(image, Image.Image)
    out = io.BytesIO()
    if keeps_alpha and image.mode in ("RGBA", "LA", "P"):
        image.save(out, format="PNG", optimize=True)
        if out.tell() <= max_bytes:
            return out.getvalue(), "image/png"
        out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=85)
    if out.tell() > max_bytes:
        raise ImageFitError("even scaled down it is larger than an attachment may be")
    return out.getvalue(), "image/jpeg"
