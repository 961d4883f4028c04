"""`opencode serve` (1.18.33) and `strata serve` given the same scripted turn, then the same calls to
`/session/{id}/diff`, `/revert`, `/unrevert` and a new prompt after a revert: the diffs they answer agree, and
so do the files they leave on disk (bytes and modes) after every call.

The turn edits a file, writes a new one, and runs one shell command that rewrites an executable with `sed -i`,
overwrites and creates files by redirection, deletes a file, and changes modes. Both projects start from the
same fixture committed as serve.sh commits it; the model servers play the same script.

One difference is Strata's on purpose: OpenCode's unrevert checks the revert's snapshot out over the worktree,
which brings back changed files but leaves a file the turn had deleted (the revert restored it); Strata's
unrevert puts the turn back whole, deleted file included. The test pins both sides of that difference.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_harness import isolated_env, mock_provider_config
from opencode_oracle import missing_reason
from server_harness import ORACLE, ORACLE_CACHE, running_server, wait_until

from strata_providers.testing import ScriptedServer

pytestmark = [
    pytest.mark.slow,
    pytest.mark.opencode_live,
    pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or ""),
]

FILES: dict[str, tuple[str, int]] = {
    "edit.txt": ("one\ntwo\nthree\n", 0o644),
    "notes.txt": ("hi\n", 0o644),
    "run.sh": ("#!/bin/sh\necho old\n", 0o755),
    "plain.sh": ("echo plain\n", 0o644),
    "gone.txt": ("bye\n", 0o644),
    "lib/keep.txt": ("kept\n", 0o644),
}
SHELL = (
    "sed -i 's/old/new/' run.sh && echo HI > notes.txt && echo out > lib/redir.txt && rm gone.txt"
    " && chmod +x plain.sh && printf '#!/bin/sh\\n' > new.sh && chmod 755 new.sh"
)
TURN: list[dict[str, Any]] = [
    {
        "tool_calls": [
            {"name": "edit", "arguments": {"filePath": "__WORK__/edit.txt", "oldString": "two", "newString": "TWO"}},
            {"name": "write", "arguments": {"filePath": "__WORK__/made.txt", "content": "made\n"}},
        ]
    },
    {"tool_calls": [{"name": "bash", "arguments": {"command": SHELL, "description": "Change files"}}]},
    {"text": "Changed."},
]
AFTER_REVERT: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "write", "arguments": {"filePath": "__WORK__/second.txt", "content": "second\n"}}]},
    {"text": "Wrote it."},
]
TURN_FILES = ["edit.txt", "gone.txt", "lib/redir.txt", "made.txt", "new.sh", "notes.txt", "plain.sh", "run.sh"]
SECOND_FILES = ["second.txt"]
DELETED_BY_THE_TURN = "gone.txt"
PERMISSION = {"edit": "allow", "bash": "allow"}
DiskState = dict[str, tuple[bytes, str]]


def disk(work: Path) -> DiskState:
    """Every file of the project but git's and the config: its bytes and its mode."""
    state: DiskState = {}
    for path in sorted(work.rglob("*")):
        relative = path.relative_to(work).as_posix()
        if path.is_file() and not relative.startswith(".git/") and relative != "opencode.json":
            state[relative] = (path.read_bytes(), oct(stat.S_IMODE(path.stat().st_mode)))
    return state


@contextmanager
def opencode_server(tmp_path: Path, fixture: Path, script: list[dict[str, Any]]) -> Iterator[tuple[str, Path]]:
    """The oracle's serve.sh on a copy of `fixture`: the URL and the work dir."""
    script_file = tmp_path / "opencode-script.json"
    script_file.write_text(json.dumps(script))
    (fixture / "opencode.json").write_text(
        json.dumps({**mock_provider_config("http://127.0.0.1:__PORT__/v1"), "permission": PERMISSION})
    )
    base = tmp_path / "opencode"
    base.mkdir()
    env = {**os.environ, "STRATA_ORACLE_CACHE": str(ORACLE_CACHE), "TMPDIR": str(base)}
    command = ["bash", str(ORACLE / "serve.sh"), str(fixture), str(script_file)]
    with running_server(fixture, env, command=command, listening="opencode serve: ") as server:
        line = next(line for line in server.output if "opencode serve: " in line)
        work = Path(line.split(" work=", 1)[1].split()[0])
        yield server.url, work


