"""Attached images and PDFs are bounded before they reach a request: refused when huge, downscaled when big."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

import pytest
from PIL import Image

from strata_core.engine.attachment import (
    MAX_ATTACHMENT_BYTES,
    AttachmentError,
    attachment_data_url,
    mime_of,
)
from strata_core.image_fit import MAX_SIDE


def image_file(path: Path, size: tuple[int, int], format: str, noise: bool = False) -> Path:
    image = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3)) if noise else Image.new("RGB", size, "teal")
    image.save(path, format=format)
    return path


def decoded(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_a_small_image_is_attached_as_it_is(tmp_path: Path) -> None:
    path = image_file(tmp_path / "small.png", (64, 48), "PNG")
    url = attachment_data_url(path, "image/png")
    assert url == f"data:image/png;base64,{base64.b64encode(path.read_bytes()).decode()}"


@pytest.mark.parametrize(
    ("name", "format", "mime", "size"),
    [("wide.png", "PNG", "image/png", (4000, 2000)), ("wide.jpg", "JPEG", "image/jpeg", (8000, 4000))],
)
def test_a_large_image_is_downscaled_to_the_edge_limit(
    tmp_path: Path, name: str, format: str, mime: str, size: tuple[int, int]
) -> None:
    path = image_file(tmp_path / name, size, format)
    url = attachment_data_url(path, mime)
    image = decoded(url)
    assert max(image.size) <= MAX_SIDE and image.size[0] == 2 * image.size[1]
    assert mime_of(url) in ("image/png", "image/jpeg")


def test_a_file_over_the_attachment_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    with path.open("wb") as file:
        file.truncate(MAX_ATTACHMENT_BYTES + 1)
    with pytest.raises(AttachmentError, match=r"huge.png is 20.0 MB, more than the 20.0 MB an attachment may be"):
        attachment_data_url(path, "image/png")


def test_a_png_too_large_to_decode_is_refused(tmp_path: Path) -> None:
    path = image_file(tmp_path / "poster.png", (5000, 4000), "PNG")
    with pytest.raises(AttachmentError, match="5000x4000 pixels, too large to scale down here"):
        attachment_data_url(path, "image/png")


def test_a_file_that_is_not_an_image_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "fake.png"
    path.write_bytes(b"not an image at all" * 300_000)
    with pytest.raises(AttachmentError, match="not an image Strata can read"):
        attachment_data_url(path, "image/png")


def test_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    path = tmp_path / "pipe.png"
    os.mkfifo(path)
    with pytest.raises(AttachmentError, match="is not a regular file"):
        attachment_data_url(path, "image/png")
