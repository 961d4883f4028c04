"""OpenCode's own full-screen TUI (`opencode attach`, 1.18.33, in a pty) drives `strata serve` through a session:
start, a prompt, a tool call with its permission question that changes a file, `/undo` (which reverts the
turn: the file is back, and the TUI lists the turn's diff, `notes.txt +1 -1`), `/init`, a shell command
interrupted with the TUI's own key (Esc twice: the turn ends aborted), the `!ls` shell, and a toast and an
appended prompt sent with the SDK's routes while it is attached. Its request log, taken by a proxy in between,
shows no server error: every route it called is served, the turn's diff and the abort among them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pexpect
import pytest
from logging_proxy import Logged, logging_proxy
from pty_terminal import Terminal
from server_harness import OPENCODE, WAIT_SECONDS, ServeFactory, wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.opencode_live,
    pytest.mark.skipif(not OPENCODE.exists(), reason=f"OpenCode 1.18.33 is not installed at {OPENCODE}"),
]

SCRIPT = [
    {"text": "Hello there."},
    {"tool_calls": [{"name": "bash", "arguments": {"command": "echo changed > notes.txt", "description": "Edit"}}]},
    {"text": "Ran it."},
    {"text": "Init done."},
    {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30", "description": "Wait"}}]},
]


@pytest.fixture
def tui(tmp_path: Path, project: Path) -> Iterator[Callable[[str], Terminal]]:
    children: list[pexpect.spawn] = []

    def attach(url: str) -> Terminal:
        home = tmp_path / "tui-home"
        home.mkdir(exist_ok=True)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_SHARE": "1",
        }
        child = pexpect.spawn(
            str(OPENCODE), ["attach", url], cwd=str(project), env=env, dimensions=(40, 120), encoding="utf-8"
        )
        children.append(child)
        return Terminal(child)

    yield attach
    for child in children:
        child.terminate(force=True)


def requested(log: list[Logged], method: str, ending: str) -> Callable[[], bool]:
    return lambda: any(r.method == method and r.path.split("?")[0].endswith(ending) for r in log)


def running_commands(url: str) -> list[str]:
    """The commands of the shell calls running now, in every session, as the server reports them."""
    commands = []
    with httpx.Client(base_url=url, timeout=WAIT_SECONDS) as client:
        for session in client.get("/session").json():
            for message in client.get(f"/session/{session['id']}/message").json():
                for part in message["parts"]:
                    state = part.get("state") or {}
                    if part["type"] == "tool" and state.get("status") == "running":
                        commands.append(str(state.get("input", {}).get("command")))
    return commands


def send_command(screen: Terminal, log: list[Logged], command: str, method: str, ending: str) -> None:
    """Type `/command` and press Enter until it is sent: the first Enter may only take the completion."""
    screen.send(command)
    for _ in range(5):
        screen.send("\r")
        try:
            wait_until(requested(log, method, ending), command, timeout=3)
            return
        except AssertionError:
            continue
    raise AssertionError(f"{command} was never sent")


def test_opencodes_tui_runs_a_whole_session_on_strata_serve(
    serve: ServeFactory, tui: Callable[[str], Terminal], project: Path
) -> None:
    server = serve(SCRIPT)
    with logging_proxy(server.url) as (url, log):
        screen = tui(url)
        screen.expect("Ask anything", timeout=60)
        screen.send("say hello")
        screen.send("\r")
        screen.expect("Hello there.")

        screen.send("run it")
        screen.send("\r")
        screen.expect("Permission required")
        screen.send("\r")  # "Allow once" is chosen
        screen.expect("Ran it.")

        assert (project / "notes.txt").read_text() == "changed\n"
        wait_until(requested(log, "GET", "/diff"), "the turn's diff")

        send_command(screen, log, "/undo", "POST", "/revert")
        wait_until(lambda: (project / "notes.txt").read_text() == "hi\n", "notes.txt restored by the undo")
        # The TUI shows the reverted turn's diff (from the session's `revert.diff`): its file and line counts.
        screen.expect("1 message reverted")
        screen.expect("notes.txt +1 -1")
        screen.send("\x03")  # the TUI puts the reverted prompt back in the input: clear it

        send_command(screen, log, "/init", "POST", "/command")
        screen.expect("Init done.")

        screen.send("wait a while")
        screen.send("\r")
        screen.expect("Permission required")
        screen.send("\r")
        wait_until(lambda: "sleep 30" in running_commands(server.url), "the shell command running")
        screen.send("\x1b")
        screen.expect("again to interrupt")
        screen.send("\x1b")
        screen.expect("interrupted")
        wait_until(requested(log, "POST", "/abort"), "the abort answered")
        assert "sleep 30" not in running_commands(server.url)

        screen.send("!")  # shell mode, which the prompt keeps after the command: last, so no Esc is needed
        screen.send("ls")
        screen.send("\r")
        screen.expect("notes.txt")

        with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
            # A redraw may skip a cell the screen already shows, so only the end of each text is awaited.
            client.post("/tui/show-toast", json={"message": "toast from the sdk", "variant": "info"})
            screen.expect("from the sdk")
            client.post("/tui/append-prompt", json={"text": "appended by the sdk"})
            screen.expect("by the sdk")

    failed = [(r.method, r.path, r.status) for r in log if r.status >= 500]
    changes = [r.status for r in log if r.path.split("?")[0].endswith(("/diff", "/revert"))]
    assert changes and set(changes) == {200}, changes
    assert failed == []
    routes = [("POST", "/shell"), ("POST", "/command"), ("POST", "/reply"), ("POST", "/revert"), ("POST", "/abort")]
    routes.append(("GET", "/api/model"))
    for method, ending in routes:
        assert requested(log, method, ending)(), (method, ending, [(r.method, r.path) for r in log])