@contextmanager
def strata_server(tmp_path: Path, fixture: Path, script: list[dict[str, Any]]) -> Iterator[tuple[str, Path]]:
    """`strata serve` on a copy of `fixture` committed as serve.sh commits it: the URL and the work dir."""
    work = tmp_path / "strata" / "work"
    shutil.copytree(fixture, work, ignore=shutil.ignore_patterns("opencode.json"))
    commit(work)
    script = json.loads(json.dumps(script).replace("__WORK__", str(work)))
    with ScriptedServer(script) as model:
        (work / "opencode.json").write_text(
            json.dumps({**mock_provider_config(model.base_url), "permission": PERMISSION})
        )
        with running_server(work, isolated_env(tmp_path / "strata")) as server:
            yield server.url, work


def commit(work: Path) -> None:
    identity = ["-c", "user.name=oracle", "-c", "user.email=oracle@example.invalid"]
    for args in (["init", "-q"], ["add", "-A"], [*identity, "commit", "-qm", "fixture", "--allow-empty"]):
        subprocess.run(["git", *args], cwd=work, check=True)


def make_fixture(root: Path) -> Path:
    fixture = root / "fixture"
    for name, (text, mode) in FILES.items():
        path = fixture / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(mode)
    return fixture


def session_walk(url: str, work: Path) -> list[tuple[str, Any]]:
    """The scripted turn, then diff, revert, unrevert, revert and a new prompt: each answer and the disk after it."""
    seen: list[tuple[str, Any]] = []
    with httpx.Client(base_url=url, timeout=120) as client:
        session_id = client.post("/session", json={}).json()["id"]

        def prompt(text: str) -> None:
            answer = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": text}]})
            assert answer.status_code == 200, answer.text

        def user_ids() -> list[str]:
            messages = client.get(f"/session/{session_id}/message").json()
            return [m["info"]["id"] for m in messages if m["info"]["role"] == "user"]

        def settled_diff(message_id: str, files: list[str]) -> Any:
            """OpenCode writes a turn's summary in a fiber of its own after the step: wait for its files."""
            return wait_until(
                lambda: (found := diff(message_id)) and [d["file"] for d in found] == files and found,
                f"the diff of {message_id} to list {files}",
            )

        def diff(message_id: str | None) -> Any:
            params = {"messageID": message_id} if message_id else {}
            answer = client.get(f"/session/{session_id}/diff", params=params)
            assert answer.status_code == 200, answer.text
            return answer.json()

        def revert_state(answer: httpx.Response) -> Any:
            assert answer.status_code == 200, answer.text
            revert = answer.json().get("revert")
            return None if revert is None else {"diff": revert.get("diff"), "part": "partID" in revert}

        prompt("change the files")
        seen.append(("disk after the turn", disk(work)))
        (first,) = user_ids()
        seen.append(("diff of the turn", settled_diff(first, TURN_FILES)))
        seen.append(("diff of the session", diff(None)))
        seen.append(("revert", revert_state(client.post(f"/session/{session_id}/revert", json={"messageID": first}))))
        seen.append(("disk after revert", disk(work)))
        seen.append(("diff while reverted", diff(None)))
        seen.append(("diff of the turn while reverted", diff(first)))
        seen.append(("unrevert", revert_state(client.post(f"/session/{session_id}/unrevert"))))
        seen.append(("disk after unrevert", disk(work)))
        seen.append(
            ("revert again", revert_state(client.post(f"/session/{session_id}/revert", json={"messageID": first})))
        )
        prompt("write the second file")
        seen.append(("disk after a prompt over the revert", disk(work)))
        seen.append(("users after the prompt", len(user_ids())))
        second = user_ids()[-1]
        seen.append(("diff of the new turn", settled_diff(second, SECOND_FILES)))
        seen.append(("diff of the session after", diff(None)))
    return seen


