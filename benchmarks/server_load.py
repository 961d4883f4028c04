"""`strata serve` under load: 20 sessions prompting at once, and how quickly `/global/health` answers meanwhile.

A real `strata serve` process (the installed console script, a fresh project and HOME) on a loopback port, in
front of an in-process `ScriptedServer` that streams each answer as 50 small text deltas, 2 ms apart. The 20
sessions are created first; then 20 `POST /session/{id}/message` requests leave at once, one `/event` client
reads every event, and a probe sends `GET /global/health` one after another (a new request as soon as the
last is answered) until every turn is done. Checked after each run: every session holds its user message
and an assistant message whose text is the whole scripted answer, with its step-start, text and step-finish
parts, and the event stream carried one `session.idle` per session. Nothing here is timed in a test.
"""

from __future__ import annotations

import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

from benchmarks.common import REPO_ROOT, Result, at_most, clean_env
from strata_providers.testing import ScriptedServer

SESSIONS = 20
ANSWER = " ".join(f"word{i:03d}" for i in range(50))
"""About 400 characters, streamed in 8-character deltas."""
TURN = {"text": ANSWER, "chunk_size": 8, "delay": 0.002}
STRATA = REPO_ROOT / ".venv" / "bin" / "strata"
HEALTH_TARGET_MS = 50.0


def _config(base_url: str) -> dict[str, Any]:
    model = "gpt-4o-mock"
    provider = {"npm": "@ai-sdk/openai-compatible", "name": "Mock", "options": {"baseURL": base_url, "apiKey": "x"}}
    return {"provider": {"mock": {**provider, "models": {model: {"name": model}}}}, "model": f"mock/{model}"}


def _start(project: Path, home: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [str(STRATA), "serve", "--port", "0"],
        cwd=project,
        env=clean_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "listening on " not in line:
        process.kill()
        raise RuntimeError(f"strata serve did not start: {line}{process.stdout.read()}")
    return process, line.split("listening on ", 1)[1].strip()


async def _load(url: str, sessions: int) -> tuple[list[float], float]:
    """Health latencies (ms) while `sessions` turns run at once, and the wall time of the turns (s)."""
    latencies: list[float] = []
    idle: set[str] = set()
    all_idle = anyio.Event()
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        ids = [(await client.post("/session", json={})).json()["id"] for _ in range(sessions)]
        done = anyio.Event()

        async def listen(*, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            async with client.stream("GET", "/event") as events:
                task_status.started()
                async for line in events.aiter_lines():
                    if line.startswith("data:"):
                        event = json.loads(line.removeprefix("data:"))
                        if event["type"] == "session.idle":
                            idle.add(event["properties"]["sessionID"])
                            if len(idle) == sessions:
                                all_idle.set()

        async def probe() -> None:
            while not done.is_set():
                start = time.perf_counter()
                response = await client.get("/global/health")
                latencies.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200

        async def prompt(session_id: str) -> None:
            response = await client.post(
                f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": "go"}]}
            )
            assert response.status_code == 200, response.text

        async with anyio.create_task_group() as group:
            await group.start(listen)
            group.start_soon(probe)
            started = time.perf_counter()
            async with anyio.create_task_group() as turns:
                for session_id in ids:
                    turns.start_soon(prompt, session_id)
            wall = time.perf_counter() - started
            done.set()
            with anyio.fail_after(10):  # every session's idle event reached the stream
                await all_idle.wait()
            group.cancel_scope.cancel()
        await _check(client, ids)
    return latencies, wall


async def _check(client: httpx.AsyncClient, ids: list[str]) -> None:
    """No lost message or part: each session has its question and the whole answer."""
    for session_id in ids:
        messages = (await client.get(f"/session/{session_id}/message")).json()
        assert [m["info"]["role"] for m in messages] == ["user", "assistant"], messages
        parts = messages[1]["parts"]
        assert [p["type"] for p in parts] == ["step-start", "text", "step-finish"], parts
        assert parts[1]["text"] == ANSWER


def measure(runs: int, sessions: int = SESSIONS) -> tuple[list[float], list[float]]:
    latencies: list[float] = []
    walls: list[float] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp, ScriptedServer([TURN] * sessions) as model:
            project, home = Path(tmp) / "work", Path(tmp) / "home"
            project.mkdir()
            home.mkdir()
            subprocess.run(["git", "init", "-q", str(project)], check=True)
            (project / "opencode.json").write_text(json.dumps(_config(model.base_url)), encoding="utf-8")
            process, url = _start(project, home)
            try:
                run_latencies, wall = anyio.run(_load, url, sessions)
            finally:
                process.send_signal(signal.SIGTERM)
                process.wait(30)
            latencies += run_latencies
            walls.append(wall)
    return latencies, walls


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or (1 if quick else 3)
    latencies, walls = measure(count)
    scenario = f"strata serve, {SESSIONS} sessions prompting at once"
    ordered = sorted(latencies)
    p90 = ordered[int(len(ordered) * 0.9)] if ordered else 0.0
    note = f"p90 {p90:.1f} ms, max {ordered[-1]:.1f} ms over {len(ordered)} health requests"
    return [
        Result(
            scenario,
            "GET /global/health, median",
            "ms",
            statistics.median(latencies),
            target=at_most(HEALTH_TARGET_MS),
            runs=count,
            note=note,
        ),
        Result(scenario, f"wall until all {SESSIONS} answers", "s", statistics.median(walls), runs=count),
    ]


if __name__ == "__main__":
    for result in run(quick="--quick" in sys.argv):
        print(result.scenario, result.metric, result.strata, result.unit, result.note)
