"""What every tool that reads or writes a file's content applies, beyond `external_directory`.

- The `.env` rule is the `read` rule: OpenCode's defaults ask for `*.env` and `*.env.*` (not
  `*.env.example`). OpenCode applies it to `read` only; here edit, write, apply_patch and grep results
  obey it too, so a secret the read rules keep from the model does not reach it another way.
- Protected paths: Strata's and OpenCode's config files (`strata.json(c)`, `opencode.json(c)`) and the
  `.strata/`, `.opencode/` and `.git/` directories, anywhere in the project, are written only with the
  `protected_path` permission (ask by default, so a headless run refuses), so a model cannot grant itself
  permissions or plant a git hook. So is a write into a dir git takes for a git dir (a bare repository under
  any name, `vendor/x.git/`), or one that makes a dir one (its `HEAD`, `objects` or `refs` written last).
- A secret file's content, once the user allowed it to be shown, is not stored: its diffs are replaced by
  `REDACTED_DIFF`, and read and grep name the file in `ToolResult.secret_files` (`strata_core.secret_outputs`).
- Content is read and written through the descriptor `confined_file` opened, within `MAX_EDIT_BYTES`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path, PurePosixPath

import anyio

from strata_core.permission.rules import wildcard_match
from strata_core.tool.contract import ToolContext, ToolFailure
from strata_core.tool.support.confined_file import (
    NotRegularFile,
    Target,
    descriptor,
    open_to_read,
    open_to_write,
    parent_descriptor,
    patterns,
    read_all,
    replace_content,
)
from strata_core.tool.support.file_text import MAX_EDIT_BYTES, TextFile, decode_text, encode_text, too_large

PROTECTED_PATH = "protected_path"
"""The permission key for writes to config files, `.strata/`, `.opencode/` and `.git/`."""
PROTECTED_DIRECTORIES = frozenset({".git", ".strata", ".opencode"})
PROTECTED_FILES = frozenset({"strata.json", "strata.jsonc", "opencode.json", "opencode.jsonc"})
REDACTED_DIFF = "[diff of a protected file not kept]"


def is_protected(relative: str) -> bool:
    """Whether a worktree-relative path is a config file or lies in a protected directory."""
    parts = relative.split("/")
    if parts and parts[0] == "..":
        return False  # outside the project: `external_directory` governs it
    # The names themselves too: a `.git` *file* (a worktree's or submodule's) says where the repository is.
    return parts[-1] in PROTECTED_FILES or any(part in PROTECTED_DIRECTORIES for part in parts)


def in_git_dir(root: Path, relative: str) -> bool:
    """Whether a worktree-relative path, once written, lies in a dir under `root` that git takes for a git
    dir: one already, or one that this write completes."""
    from strata_core.sandbox.protected import makes_git_dir  # loaded only when a tool writes

    parts = relative.split("/")
    if parts[0] == "..":
        return False
    directory = root
    for part, child in pairwise(parts):
        directory = directory / part
        try:
            names = {entry.name for entry in directory.iterdir()}
        except OSError:
            return False  # not there yet: nothing below it exists to complete a git dir
        if makes_git_dir(names | {child}):
            return True
    return False


def _read_action(ctx: ToolContext, relative: str) -> str | None:
    """The action of the last `read` rule matching the path; None when no rule speaks of it."""
    for rule in reversed(ctx.ruleset):
        if wildcard_match("read", rule.permission) and wildcard_match(relative, rule.pattern):
            return rule.action
    return None


def is_secret(ctx: ToolContext, target: Target) -> bool:
    """Whether this file's content is a secret: the read rules keep it back (a `.env` file under the default
    rules), or it is named like one. Shown only with the user's consent, and then never stored."""
    return any(is_secret_path(ctx, pattern) for pattern in patterns(ctx, target))


def is_secret_path(ctx: ToolContext, relative: str) -> bool:
    """`is_secret` for a worktree-relative path (a grep match's file).

    By name as well as by rule: a rule that lets `.env` files be read without asking (in config, or an agent
    such as explore that may read everything) decides whether the model sees them, not whether the session
    database, its exports and every later request keep a copy."""
    # Imported here: the sandbox package is loaded only when a tool reads or writes (or a command runs).
    from strata_core.sandbox.protected import is_secret_name

    return not readable(ctx, relative) or is_secret_name(PurePosixPath(relative).name)


def readable(ctx: ToolContext, relative: str) -> bool:
    """Whether the read rules let a worktree-relative path be shown without asking (grep keeps only these).

    A path no rule speaks of is readable: rules that say nothing restrict nothing (a bare `ToolContext`)."""
    return _read_action(ctx, relative) in (None, "allow")


async def ask_to_read(ctx: ToolContext, target: Target) -> None:
    await ctx.ask("read", patterns(ctx, target), ["*"], {"filepath": str(target.named)})


async def ask_to_write(ctx: ToolContext, targets: Sequence[Target]) -> None:
    """The `.env` (read) rule for each target's content, then `protected_path` for the protected ones."""
    for target in targets:
        await ask_to_read(ctx, target)
    found = (p for t in targets for p in patterns(ctx, t) if is_protected(p) or in_git_dir(ctx.worktree, p))
    protected = list(dict.fromkeys(found))
    if protected:
        metadata = {"filepath": ", ".join(str(t.named) for t in targets)}
        await ctx.ask(PROTECTED_PATH, protected, protected, metadata)


def check_size(path: Path, size: int) -> None:
    if size > MAX_EDIT_BYTES:
        raise ToolFailure(too_large(path, size))


def _read_capped(fd: int, path: Path) -> TextFile:
    with descriptor(fd):
        data = read_all(fd, MAX_EDIT_BYTES)
    check_size(path, len(data))
    return decode_text(data)


async def read_current(ctx: ToolContext, target: Target) -> TextFile | None:
    """The file's text as it is now (`None` when it does not exist), read through a confined descriptor."""
    try:
        fd = await open_to_read(ctx, target)
    except FileNotFoundError:
        return None
    return await anyio.to_thread.run_sync(_read_capped, fd, target.named, abandon_on_cancel=True)


def _write(fd: int, data: bytes) -> None:
    with descriptor(fd):
        replace_content(fd, data)


async def write_content(ctx: ToolContext, target: Target, text: str, bom: bool) -> None:
    """Make the file hold exactly `text` (with its BOM), creating it and its directories if needed."""
    data = encode_text(text, bom)
    check_size(target.named, len(data))
    fd = await open_to_write(ctx, target)
    await anyio.to_thread.run_sync(_write, fd, data, abandon_on_cancel=True)


def remove(target: Target) -> None:
    """Delete the file at the resolved path, from its parent's descriptor (no symlink followed)."""
    with descriptor(parent_descriptor(target)) as parent:
        found = os.stat(target.resolved.name, dir_fd=parent, follow_symlinks=False)
        if not stat.S_ISREG(found.st_mode):
            raise NotRegularFile(target.named, found.st_mode)
        os.unlink(target.resolved.name, dir_fd=parent)
