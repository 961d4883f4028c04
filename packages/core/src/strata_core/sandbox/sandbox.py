"""The shell sandbox: which containment is in force, and a command line wrapped in it.

`ShellSandbox.prepare` turns a command (an argv) into the argv to start: inside bubblewrap for `read-only`
and `workspace-write` when bwrap works here, else under the reaper (`reaper.py`) so that nothing it starts
outlives it. When a sandbox was wanted but bwrap is missing or fails its trial run, one warning says so
(once per process) and the permission rules alone stand between the command and the file system; Strata's
own process is then made not dumpable (`undumpable.py`), so the command cannot read Strata's environment.
`contained` is the same as a context manager, for long-lived commands such as local MCP servers: start
`prepared.argv` with `pass_fds=prepared.pass_fds` (bwrap reports on one) and any environment you choose.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import define, evolve, field, frozen

from strata_core.config.paths import StrataPaths
from strata_core.config.schema import SandboxMode
from strata_core.logging import get_logger
from strata_core.sandbox.bubblewrap import Layout, Mount, bwrap_command, probe
from strata_core.sandbox.masks import BWRAP_MASKS, check_secret_count, secret_file_cap
from strata_core.sandbox.project_scan import ProjectScan, scan_project
from strata_core.sandbox.protected import protected_paths
from strata_core.sandbox.reaper import reaped_argv
from strata_core.sandbox.settings import SandboxSettings
from strata_core.sandbox.toolchains import toolchain_dirs
from strata_core.sandbox.undumpable import make_undumpable

if TYPE_CHECKING:
    from strata_core.config.service import ConfigInfo

log = get_logger(__name__)
_warned: set[str] = set()


@frozen
class SandboxState:
    """What is in force: the mode wanted, the mode that holds, and why they differ (no mechanism)."""

    wanted: SandboxMode
    mode: SandboxMode
    mechanism: str | None
    """`bubblewrap` (its executable) when commands run inside it, None when they do not."""
    problem: str | None = None

    @property
    def contained(self) -> bool:
        return self.mechanism is not None


NAMESPACE_END_SECONDS = 2.0
"""How long `finish` waits for a sandbox's PID namespace to be empty after bwrap has exited."""


@frozen
class PreparedCommand:
    """A command ready to start: its argv, the descriptors to pass it (`pass_fds`), and what `finish` needs:
    the pipe on which bwrap says which process is the namespace's init."""

    argv: tuple[str, ...]
    pass_fds: tuple[int, ...] = ()
    info_pipe: tuple[int, int] | None = None
    env: tuple[tuple[str, str], ...] = ()
    """Variables the command must get for the layout to work (a server's `TMPDIR`)."""
    owned: tuple[int, ...] = ()
    """Descriptors bwrap reads its arguments from (memfds), closed by `finish`."""
    before: ProjectScan | None = None
    """The walk of the project the layout was made from (workspace-write only): `created_config` compares."""


def writable_root(directory: Path, worktree: Path) -> Path:
    """The worktree; or, outside a repository (where the worktree is `/`), the session's directory."""
    return directory if worktree == Path(worktree.anchor) else worktree


def git_dirs(root: Path) -> list[Path]:
    """For a `.git` file (a linked worktree, a submodule): the git dir it names and that dir's common dir,
    shown read-only so `git status` works inside while commits and hooks stay out of reach."""
    gitfile = root / ".git"
    if not gitfile.is_file():
        return []
    try:
        line = gitfile.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return []
    if not line.startswith("gitdir:"):
        return []
    gitdir = (root / line.removeprefix("gitdir:").strip()).resolve()
    found = [gitdir]
    try:
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
        found.append((gitdir / common).resolve())
    except (OSError, UnicodeDecodeError):
        pass
    return found


