"""Telling text from binary, and recognising the images and PDFs a model can be shown as attachments."""

from __future__ import annotations

import mimetypes
from pathlib import Path

ATTACHABLE = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp", "application/pdf"})

_BINARY_EXTENSIONS = """.zip .tar .gz .exe .dll .so .class .jar .war .7z .doc .docx .xls .xlsx .ppt .pptx .odt .ods
    .odp .bin .dat .obj .o .a .lib .wasm .pyc .pyo"""
BINARY_EXTENSIONS = frozenset(_BINARY_EXTENSIONS.split())


def sniff(sample: bytes) -> str | None:
    """The media type the leading bytes announce, for the attachable kinds."""
    if sample.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if sample.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if sample.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if sample.startswith(b"RIFF") and sample[8:12] == b"WEBP":
        return "image/webp"
    if sample.startswith(b"%PDF-"):
        return "application/pdf"
    return None


def media_type(path: Path, sample: bytes) -> str | None:
    """The attachment type of a file: by content first, then by extension; `None` for anything else."""
    sniffed = sniff(sample)
    if sniffed is not None:
        return sniffed
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed if guessed in ATTACHABLE else None


def is_binary(path: Path, sample: bytes) -> bool:
    """A known binary extension, a NUL byte, or more than 30 % control characters in the sample."""
    if path.suffix.lower() in BINARY_EXTENSIONS:
        return True
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    control = sum(1 for byte in sample if byte < 9 or 13 < byte < 32)
    return control / len(sample) > 0.3
