"""A `strata serve` forked by `serve_fork` is the process a real one is, in what the server tests rely on: the
working directory and environment it serves from, the files and sockets it holds, its output, and how it ends
(its exit code on SIGTERM, on a bad option, and on SIGKILL)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from cli_harness import STRATA, isolated_env
from serve_fork import ForkedProcess, fork_strata
from server_harness import LISTENING, ServerProcess, stop

WAIT = 30
INODE = re.compile(r":\[\d+\]")


def _project(root: Path) -> tuple[Path, dict[str, str]]:
    project = root / "work"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project, isolated_env(root)


def _real(args: list[str], project: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(STRATA), *args],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


@contextmanager
def _serving(forked: bool, root: Path) -> Iterator[tuple[ServerProcess, str, Path, dict[str, str]]]:
    project, env = _project(root)
    args = ["serve", "--port", "0"]
    process = fork_strata(args, cwd=project, env=env) if forked else _real(args, project, env)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert LISTENING in line, line
        yield process, line.split(LISTENING, 1)[1].split()[0], project, env
    finally:
        stop(process)


def _held(pid: int, root: Path) -> list[str]:
    """What the process holds open once it has settled: standard streams by number, the rest in order of name
    (the server opens some from threads, so in no fixed order), inode numbers and the test's directory made
    comparable. Settled: no pipe beyond stdout and stderr (the warm-up snapshot's `git` runs as the server
    starts) and the same twice in a row."""
    last: list[str] = []
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        now = _open_files(pid, root)
        if now == last and sum("pipe:" in held for held in now) == 2:
            return now
        last = now
        time.sleep(0.2)
    raise AssertionError(f"the server's open files never settled: {last}")


def _open_files(pid: int, root: Path) -> list[str]:
    held = {}
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(FileNotFoundError):  # closed since the listing
            held[int(fd.name)] = INODE.sub(":[N]", str(fd.readlink()).replace(str(root), "ROOT"))
    streams = [f"{fd} {held.pop(fd)}" for fd in (0, 1, 2)]
    return streams + sorted(held.values())


def test_a_forked_server_serves_its_directory_holds_what_a_real_one_holds_and_ends_as_one(tmp_path: Path) -> None:
    seen = {}
    for forked in (True, False):
        root = tmp_path / ("forked" if forked else "real")
        with _serving(forked, root) as (process, url, project, env):
            assert httpx.get(f"{url}/global/health", timeout=WAIT).status_code == 200
            paths = httpx.get(f"{url}/path", timeout=WAIT).json()
            assert Path(paths["directory"]) == project
            assert Path(paths["home"]) == Path(env["HOME"])
            held = _held(process.pid, root)
            assert "ROOT/home/.local/share/strata/strata.db" in " ".join(held)  # the test's XDG_DATA_HOME
            os.killpg(process.pid, signal.SIGTERM)
            assert process.wait(WAIT) == 0
            seen[forked] = held
    assert seen[True] == seen[False]


def test_a_bad_option_and_a_kill_end_a_forked_process_as_they_end_a_real_one(tmp_path: Path) -> None:
    project, env = _project(tmp_path)
    bad = ["serve", "--port", "many"]
    forked, real = fork_strata(bad, cwd=project, env=env), _real(bad, project, env)
    assert forked.wait(WAIT) == real.wait(WAIT) == 2
    assert forked.stdout.read() == real.stdout.read() != ""  # type: ignore[union-attr]
    with _serving(True, tmp_path / "killed") as (process, _, _, _):
        assert isinstance(process, ForkedProcess)
        assert process.poll() is None
        process.kill()
        assert process.wait(WAIT) == -signal.SIGKILL
        assert process.poll() == -signal.SIGKILL


def test_servers_forked_from_threads_at_once_each_answer(tmp_path: Path) -> None:
    urls: list[str] = []

    def one(index: int) -> None:
        with _serving(True, tmp_path / str(index)) as (_, url, _, _):
            assert httpx.get(f"{url}/global/health", timeout=WAIT).status_code == 200
            urls.append(url)

    threads = [threading.Thread(target=one, args=(index,)) for index in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert len(set(urls)) == 3
