"""Finding files and matching lines under a directory: ripgrep when available, pure Python when not.

Both paths agree on what is searched: hidden files yes, `.git/` no, symlinks not followed, and files
ignored by `.gitignore` (inside a git repository), `.ignore` or `.rgignore` skipped. `rg` is the one from
the pinned `ripgrep` wheel (or PATH); without it, `wcmatch` matches the globs and `pathspec` reads the
ignore files, so the tools work offline on any machine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import anyio
from attrs import frozen

from strata_core.errors import StrataError

if TYPE_CHECKING:
    import pathspec

GIT_EXCLUDE = "--glob=!**/.git/**"
MAX_STDERR = 8192


class SearchError(StrataError):
    """The search itself failed (a bad regular expression, rg crashing); the message is for the model."""


@frozen
class LineMatch:
    path: str
    """Relative to the searched directory, `/`-separated."""
    line: int
    text: str
    """The matched line as ripgrep reports it: with its newline."""


@frozen
class Found:
    files: tuple[str, ...] = ()
    lines: tuple[LineMatch, ...] = ()
    more: bool = False
    """The limit was reached; there may be more."""
    skipped: bool = False
    """Some files or directories could not be read (permissions, mostly), so they were not searched."""


@cache
def find_rg() -> str | None:
    """`rg` on PATH, else the one the `ripgrep` wheel put next to this Python."""
    found = shutil.which("rg")
    if found:
        return found
    bundled = Path(sys.executable).parent / "rg"
    return str(bundled) if bundled.is_file() and os.access(bundled, os.X_OK) else None


def _strip_dot(path: str) -> str:
    return re.sub(r"^(?:\./)+", "", path.replace("\\", "/"))


# --------------------------------------------------------------------------------------------- ripgrep


async def _rg_lines(
    rg: str, args: list[str], cwd: Path, limit: int, stdin: int = subprocess.DEVNULL
) -> tuple[list[str], bool, int, str]:
    """Run rg, keep up to `limit` stdout lines (then stop it); returns lines, stopped-early, exit code, stderr."""
    lines: list[str] = []
    errors = bytearray()
    stopped = False
    async with await anyio.open_process(
        [rg, *args], cwd=cwd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        stderr = process.stderr

        async def drain_stderr() -> None:
            async for chunk in stderr:
                if len(errors) < MAX_STDERR:
                    errors.extend(chunk)

        async with anyio.create_task_group() as group:
            group.start_soon(drain_stderr)
            pending = b""
            async for chunk in process.stdout:
                *complete, pending = (pending + chunk).split(b"\n")
                lines.extend(part.decode("utf-8", errors="replace") for part in complete if part)
                if len(lines) > limit:
                    stopped = True
                    process.kill()
                    break
            if pending and not stopped:
                lines.append(pending.decode("utf-8", errors="replace"))
        code = await process.wait()
    return lines[:limit], stopped or len(lines) > limit, code, errors.decode("utf-8", errors="replace")


def _skipped_or_failed(code: int, stderr: str) -> bool:
    """Whether rg left paths out (exit 2 after searching); `SearchError` when it stopped on the request itself.

    rg exits 2 both for a path it could not read and for a pattern, glob or flag it refuses before searching
    (a bad regex, a literal newline without multiline, an unclosed `[` in a glob). Searching `.`, rg names
    every path it reports on as `./...` (or not at all, with `--no-messages`); a refusal names none.
    """
    if code != 2:
        return False
    if any(line.startswith("rg: ") and not line.startswith("rg: ./") for line in stderr.splitlines()):
        raise SearchError(stderr.strip())
    return True


def _parse_match(record: str) -> LineMatch | None:
    try:
        event = json.loads(record)
    except json.JSONDecodeError:
        return None
    if event.get("type") != "match":
        return None
    data = event["data"]
    lines = data["lines"]
    text = lines["text"] if "text" in lines else _decode_bytes(lines.get("bytes", ""))
    path = data["path"]
    name = path["text"] if "text" in path else _decode_bytes(path.get("bytes", ""))
    return LineMatch(_strip_dot(name), int(data["line_number"]), text)


def _decode_bytes(encoded: str) -> str:
    import base64

    return base64.b64decode(encoded).decode("utf-8", errors="replace")


# ------------------------------------------------------------------------------------- pure-Python walk


def _git_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def _load_ignores(directory: Path, use_gitignore: bool) -> pathspec.GitIgnoreSpec | None:
    names = [".gitignore", ".ignore", ".rgignore"] if use_gitignore else [".ignore", ".rgignore"]
    lines: list[str] = []
    for name in names:
        try:
            lines.extend((directory / name).read_text(encoding="utf-8", errors="replace").splitlines())
        except OSError:
            continue
    if not lines:
        return None
    # Imported here: only this pure-Python fallback (no rg) reads ignore files, and pathspec costs ~10-20 ms
    # to import, which every `strata` start-up would otherwise pay.
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


Rules: TypeAlias = "tuple[tuple[Path, pathspec.GitIgnoreSpec], ...]"


def _ignored(path: Path, is_dir: bool, rules: Rules) -> bool:
    for base, spec in reversed(rules):  # the nearest ignore file speaks first
        relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
        verdict = spec.check_file(relative).include
        if verdict is not None:
            return verdict
    return False


def _inherited_rules(root: Path) -> Rules:
    repo = _git_root(root)
    chain = [d for d in reversed(root.parents) if repo is not None and (d == repo or repo in d.parents)]
    rules = []
    for directory in chain:
        spec = _load_ignores(directory, use_gitignore=True)
        if spec is not None:
            rules.append((directory, spec))
    return tuple(rules)


def glob_matches(relative: str, pattern: str) -> bool:
    """rg's `--glob` for one path: a pattern without `/` matches a file name at any depth; `!` negates."""
    from wcmatch import glob as wcglob  # wcmatch: ~6 ms to import, only when there is something to glob

    flags = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB | wcglob.MATCHBASE | wcglob.NEGATE | wcglob.NEGATEALL
    return bool(wcglob.globmatch(relative, pattern, flags=flags))