@define
class ShellSandbox:
    """Contains shell commands per `settings`. `writable_dirs` are Strata's own (tool output, temp), writable
    inside in workspace-write mode and readable in read-only mode; `cache` holds the empty file bound over
    secrets."""

    settings: SandboxSettings
    writable_dirs: tuple[Path, ...]
    cache: Path
    env: Mapping[str, str] = field(factory=lambda: os.environ)
    max_secret_files: int = field(factory=secret_file_cap)
    """The most `.env` files a command starts with hidden; with more it does not start (`masks.py`)."""
    masker_above: int = BWRAP_MASKS
    """Past this many `.env` files the masker, not bwrap, binds the masks (`masks.py`)."""
    temp: Path | None = None
    """Strata's temp dir (one of `writable_dirs`): a server's `TMPDIR`, since its `/tmp` is the host's."""

    def state(self) -> SandboxState:
        wanted = self.settings.wanted_mode
        if wanted == "danger-full-access":
            return SandboxState(wanted, wanted, None)
        problem = probe(self.settings.bwrap)
        if problem is None:
            return SandboxState(wanted, wanted, self.settings.bwrap)
        if problem not in _warned:
            _warned.add(problem)
            log.notice(
                "sandbox unavailable",
                reason=problem,
                effect="shell commands run uncontained, the permission rules alone apply",
            )
        return SandboxState(wanted, "danger-full-access", None, problem)

    def prepare(self, argv: Sequence[str], *, cwd: Path, root: Path) -> PreparedCommand:
        """`argv`, wrapped for the mode in force; blocking (it looks for `.env` files): run it in a thread."""
        state = self.state()
        if not state.contained:
            make_undumpable()
            return PreparedCommand(tuple(reaped_argv(argv)))
        writable = state.mode == "workspace-write"
        info = os.pipe()
        try:
            scan = scan_project(root)
            layout = self.layout(root, cwd, writable, scan)
            empty = self._empty_file()
            wrapped = bwrap_command(
                self.settings.bwrap, layout, empty, cwd, argv, info_fd=info[1], masker_above=self.masker_above
            )
        except BaseException:
            _close(info)
            raise
        fds = (info[1], *wrapped.descriptors)
        unmade = frozenset(path for path in protected_paths(root, cwd) if not os.path.lexists(path))
        before = evolve(scan, unmade=unmade) if writable else None
        return PreparedCommand(wrapped.argv, fds, info, owned=wrapped.descriptors, before=before)

    def prepare_server(self, argv: Sequence[str], *, cwd: Path, root: Path) -> PreparedCommand:
        """A long-lived server's `argv` (a local MCP server), wrapped for the mode in force in `server_layout`;
        uncontained, as it is (its own process group ends it). Blocking, like `prepare`; `finish` it once the
        server has ended."""
        state = self.state()
        if not state.contained:
            make_undumpable()
            return PreparedCommand(tuple(argv))
        writable = state.mode == "workspace-write"
        layout = self.server_layout(root, cwd, writable, scan_project(root))
        empty = self._empty_file()
        wrapped = bwrap_command(
            self.settings.bwrap, layout, empty, cwd, argv, inherited=False, masker_above=self.masker_above
        )
        env = (("TMPDIR", str(self.temp)),) if self.temp is not None and writable else ()
        return PreparedCommand(wrapped.argv, env=env, owned=wrapped.descriptors)

    def finish(self, prepared: PreparedCommand) -> None:
        """After the command has ended (blocking; run it in a thread): wait until its PID namespace is empty,
        since bwrap exits as soon as the shell has, while the kernel is still ending the rest."""
        _close(prepared.owned)
        if prepared.info_pipe is not None:
            init = _namespace_init(prepared.info_pipe[0])
            _close(prepared.info_pipe)
            if init is not None:
                _wait_gone(init, NAMESPACE_END_SECONDS)

    @contextmanager
    def contained(self, argv: Sequence[str], *, cwd: Path, root: Path) -> Iterator[PreparedCommand]:
        """`with sandbox.contained(argv, cwd=..., root=...) as prepared:` start `prepared.argv` and wait inside."""
        prepared = self.prepare(argv, cwd=cwd, root=root)
        try:
            yield prepared
        finally:
            self.finish(prepared)

    def toolchains(self) -> list[Path]:
        """What of the user's toolchains a command sees, read-only (`toolchains.py`)."""
        return toolchain_dirs(self.env.get("PATH", ""), self._home(), self.env)

    def _home(self) -> Path:
        return Path(self.env.get("HOME") or Path.home())

    def layout(self, root: Path, cwd: Path, writable: bool, scan: ProjectScan) -> Layout:
        home = self._home()
        mounts = [Mount(path, path) for path in self.toolchains()]
        mounts += [Mount(path, path) for path in _git_identity(home)]
        if self.settings.network:
            mounts += [Mount(path, path) for path in _resolver_config()]
        mounts += [Mount(path, path) for path in self.settings.readable]
        mounts += [Mount(path, path) for path in git_dirs(root)]
        if not is_within(cwd, root):
            mounts.append(Mount(cwd, cwd))  # a workdir outside the project (external_directory allowed it): read
        mounts += self._writable_mounts(root, cwd, writable, scan)
        tmpfs = [Path("/tmp")] + ([home] if home != Path(home.anchor) else [])
        return Layout(tuple(mounts), tuple(tmpfs), self.settings.network, masks=self._masks(scan))

    def server_layout(self, root: Path, cwd: Path, writable: bool, scan: ProjectScan) -> Layout:
        """What a server sees: the host read-only (it runs the user's own runtime and packages from where they
        are, `/tmp` included: a checkout or a virtualenv may live there), writable only where a command may
        write plus the user's package caches (npx and uvx fill them as they start), with `TMPDIR` in Strata's
        temp dir; a private PID namespace (no `/proc` of Strata), `.env` files hidden, the protected paths
        read-only, and the network on (servers are made to reach their services)."""
        home = Path(self.env.get("HOME") or Path.home())
        caches = (Path(self.env.get("XDG_CACHE_HOME") or home / ".cache"), home / ".npm")
        mounts = [Mount(path, path, True) for path in caches if path.is_dir()]
        mounts += self._writable_mounts(root, cwd, writable, scan)
        return Layout(tuple(mounts), (), network=True, whole_root=True, masks=self._masks(scan))

    def _writable_mounts(self, root: Path, cwd: Path, writable: bool, scan: ProjectScan) -> list[Mount]:
        """What every layout ends with: Strata's dirs, the configured ones and the project (writable in
        workspace-write), then read-only over them the protected paths that exist: those of the chain from
        `cwd` to `root` and every protected entry `scan` found elsewhere in the project (nothing is made for
        those that do not: `tool/support/created_config.py` looks after the command). (The secret files are hidden after
        all of these: `_masks`.)"""
        mounts: list[Mount] = []
        for path in self.writable_dirs:
            path.mkdir(parents=True, exist_ok=True)
            mounts.append(Mount(path, path, writable))
        mounts += [Mount(path, path, writable) for path in self.settings.writable]
        mounts.append(Mount(root, root, writable))
        if writable:
            chain = [path for path in protected_paths(root, cwd) if os.path.lexists(path)]
            elsewhere = [path for path in scan.read_only if path not in set(chain)]
            mounts += [_protect(path, root) for path in [*chain, *elsewhere]]
        return mounts

    def _masks(self, scan: ProjectScan) -> tuple[Path, ...]:
        """The secret files to hide, when the sandbox can hide them all (else the command must not start)."""
        check_secret_count(scan.secrets, scan.root, self.max_secret_files)
        return scan.secrets

    def _empty_file(self) -> Path:
        """An empty file outside everything bound writable (inside, it would not stay empty). Shared by every
        Strata process of the user: a new one is made aside and renamed into place, so the path never
        lacks a file for a bwrap another process is starting."""
        path = self.cache / "sandbox" / "empty"
        if not path.is_file() or path.stat().st_size:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor, fresh = tempfile.mkstemp(dir=path.parent, prefix=".empty-")
            os.close(descriptor)
            Path(fresh).chmod(0o444)
            Path(fresh).replace(path)
        return path


