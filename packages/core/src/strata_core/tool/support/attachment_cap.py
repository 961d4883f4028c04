"""Images and PDFs the read tool attaches, kept to a size a request can carry.

A PDF is sent as it is up to `MAX_ATTACHMENT_BYTES`. An image is fitted by `strata_core.image_fit` (scaled
to at most 2000 pixels on its long side and `MAX_ATTACHMENT_BYTES`, or refused from its header when decoding
it would itself cost hundreds of megabytes). A 100 MB PNG so never becomes a 140 MB request body.
"""

from __future__ import annotations

import os

from strata_core.errors import MissingExtraError
from strata_core.image_fit import ImageFitError, fitted_image, megabytes
from strata_core.tool.contract import ToolFailure
from strata_core.tool.support.confined_file import descriptor, read_all

MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024


def _refuse(path: os.PathLike[str] | str, why: str) -> ToolFailure:
    return ToolFailure(f"Cannot attach {path}: {why}")


def capped_attachment(fd: int, path: os.PathLike[str] | str, mime: str) -> tuple[bytes, str]:
    """The bytes to attach and their media type; closes `fd`. Raises `ToolFailure` when it cannot fit."""
    with descriptor(fd):
        size = os.fstat(fd).st_size
        if mime == "application/pdf":
            if size > MAX_ATTACHMENT_BYTES:
                raise _refuse(path, f"the PDF is {megabytes(size)}; at most {megabytes(MAX_ATTACHMENT_BYTES)}")
            return read_all(fd, MAX_ATTACHMENT_BYTES), mime
        with os.fdopen(os.dup(fd), "rb") as handle:
            try:
                return fitted_image(handle, mime, size=size, max_bytes=MAX_ATTACHMENT_BYTES)
            except (ImageFitError, MissingExtraError) as error:
                raise _refuse(path, str(error)) from None