def _selected(root: Path, path: Path, is_dir: bool, pattern: str | None, rules: Rules) -> bool:
    """rg's precedence: a `--glob` decides for the files it names, over any ignore file; a negated glob only
    excludes. Directories are pruned by ignore files unless the glob names them."""
    if pattern is None:
        return not _ignored(path, is_dir, rules)
    negated = pattern.startswith("!")
    matched = glob_matches(path.relative_to(root).as_posix(), pattern)
    if is_dir:
        return (matched and not negated) or not _ignored(path, True, rules)
    if negated:
        return matched and not _ignored(path, False, rules)
    return matched


def walk_files(
    root: Path, pattern: str | None = None, on_error: Callable[[OSError], object] | None = None
) -> Iterator[str]:
    """Relative paths of the files rg would list under `root` for the glob `pattern`, hidden ones included;
    `on_error` hears of each directory that could not be listed."""
    use_gitignore = _git_root(root) is not None
    rules_by_dir: dict[str, Rules] = {str(root): _inherited_rules(root)}
    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error):
        here = Path(dirpath)
        rules = rules_by_dir.pop(dirpath)
        spec = _load_ignores(here, use_gitignore)
        if spec is not None:
            rules = (*rules, (here, spec))
        kept_dirs = []
        for name in sorted(dirnames):
            child = here / name
            if name != ".git" and not child.is_symlink() and _selected(root, child, True, pattern, rules):
                kept_dirs.append(name)
                rules_by_dir[str(child)] = rules
        dirnames[:] = kept_dirs
        for name in sorted(filenames):
            child = here / name
            if not child.is_symlink() and _selected(root, child, False, pattern, rules):
                yield child.relative_to(root).as_posix()


def _python_files(root: Path, pattern: str | None, limit: int) -> Found:
    files: list[str] = []
    unreadable: list[OSError] = []
    for relative in walk_files(root, pattern, unreadable.append):
        files.append(relative)
        if len(files) > limit:
            return Found(files=tuple(files[:limit]), more=True, skipped=bool(unreadable))
    return Found(files=tuple(files), skipped=bool(unreadable))


def _grep_file(
    root: Path, relative: str, regex: re.Pattern[str], on_error: Callable[[OSError], object]
) -> Iterator[LineMatch]:
    # Like rg: never through a symlink, and only regular files (a FIFO opened for reading would block).
    try:
        fd = os.open(root / relative, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        on_error(error)
        return
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        data = handle.read()
    yield from _grep_bytes(data, relative, regex)


def _grep_bytes(data: bytes, relative: str, regex: re.Pattern[str]) -> Iterator[LineMatch]:
    if b"\x00" in data[:8192]:  # rg skips binary files it was not asked for by name
        return
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(keepends=True), start=1):
        if regex.search(line.rstrip("\r\n")):
            yield LineMatch(relative, number, line)


def _python_grep(root: Path, pattern: str, target: str, include: str | None, limit: int) -> Found:
    try:
        regex = re.compile(pattern)
    except re.error as error:
        raise SearchError(f"regex parse error: {error}") from None
    unreadable: list[OSError] = []
    candidates = [target] if target != "." else walk_files(root, include, unreadable.append)
    matches: list[LineMatch] = []
    for relative in candidates:
        for match in _grep_file(root, relative, regex, unreadable.append):
            matches.append(match)
            if len(matches) > limit:
                return Found(lines=tuple(matches[:limit]), more=True, skipped=bool(unreadable))
    return Found(lines=tuple(matches), skipped=bool(unreadable))


