"""`strata serve` as a real process on a free loopback port, and the tools the server tests drive it with.

`running_server(...)` starts it in a project with an isolated environment, waits for its `listening on URL`
line, and stops it (SIGTERM, then SIGKILL) when the block exits, so no test leaves a server behind. The
process is forked from one that has imported the server already (`serve_fork`), unless the test gives its own
command (`opencode serve`, a wrapper script). The
official `@opencode-ai/sdk` is looked for where `.ci/run` installs it (`sdk_dir()`); tests that need it or
node skip with the reason when either is missing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

import attrs
import httpx
from cli_harness import mock_provider_config
from serve_fork import ForkedProcess, fork_strata

from strata_providers.testing import ScriptedServer

SDK_VERSION = "1.18.33"
ORACLE = Path(os.environ.get("STRATA_ORACLE", "/work/shared/oracle"))
ORACLE_CACHE = Path(os.environ.get("STRATA_ORACLE_CACHE", Path.home() / ".cache" / "strata-oracle"))
OPENCODE = ORACLE_CACHE / "node_modules/opencode-linux-x64/bin/opencode"
START_TIMEOUT = 30.0
ASK_BASH = {"bash": "ask"}
"""The permission config the server tests run with: shell commands need an answer."""
LISTENING = "listening on "
WAIT_SECONDS = 30.0
"""How long a test waits for the server to get somewhere before it fails."""
T = TypeVar("T")


def sdk_dir() -> Path:
    """Where `npm install --prefix DIR @opencode-ai/sdk@1.18.33` put the SDK (`.ci/run` does it)."""
    return ORACLE_CACHE / "sdk"


def sdk_missing() -> str | None:
    """Why the SDK tests cannot run here, or None when they can."""
    if shutil.which("node") is None:
        return "node is not installed"
    package = sdk_dir() / "node_modules/@opencode-ai/sdk/package.json"
    if not package.is_file():
        return f"@opencode-ai/sdk@{SDK_VERSION} is not installed in {sdk_dir()} (.ci/run installs it with npm)"
    if f'"version": "{SDK_VERSION}"' not in package.read_text(encoding="utf-8"):
        return f"{package} is not version {SDK_VERSION}"
    return None


class ServerProcess(Protocol):
    """What the tests use of a server's process: a `subprocess.Popen`, or `serve_fork`'s stand-in for one."""

    @property
    def pid(self) -> int: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, sig: int) -> None: ...


@attrs.frozen
class Server:
    url: str
    process: ServerProcess
    output: list[str]
    """Everything the server printed (stdout and stderr), for failure messages."""
    model: ScriptedServer | None = None
    """The scripted model behind it (the `serve` fixture's), with the requests it was sent."""


ServeFactory = Callable[..., Server]
"""The `serve` fixture: `serve(script, args=(), extra_env=None, permission=ASK_BASH) -> Server`."""


@contextmanager
def running_server(
    project: Path,
    env: Mapping[str, str],
    args: Sequence[str] = (),
    *,
    command: Sequence[str] | None = None,
    listening: str = LISTENING,
) -> Iterator[Server]:
    """`strata serve --port 0 ARGS` (or `command`, announcing its URL after `listening`) in `project`."""
    process: subprocess.Popen[str] | ForkedProcess
    if command is None:
        process = fork_strata(["serve", "--port", "0", *args], cwd=project, env=env)
    else:
        process = subprocess.Popen(
            list(command),
            cwd=project,
            env=dict(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group: stopping it stops whatever it started too
        )
    output: list[str] = []
    found = threading.Event()
    url: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if not url and listening in line:
                url.append(line.split(listening, 1)[1].split()[0])
                found.set()
        found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        found.wait(START_TIMEOUT)
        if not url:
            raise RuntimeError(f"the server did not start: {''.join(output)}")
        yield Server(url[0], process, output)
    finally:
        stop(process)
        reader.join(5)


def stop(process: ServerProcess) -> None:
    """SIGTERM to the server's process group (a wrapper script's children included), SIGKILL if it lingers."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(10)
            if sig == signal.SIGTERM:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)  # anything the leader left behind
            return
        except subprocess.TimeoutExpired:
            continue


def wait_until(check: Callable[[], T], what: str, timeout: float = WAIT_SECONDS) -> T:
    """`check()`'s first truthy answer, polled for a state the test cannot be told of (a call running, a
    session idle); past `timeout` seconds the test fails, naming `what` it waited for."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def turn_events(server: Server, text: str = "go") -> list[dict[str, Any]]:
    """Every event `/event` sends while a new session answers `text`, from before the turn to `session.idle`."""
    events: list[dict[str, Any]] = []
    connected = threading.Event()

    def listen() -> None:
        with (
            httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as reader,
            reader.stream("GET", "/event") as stream,
        ):
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    events.append(json.loads(line.removeprefix("data:")))
                    connected.set()
                    if events[-1]["type"] == "session.idle":
                        return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert connected.wait(10)
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = client.post("/session", json={}).json()["id"]
        reply = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": text}]})
        assert reply.status_code == 200, reply.text
    thread.join(WAIT_SECONDS)
    return events


SDK_SCRIPT_TIMEOUT = 120


def run_sdk_script(script: Path, url: str) -> subprocess.CompletedProcess[str]:
    """Run one of `tests/server/sdk/*.mjs` with node against the server at `url` (the SDK from `sdk_dir()`)."""
    node = shutil.which("node")
    assert node is not None
    env = {"PATH": os.environ.get("PATH", ""), "STRATA_SDK_DIR": str(sdk_dir())}
    return subprocess.run(
        [node, str(script), url], env=env, capture_output=True, text=True, timeout=SDK_SCRIPT_TIMEOUT, check=False
    )


@contextmanager
def opencode_serve(tmp_path: Path, model_script: Path, files: Mapping[str, str] | None = None) -> Iterator[Server]:
    """The real `opencode serve` (the oracle's serve.sh) on a fixture of `files` with the server tests' config
    (the mock provider, shell commands asking), its model playing `model_script`."""
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    config = {**mock_provider_config("http://127.0.0.1:__PORT__/v1"), "permission": ASK_BASH}
    (fixture / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
    for name, text in (files or {}).items():
        (fixture / name).write_text(text, encoding="utf-8")
    command = ["bash", str(ORACLE / "serve.sh"), str(fixture), str(model_script)]
    env = {**os.environ, "STRATA_ORACLE_CACHE": str(ORACLE_CACHE), "TMPDIR": str(tmp_path)}
    # serve.sh prints `opencode serve: URL ...`; the harness reads the URL after "listening on " or this.
    with running_server(fixture, env, command=command, listening="opencode serve: ") as server:
        yield server


def schema_problems(path: str, method: str, body: Any, status: int = 200) -> str | None:
    """Where `body` does not fit OpenCode's response schema of `method path` (as `/doc` carries it), or None."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    from strata_server.openapi import document

    operation = document()["paths"][path][method]
    schema = operation["responses"][str(status)]["content"]["application/json"]["schema"]
    error = best_match(Draft202012Validator({**schema, "components": document()["components"]}).iter_errors(body))
    if error is None:
        return None
    return f"{method.upper()} {path}: {'/'.join(map(str, error.absolute_path))}: {error.message}"


@contextmanager
def following(url: str, route: str = "/event") -> Iterator[Callable[[Callable[[dict[str, Any]], bool]], Any]]:
    """`wait(test)`: the first event of `route` passing `test` (reading from when the stream opened)."""
    events: list[dict[str, Any]] = []
    arrived = threading.Condition()

    def listen() -> None:
        with httpx.Client(base_url=url, timeout=WAIT_SECONDS) as reader, reader.stream("GET", route) as stream:
            try:
                for line in stream.iter_lines():
                    if line.startswith("data:"):
                        with arrived:
                            events.append(json.loads(line.removeprefix("data:")))
                            arrived.notify_all()
            except httpx.HTTPError:
                return  # the server stopped at the end of the test

    threading.Thread(target=listen, daemon=True).start()

    def wait(test: Callable[[dict[str, Any]], bool]) -> Any:
        with arrived:
            found = arrived.wait_for(lambda: next((e for e in events if test(e)), None), WAIT_SECONDS)
        assert found is not None, f"no such event among {[e.get('type') for e in events]}"
        return found

    wait(lambda e: e.get("type") == "server.connected" or e.get("payload", {}).get("type") == "server.connected")
    yield wait