def _close(descriptors: tuple[int, ...]) -> None:
    for descriptor in descriptors:
        with contextlib.suppress(OSError):
            os.close(descriptor)


def _namespace_init(read_end: int) -> int | None:
    """The host PID of the sandbox's init, from what bwrap wrote on `--info-fd` (None if it wrote nothing)."""
    os.set_blocking(read_end, False)
    try:
        data = os.read(read_end, 65536)
        found = json.loads(data).get("child-pid") if data else None
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, int) else None


def _wait_gone(pid: int, limit: float) -> None:
    """Until `pid` has exited (gone, or a zombie: an init becomes one only once its namespace is empty)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state in (b"Z", b"X"):
            return
        time.sleep(0.002)


def _resolver_config() -> list[Path]:
    """Where `/etc/resolv.conf` really is when it links into `/run` (systemd-resolved), which stays hidden:
    /run holds sockets (docker's, D-Bus) that would undo the sandbox."""
    resolv = Path("/etc/resolv.conf")
    target = resolv.resolve() if resolv.is_symlink() else resolv
    return [target] if target != resolv and target.is_file() and not is_within(target, Path("/etc")) else []


def _git_identity(home: Path) -> list[Path]:
    """The user's git config files (who commits, aliases), read-only: the private home would hide them."""
    return [path for path in (home / ".gitconfig", home / ".config/git/config") if path.is_file()]


def is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _protect(path: Path, root: Path) -> Mount:
    # A protected name that is a symlink to a file in the project: the file it points to is what a write
    # would change, so that is what is bound read-only (a target outside the project is not writable anyway).
    target = path.resolve() if path.is_symlink() else path
    return Mount(target, target) if is_within(target, root) else Mount(path, path)


def shell_sandbox(settings: SandboxSettings, paths: StrataPaths, tool_output: Path) -> ShellSandbox:
    """The sandbox for Strata's dirs: `tool_output`, the session's project's saved outputs (never the dir of
    every project's, `paths.tool_output`), and `paths.tmp` writable."""
    return ShellSandbox(settings, (tool_output, paths.tmp), paths.cache, temp=paths.tmp)


def configured_sandbox(config: ConfigInfo, env: Mapping[str, str], paths: StrataPaths, project_id: str) -> ShellSandbox:
    """The sandbox a loaded config's `sandbox` block and `--sandbox` (`STRATA_SANDBOX` in `env`) put in force,
    for Strata's dirs and `project_id`'s saved outputs: what a local MCP server and `strata debug sandbox` see,
    as the bash tool builds it."""
    settings = SandboxSettings.from_config(config.blocks.sandbox, env, paths.home, config.env_names)
    return shell_sandbox(settings, paths, paths.project_tool_output(project_id))