# ------------------------------------------------------------------------------------------ the API


@frozen
class Search:
    """File and content search under a directory. `use_rg=False` forces the pure-Python path."""

    use_rg: bool = True

    def _rg(self) -> str | None:
        return find_rg() if self.use_rg else None

    def uses_rg(self) -> bool:
        """Whether searches run ripgrep (else the pure-Python walk)."""
        return self._rg() is not None

    async def files(self, root: Path, *, pattern: str | None, limit: int) -> Found:
        """Up to `limit` files under `root` matching the glob `pattern` (every file when `None`)."""
        rg = self._rg()
        if rg is None:
            return await anyio.to_thread.run_sync(_python_files, root, pattern, limit)
        args = ["--no-config", "--files", "--hidden", *([f"--glob={pattern}"] if pattern else []), GIT_EXCLUDE, "."]
        try:
            lines, more, code, stderr = await _rg_lines(rg, args, root, limit)
        except OSError:  # an rg that cannot run here (wrong platform, not executable): search without it
            return await anyio.to_thread.run_sync(_python_files, root, pattern, limit)
        if code not in (0, 1, 2) and not more:
            raise SearchError(stderr.strip() or f"ripgrep failed with code {code}")
        skipped = _skipped_or_failed(code, stderr)
        return Found(files=tuple(_strip_dot(line) for line in lines), more=more, skipped=skipped)

    async def grep(self, root: Path, pattern: str, *, target: str = ".", include: str | None, limit: int) -> Found:
        """Up to `limit` lines matching the regular expression, in `root` (or in the file `target` inside it)."""
        _refuse_nul(pattern)
        rg = self._rg()
        if rg is None:
            return await anyio.to_thread.run_sync(_python_grep, root, pattern, target, include, limit)
        args = ["--no-config", "--json", "--hidden", "--no-messages"]
        args += [f"--glob={include}"] if include else []
        args += [GIT_EXCLUDE, "--", pattern, target]
        try:
            records, more, code, stderr = await _rg_lines(rg, args, root, _RECORD_BUDGET * limit)
        except OSError:
            return await anyio.to_thread.run_sync(_python_grep, root, pattern, target, include, limit)
        if code not in (0, 1, 2) and not more:
            raise SearchError(stderr.strip() or f"ripgrep failed with code {code}")
        skipped = _skipped_or_failed(code, stderr)
        matches = [m for m in (_parse_match(record) for record in records) if m is not None]
        return Found(lines=tuple(matches[:limit]), more=more or len(matches) > limit, skipped=skipped)

    async def grep_descriptor(self, fd: int, name: str, pattern: str, *, limit: int) -> Found:
        """Lines matching in the one open file behind `fd` (reported as `name`): what was checked is searched."""
        _refuse_nul(pattern)
        rg = self._rg()
        if rg is not None:
            args = ["--no-config", "--json", "--no-messages", "--", pattern, "-"]
            try:
                records, more, code, stderr = await _rg_lines(rg, args, Path("/"), _RECORD_BUDGET * limit, stdin=fd)
            except OSError:
                rg = None
            else:
                skipped = _skipped_or_failed(code, stderr)
                found = [m for m in (_parse_match(record) for record in records) if m is not None]
                named = [LineMatch(name, m.line, m.text) for m in found]
                return Found(lines=tuple(named[:limit]), more=more or len(named) > limit, skipped=skipped)
        return await anyio.to_thread.run_sync(_python_grep_descriptor, fd, name, pattern, limit)


def _refuse_nul(pattern: str) -> None:
    """No program takes an argument holding a NUL byte (rg would not start), and no line searched holds one: a
    file with a NUL byte is binary, which both rg and the Python walk skip."""
    if "\0" in pattern:
        raise SearchError("the pattern holds a NUL byte, which no searched line can hold (binary files are skipped)")


def _python_grep_descriptor(fd: int, name: str, pattern: str, limit: int) -> Found:
    try:
        regex = re.compile(pattern)
    except re.error as error:
        raise SearchError(f"regex parse error: {error}") from None
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    matches = list(_grep_bytes(b"".join(chunks), name, regex))
    return Found(lines=tuple(matches[:limit]), more=len(matches) > limit)


_RECORD_BUDGET = 4
"""rg's JSON stream interleaves begin/end/summary records with matches; allow for them before stopping."""
