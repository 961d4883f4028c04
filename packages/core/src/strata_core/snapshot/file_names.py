"""File names between git, the file system and the text Strata stores: a name that is not UTF-8 kept exact,
and git's lists of names read.

git lists names as bytes. They are decoded with `surrogateescape`, so a byte that is not UTF-8 (a Latin-1
`caf\\xe9.txt` from an old archive) is a lone surrogate that encodes back to the same byte for git's stdin,
an argument or a system call, and the snapshot records and restores the file byte for byte. Such a string
cannot be stored or sent as JSON, so what leaves the snapshot (a patch part's files, a diff's file) shows
each such byte as U+FFFD (`shown_name`), as Node, and so OpenCode, decodes it; a name coming back (a revert
of that patch part) is matched to the real names it stands for (`real_names_in_worktree`, and the snapshot's
trees in `GitSnapshot`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from strata_core.snapshot.contract import FileStatus
from strata_core.text import valid_text

REPLACED = "\ufffd"
"""What `shown_name` puts for each byte that is not UTF-8."""


def split_nul(out: bytes) -> list[str]:
    """git's NUL-separated names, each byte that is not UTF-8 kept as a lone surrogate."""
    return [item.decode(errors="surrogateescape") for item in out.split(b"\0") if item]


def name_bytes(name: str) -> bytes:
    """The bytes of a name `split_nul` decoded, for git's stdin: the file's own, not an encoding error."""
    return name.encode(errors="surrogateescape")


def shown_name(name: str) -> str:
    """`name` as text that can be stored and sent: each byte that is not UTF-8 as U+FFFD."""
    return valid_text(name)


def may_stand_for_others(name: str) -> bool:
    """Whether `name` may be a `shown_name` of other names (it holds U+FFFD), which must then be looked up."""
    return REPLACED in name


def matching(names: Iterable[str], shown: set[str]) -> set[str]:
    """Those of `names` (as `split_nul` decodes them) that show as one of `shown`."""
    return {name for name in names if shown_name(name) in shown}


def real_names_in_worktree(worktree: Path, shown: str) -> list[str]:
    """The names under `worktree` (relative, `/`-separated) that show as `shown`: each part of the path that
    holds U+FFFD is matched against its directory's entries, the others are taken as they are."""
    found = [""]
    for part in shown.split("/"):
        if not may_stand_for_others(part):
            found = [f"{prefix}{part}" for prefix in found]
        else:
            found = [f"{prefix}{entry}" for prefix in found for entry in _entries_showing(worktree / prefix, part)]
        found = [f"{name}/" for name in found]
    return [name.removesuffix("/") for name in found]


def _entries_showing(directory: Path, part: str) -> list[str]:
    try:
        entries = os.listdir(directory)  # noqa: PTH208 - names only, decoded as `split_nul` decodes them
    except OSError:
        return []  # gone, or not a directory: nothing there to put back or remove
    return sorted(entry for entry in entries if shown_name(entry) == part)


def name_statuses(out: bytes) -> dict[str, FileStatus]:
    """`--name-status -z`: a status letter, then the path, each NUL-terminated."""
    items = split_nul(out)
    statuses: dict[str, FileStatus] = {}
    for code, name in zip(items[::2], items[1::2], strict=False):
        statuses[name] = "added" if code.startswith("A") else "deleted" if code.startswith("D") else "modified"
    return statuses


def numstat_counts(out: bytes) -> dict[str, tuple[int | None, int | None]]:
    """`--numstat -z`: `added<TAB>deleted<TAB>path` per file; `-` counts for a binary file (None here)."""
    counts: dict[str, tuple[int | None, int | None]] = {}
    for item in split_nul(out):
        added, deleted, name = item.split("\t", 2)
        counts[name] = (None, None) if added == "-" else (int(added), int(deleted))
    return counts
