"""Snapshots in a git directory of Strata's own, through the `git` command (the default `Snapshot`).

The git directory lives at `<data>/snapshot/<project id>/<sha1 of the worktree>` (OpenCode's layout) and
is only ever given to git as `--git-dir`, with the worktree as `--work-tree`: the user's repository, index,
config and hooks are never read for writing or run (`core.hooksPath` is pointed at nothing, `GIT_*`
variables of the caller's environment are dropped, and `git init` copies no templates). The user's
`.gitignore` files and `.git/info/exclude` are honoured; files over 2 MiB are left out, as OpenCode leaves
them out (a large file the agent writes is neither diffed nor reverted), and so are the files `leave_out`
names: the runtime passes the secret-file rule (`.env` and the like), whose content Strata never stores,
where OpenCode would copy it into its snapshots and its diffs.

A snapshot costs one git process when nothing changed (`ls-files` of what differs from the last one; the tree
written last time is reused while the index is untouched): git keeps the worktree's stat data in the index, so
an unchanged 10,000-file tree is not re-read, only stat'ed, and git's walk for new files is skipped while no
directory and no ignore rule changed since the last walk (`untracked_cache`): about 15 ms of CPU on 10,000
files on the benchmark machine, nearly all of it git's 10,000 `lstat` calls. The `git`
CLI was chosen over dulwich by measurement (benchmarks/README.md, "Snapshots"): dulwich's staging re-reads
files git's index settles from stat data, about 2 s a snapshot against git's 31 ms on 10,000 files.
One lock (in the process, and `flock` across
processes) serialises every operation on one git directory, so two sessions on one worktree never interleave
their index updates.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path, PurePosixPath

import anyio
import anyio.to_thread
from attrs import Factory, define, field

from strata_core.errors import StrataError
from strata_core.logging import get_logger
from strata_core.snapshot.contract import FileDiff, Patch, by_snapshot
from strata_core.snapshot.file_names import (
    matching,
    may_stand_for_others,
    name_bytes,
    name_statuses,
    numstat_counts,
    real_names_in_worktree,
    shown_name,
    split_nul,
)
from strata_core.snapshot.unified_diff import whole_file_patch
from strata_core.snapshot.untracked_cache import Signature, UntrackedCache, read_clock, signature

log = get_logger(__name__)

LARGE_FILE_BYTES = 2 * 1024 * 1024
"""Files above this size stay out of snapshots (OpenCode's limit)."""
PRUNE_AGE = "7.days.ago"
PRUNE_EVERY_SECONDS = 3600
"""OpenCode prunes hourly while it runs; a Strata process prunes at start when the last prune is this old."""
SETTINGS = (
    ("core.autocrlf", "false"),
    ("core.longpaths", "true"),
    ("core.symlinks", "true"),
    ("core.fsmonitor", "false"),
    ("core.quotepath", "false"),
    ("core.hooksPath", os.devnull),
    ("gc.auto", "0"),
)
"""Set on every command: the caller's global config must not change what is recorded or run hooks."""

_locks: dict[Path, anyio.Lock] = {}


class SnapshotError(StrataError):
    """A snapshot operation that must not fail silently (a revert or restore) did not complete."""


def snapshot_dir(data: Path, project_id: str, worktree: Path) -> Path:
    """Where the snapshots of `worktree` are kept, as OpenCode keeps its own under its data directory."""
    return data / "snapshot" / project_id / hashlib.sha1(str(worktree).encode()).hexdigest()


def clean_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without the variables that would point git at another repository, index or config."""
    return {name: value for name, value in env.items() if not name.startswith("GIT_")}


@define
class GitSnapshot:
    """The `Snapshot` service over the `git` command, for one worktree (see the module docstring)."""

    gitdir: Path
    worktree: Path
    env: Mapping[str, str] = field(converter=clean_env)
    git: str = "git"
    scope: str = "."
    """The part of the worktree recorded, relative to it: the session's directory (OpenCode's choice)."""
    leave_out: Callable[[str], bool] = field(default=lambda name: False)
    """Whether a file (by its name) stays out of the snapshots."""
    _ready: bool = field(default=False, init=False)
    _user_exclude: tuple[Path, Signature] | None = field(default=None, init=False)
    _last_tree: tuple[tuple[int, int, int], str] | None = field(default=None, init=False)
    """The index's stat data when `write-tree` last ran, and the tree it wrote."""
    _untracked: UntrackedCache = field(
        default=Factory(lambda self: UntrackedCache(self.worktree, self.scope, self.env), takes_self=True),
        init=False,
    )

    async def track(self) -> str | None:
        try:
            async with self._locked():
                await self._prepare()
                await self._add_changes()
                return await self._write_tree()
        except (OSError, SnapshotError) as error:
            log.warning("snapshot.track_failed", worktree=str(self.worktree), error=str(error))
            return None

    async def warm_up(self) -> None:
        """Take a snapshot whose hash nobody keeps, so the turn's first one is cheap: the git directory's
        set-up, the first full scan (`init`, `ls-files`, `update-index`, `write-tree` on a new project) and
        the untracked cache's record run now, and the step's own snapshot then costs one `ls-files` of the
        tracked files (no walk for new ones, the tree reused) unless something changed meanwhile.

        The runtime starts it in the background as it opens, where it overlaps the first request's assembly;
        the step still takes its own snapshot, so what is stored does not change. Shielded: a git process
        cancelled half-way could leave its `index.lock` behind for the next snapshot to fail on."""
        self._untracked.record_from_the_first_scan()
        with anyio.CancelScope(shield=True):
            await self.track()

    async def patch(self, before: str, after: str) -> Patch:
        if before == after:
            return Patch(before, ())
        async with self._locked():
            names = await self._run("diff-tree", "-r", "-z", "--name-only", "--no-renames", before, after, "--")
        shown = (self._absolute(shown_name(name)) for name in split_nul(names))
        return Patch(before, tuple(dict.fromkeys(shown)))  # two names may show alike (`file_names`)

    async def diff(self, before: str, after: str) -> list[FileDiff]:
        if before == after:
            return []
        async with self._locked():
            args = ("diff-tree", "-r", "-z", "--no-renames", before, after, "--", self.scope)
            statuses = name_statuses(await self._run(*args[:4], "--name-status", *args[4:]))
            counts = numstat_counts(await self._run(*args[:4], "--numstat", *args[4:]))
            texts = await self._contents([(before, name) for name in counts] + [(after, name) for name in counts])
        diffs = []
        for name, (additions, deletions) in sorted(counts.items()):
            binary = additions is None
            old, new = texts.get((before, name), ""), texts.get((after, name), "")
            shown = shown_name(name)
            diffs.append(
                FileDiff(
                    file=shown,
                    patch="" if binary else whole_file_patch(shown, old, new),
                    additions=additions or 0,
                    deletions=deletions or 0,
                    status=statuses.get(name, "modified"),
                )
            )
        return diffs

    async def diff_text(self, before: str, after: str) -> str:
        if before == after:
            return ""
        async with self._locked():
            text = await self._run("diff-tree", "-r", "-p", "--no-renames", "--no-ext-diff", before, after, "--")
        return text.decode(errors="replace").strip()

    async def differing(self, tree: str, current: str, files: Iterable[str]) -> set[str]:
        relative = [self._relative(path) for path in files]
        if tree == current or not relative:
            return set()
        async with self._locked():
            real = await self._real_names((tree, current), relative)
            names = await self._run("diff-tree", "-r", "-z", "--name-only", "--no-renames", tree, current, "--", *real)
        return {self._absolute(shown_name(name)) for name in split_nul(names)}

    async def revert(self, patches: Sequence[Patch]) -> None:
        for tree, paths in by_snapshot(patches).items():
            await self.restore(tree, paths)

    async def restore(self, tree: str, files: Iterable[str]) -> None:
        relative = sorted({self._relative(path) for path in files})
        if not relative:
            return
        async with self._locked():
            relative = await self._real_names((tree,), relative)
            held = set(split_nul(await self._run("ls-tree", "-r", "-z", "--name-only", tree, "--", *relative)))
            present = [name for name in relative if name in held]
            if present:
                await self._run("checkout", tree, "--", *present)
            for name in relative:
                if name not in held:
                    (self.worktree / name).unlink(missing_ok=True)

    async def prune(self) -> None:
        if not self.gitdir.is_dir():
            return
        try:
            async with self._locked():
                await self._run("gc", "-q", f"--prune={PRUNE_AGE}")
        except (OSError, SnapshotError) as error:
            log.warning("snapshot.prune_failed", gitdir=str(self.gitdir), error=str(error))

    async def prune_if_due(self) -> None:
        """`prune` when the last one (by any process) is an hour old or more; for the runtime's start."""
        stamp = self.gitdir / "strata-pruned"
        try:
            if stamp.exists() and time.time() - stamp.stat().st_mtime < PRUNE_EVERY_SECONDS:
                return
            if self.gitdir.is_dir():
                stamp.touch()
        except OSError:
            return
        await self.prune()

    # -- recording ---------------------------------------------------------------------------------------

    async def _prepare(self) -> None:
        if not self._ready:
            if not (self.gitdir / "HEAD").is_file():
                self.gitdir.mkdir(parents=True, exist_ok=True)
                await self._run("init", "-q", "--template=", git_dir_only=True)
            self._ready = True
        self._sync_excludes()

    def _sync_excludes(self) -> None:
        """Copy the user's `.git/info/exclude` into ours whenever it changed (it is read by `ls-files`)."""
        source = _user_exclude_file(self.worktree)
        found = signature(str(source)) if source is not None else None
        stamp = (source, found) if source is not None and found is not None else None
        if stamp == self._user_exclude and stamp is not None:
            return
        target = self.gitdir / "info" / "exclude"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes() if stamp is not None and source is not None else b"")
        self._user_exclude = stamp

    async def _add_changes(self) -> None:
        """Stage what differs from the last snapshot: changed, deleted and new files, large ones left out.

        Git's walk for new files is skipped while no directory it walks and no ignore rule changed since the
        last full scan (`untracked_cache`); the tracked files are always checked, by git.
        """
        tracked = ("ls-files", "-z", "--modified", "--deleted")
        if self._untracked.unchanged():
            await self._stage(await self._run(*tracked, "--", self.scope))
            return
        self._untracked.forget()
        clock = read_clock(self.gitdir)  # before git's scan: what changes after it is newer (racy entries)
        left_large = await self._stage(await self._run(*tracked, "--others", "--exclude-standard", "--", self.scope))
        await self._untracked.record(clock, self._run, left_large, _user_exclude_file(self.worktree))

    async def _stage(self, listed: bytes) -> list[str]:
        """Stage the files `ls-files` listed, but for those left out; the ones left out for their size."""
        changed = sorted(set(split_nul(listed)))
        kept = [name for name in changed if not self.leave_out(PurePosixPath(name).name)]
        large = {name for name in kept if self._is_large(name)}
        wanted = [name for name in kept if name not in large]
        if wanted:
            # update-index takes the names literally (add's pathspecs cost O(names x files) to match), and a
            # threshold of one byte streams every new blob into one pack instead of a file per object: the
            # first snapshot of 10,000 files takes under 2 s instead of 10 s (benchmarks/README.md, "Snapshots").
            # Embedded repositories (`sub/`) are skipped, as their content is not this worktree's.
            names = b"\0".join(name_bytes(name) for name in wanted) + b"\0"
            streamed = (("core.bigFileThreshold", "1"),)
            await self._run("update-index", "--add", "--remove", "-z", "--stdin", stdin=names, settings=streamed)
        return sorted(large)

    async def _write_tree(self) -> str | None:
        """The index as a tree; the last one again, without a process, when the index has not changed since.

        Only this class writes the index, under the lock, so an index with the same stat data holds the same
        entries: an unchanged step costs one git process (`ls-files`) instead of two.
        """
        stamp = self._index_stamp()
        if self._last_tree is not None and stamp is not None and self._last_tree[0] == stamp:
            return self._last_tree[1]
        tree = (await self._run("write-tree")).decode().strip() or None
        after = self._index_stamp()  # write-tree may store its cache of trees in the index
        self._last_tree = (after, tree) if after is not None and tree is not None else None
        return tree

    def _index_stamp(self) -> tuple[int, int, int] | None:
        try:
            stat = (self.gitdir / "index").stat()
        except OSError:
            return None
        return (stat.st_ino, stat.st_size, stat.st_mtime_ns)

    def _is_large(self, name: str) -> bool:
        try:
            return (self.worktree / name).lstat().st_size > LARGE_FILE_BYTES
        except OSError:
            return False  # deleted: staged as a removal

    # -- git ---------------------------------------------------------------------------------------------

    async def _real_names(self, trees: Sequence[str], names: list[str]) -> list[str]:
        """`names` (relative, as `shown_name` shows them) as git and the file system hold them: a name with
        U+FFFD stands for every name in `trees` or the worktree that shows as it (see `file_names`)."""
        shown = {name for name in names if may_stand_for_others(name)}
        if not shown:
            return names
        found = {name for name in names if name not in shown}
        for tree in trees:
            found |= matching(split_nul(await self._run("ls-tree", "-r", "-z", "--name-only", tree)), shown)
        for name in shown:
            found.update(real_names_in_worktree(self.worktree, name))
        return sorted(found)

    async def _contents(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """The text of each `(tree, path)` (absent ones left out), read by one `cat-file --batch`."""
        usable = [(tree, name) for tree, name in wanted if "\n" not in name]
        if not usable:
            return {}
        query = b"".join(tree.encode() + b":" + name_bytes(name) + b"\n" for tree, name in usable)
        out = await self._run("cat-file", "--batch", stdin=query)
        texts: dict[tuple[str, str], str] = {}
        offset = 0
        for key in usable:
            end = out.index(b"\n", offset)
            header = out[offset:end].split()
            offset = end + 1
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                texts[key] = out[offset : offset + size].decode(errors="replace")
                offset += size + 1
        return texts

    async def _run(
        self,
        *args: str,
        stdin: bytes | None = None,
        git_dir_only: bool = False,
        settings: Sequence[tuple[str, str]] = (),
    ) -> bytes:
        command = [self.git, "--git-dir", str(self.gitdir)]
        if not git_dir_only:
            command += ["--work-tree", str(self.worktree), "--literal-pathspecs"]
        for key, value in (*SETTINGS, *settings):
            command += ["-c", f"{key}={value}"]
        result = await anyio.run_process([*command, *args], input=stdin, cwd=self.worktree, env=self.env, check=False)
        if result.returncode != 0:
            reason = result.stderr.decode(errors="replace").strip() or f"exit code {result.returncode}"
            raise SnapshotError(f"git {args[0]} failed in {self.worktree}: {reason}")
        return result.stdout

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        lock = _locks.get(self.gitdir) or _locks.setdefault(self.gitdir, anyio.Lock(fast_acquire=True))
        async with lock:
            self.gitdir.mkdir(parents=True, exist_ok=True)
            with (self.gitdir / "strata.lock").open("a") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # another process holds it: wait for it off the event loop
                    await anyio.to_thread.run_sync(fcntl.flock, handle, fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)

    def _relative(self, path: str) -> str:
        return Path(path).relative_to(self.worktree).as_posix() if Path(path).is_absolute() else path

    def _absolute(self, name: str) -> str:
        return (self.worktree / name).as_posix()


def _user_exclude_file(worktree: Path) -> Path | None:
    """The worktree's own `info/exclude`: under `.git/`, or under the directory a `.git` file points at."""
    dotgit = worktree / ".git"
    if dotgit.is_dir():
        return dotgit / "info" / "exclude"
    if dotgit.is_file():
        text = dotgit.read_text(errors="replace").strip()
        if text.startswith("gitdir:"):
            gitdir = Path(text.removeprefix("gitdir:").strip())
            gitdir = gitdir if gitdir.is_absolute() else worktree / gitdir
            common = gitdir / "commondir"
            if common.is_file():
                gitdir = gitdir / common.read_text().strip()
            return gitdir / "info" / "exclude"
    return None
