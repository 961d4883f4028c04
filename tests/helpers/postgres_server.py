"""A real PostgreSQL server for the tests: Debian's binaries, a fresh cluster in a temp dir, run as a non-root user.

PostgreSQL refuses to run as root, and the suite runs as root on CI; the cluster then belongs to the `postgres`
user (Debian's package creates it) and every server command runs through `runuser`. The server listens on a free
loopback port and a unix socket in its own directory, trusts local connections (a throwaway cluster), and is
stopped when the test session ends. Each test gets a database of its own (`fresh_database`), so tests never see
each other's rows.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

from attrs import frozen

BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
"""Debian installs each major version's server binaries here (not on PATH)."""


class PostgresUnavailable(RuntimeError):
    """Why no test server could be started (the tests that need one skip with this reason)."""


@frozen
class PostgresServer:
    directory: Path
    port: int
    bin_dir: Path
    user: str | None
    """The user the server runs as (None: the current, non-root user)."""

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def fresh_database(self) -> str:
        """A new, empty database's URL."""
        name = "t_" + uuid.uuid4().hex[:16]
        self.psql(f"CREATE DATABASE {name}")
        return self.url(name)

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run `sql` in `database` (a name, or a URL of this server whose last path segment is one)."""
        database = database.rsplit("/", 1)[-1]
        psql = self.bin_dir / "psql"
        command = [str(psql), "-X", "-q", "-At", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"]
        command += ["-d", database, "-c", sql]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"psql {sql!r} failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def stop(self, mode: str = "fast") -> None:
        self._server_command("stop", "-m", mode)

    def start(self) -> None:
        self._server_command("start")

    def _server_command(self, *args: str) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        command = [str(self.bin_dir / "pg_ctl"), "-D", str(self.directory / "data"), "-l", str(self.directory / "log")]
        command += ["-o", options, "-w", "-t", "60", *args]
        done = subprocess.run(_as(self.user, command), capture_output=True, text=True, timeout=90, check=False)
        if done.returncode != 0:
            log = (self.directory / "log").read_text(errors="replace")[-2000:] if args[0] == "start" else ""
            raise PostgresUnavailable(f"pg_ctl {args[0]} failed: {done.stderr.strip() or done.stdout.strip()}\n{log}")


def start_postgres() -> PostgresServer:
    """Initialise and start a throwaway cluster; `PostgresUnavailable` says why when it cannot be done here."""
    bin_dir = next((d for d in BIN_DIRS if (d / "initdb").exists()), None)
    if bin_dir is None:
        raise PostgresUnavailable("PostgreSQL's server binaries are not installed (Debian's `postgresql` package)")
    user: str | None = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise PostgresUnavailable("running as root and there is no `postgres` user to run the server as") from None
        if shutil.which("runuser") is None:
            raise PostgresUnavailable("running as root and `runuser` is missing to run the server as `postgres`")
        user = "postgres"
    directory = Path(tempfile.mkdtemp(prefix="strata-pg-"))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(directory, entry.pw_uid, entry.pw_gid)
    initdb = [str(bin_dir / "initdb"), "-D", str(directory / "data"), "-A", "trust", "-U", "postgres", "-E", "UTF8"]
    done = subprocess.run(_as(user, initdb), capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise PostgresUnavailable(f"initdb failed: {done.stderr.strip()}")
    server = PostgresServer(directory, _free_port(), bin_dir, user)
    server.start()
    return server


def remove(server: PostgresServer) -> None:
    try:
        server.stop("immediate")
    finally:
        shutil.rmtree(server.directory, ignore_errors=True)


def _as(user: str | None, command: list[str]) -> list[str]:
    return command if user is None else ["runuser", "-u", user, "--", *command]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