def test_both_servers_agree_on_diff_revert_and_unrevert(tmp_path: Path) -> None:
    script = [*TURN, *AFTER_REVERT]
    with opencode_server(tmp_path, make_fixture(tmp_path / "oc"), script) as (url, work):
        opencode = dict(session_walk(url, work))
    with strata_server(tmp_path, make_fixture(tmp_path / "st"), script) as (url, work):
        strata = dict(session_walk(url, work))
    assert list(strata) == list(opencode)
    assert strata["disk after the turn"] != strata["disk after revert"]
    assert strata["disk after revert"] == {name: (text.encode(), oct(mode)) for name, (text, mode) in FILES.items()}
    # Unrevert: Strata puts the turn back whole; OpenCode leaves the deleted file the revert had brought back.
    assert strata["disk after unrevert"] == strata["disk after the turn"]
    kept = opencode["disk after unrevert"].pop(DELETED_BY_THE_TURN)
    assert (
        kept == strata["disk after revert"][DELETED_BY_THE_TURN]
        and DELETED_BY_THE_TURN not in strata["disk after the turn"]
    )
    assert opencode["disk after unrevert"] == strata["disk after unrevert"]
    # So the second revert takes back one file fewer under OpenCode; it is the first revert again under Strata.
    assert strata["revert again"] == strata["revert"]
    assert f"b/{DELETED_BY_THE_TURN}" not in opencode.pop("revert again")["diff"]
    del strata["revert again"]
    for name, expected in opencode.items():
        assert strata[name] == expected, name


PART_TURN: list[dict[str, Any]] = [
    TURN[0],
    {"text": "Now the shell.", "tool_calls": TURN[1]["tool_calls"]},
    {"text": "Changed."},
]
"""The turn again, its second step saying something before its shell command: a revert from that command's part
takes back the command's changes only (OpenCode keeps a part's message when text or a tool came before it)."""


def part_walk(url: str, work: Path) -> dict[str, Any]:
    """The turn, then a revert from the shell command's part and an unrevert: answers and the disk after each."""
    seen: dict[str, Any] = {}
    with httpx.Client(base_url=url, timeout=120) as client:
        session_id = client.post("/session", json={}).json()["id"]
        answer = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": "go"}]})
        assert answer.status_code == 200, answer.text
        seen["disk after the turn"] = disk(work)
        messages = client.get(f"/session/{session_id}/message").json()
        (message_id, part_id) = next(
            (m["info"]["id"], p["id"]) for m in messages for p in m["parts"] if p.get("tool") == "bash"
        )
        reverted = client.post(f"/session/{session_id}/revert", json={"messageID": message_id, "partID": part_id})
        assert reverted.status_code == 200, reverted.text
        revert = reverted.json()["revert"]
        seen["revert"] = {
            "at the part": (revert["messageID"], revert.get("partID")) == (message_id, part_id),
            "diff": revert.get("diff"),
        }
        seen["disk after revert"] = disk(work)
        assert client.post(f"/session/{session_id}/unrevert").status_code == 200
        seen["disk after unrevert"] = disk(work)
    return seen


def test_both_servers_revert_from_a_part_alike(tmp_path: Path) -> None:
    with opencode_server(tmp_path, make_fixture(tmp_path / "oc"), PART_TURN) as (url, work):
        opencode = part_walk(url, work)
    with strata_server(tmp_path, make_fixture(tmp_path / "st"), PART_TURN) as (url, work):
        strata = part_walk(url, work)
    assert strata["revert"]["at the part"] and (strata["disk after revert"]["edit.txt"][0] == b"one\nTWO\nthree\n")
    assert strata["disk after revert"] != strata["disk after the turn"]
    # As in the whole-turn walk, OpenCode's unrevert leaves the file the command deleted; Strata's does not.
    kept = opencode["disk after unrevert"].pop(DELETED_BY_THE_TURN)
    assert kept == opencode["disk after revert"][DELETED_BY_THE_TURN]
    assert strata["disk after unrevert"] == strata["disk after the turn"]
    for name, expected in opencode.items():
        assert strata[name] == expected, name
