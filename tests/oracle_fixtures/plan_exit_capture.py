"""Record OpenCode 1.18.33's experimental plan mode through `opencode serve`, plan_exit answered Yes or No.

`opencode run` cannot show plan_exit: it adds session rules denying `question`, `plan_enter` and `plan_exit`,
so the tool is never offered there. The real server has no such rules, so this drives it like a client:
create a session, work out its plan file path (`.opencode/plans/{time.created}-{slug}.md`), script the model
to write that file and call plan_exit, send the prompt with agent `plan`, and answer the question plan_exit
asks. What it leaves in OUT_DIR: the model requests (`NNN.json`, as capture.sh), `question.json` (what the
user was asked), `messages.json` (the session as stored afterwards), `workdir.txt`, `home.txt`, `port.txt`.

usage: python3 plan_exit_capture.py FIXTURE_DIR OUT_DIR Yes|No
needs: the oracle (`STRATA_ORACLE`, default /work/shared/oracle) and OpenCode installed by its capture.sh.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ORACLE = Path(os.environ.get("STRATA_ORACLE", "/work/shared/oracle"))
CACHE = Path(os.environ.get("STRATA_ORACLE_CACHE", Path.home() / ".cache" / "strata-oracle"))
OPENCODE = CACHE / "node_modules" / ".bin" / "opencode"
PROMPT = "plan a shout function in greet.py"
PLAN_TEXT = "# Plan\n\n1. Add `shout(name)` to greet.py returning greet(name).upper().\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(url: str, body: Any = None, method: str = "GET") -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        text = response.read().decode()
    return json.loads(text) if text else None


def prepare(fixture: Path, base: Path, model_port: int) -> tuple[Path, Path]:
    work, home = base / "work", base / "home"
    shutil.copytree(fixture, work)
    home.mkdir()
    config = work / "opencode.json"
    config.write_text(config.read_text().replace("__PORT__", str(model_port)))
    git = ["git", "-c", "user.name=oracle", "-c", "user.email=oracle@example.invalid", "-c", "commit.gpgsign=false"]
    dates = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run([*git, "commit", "-qm", "fixture"], cwd=work, check=True, env={**os.environ, **dates})
    return work, home


def start_serve(work: Path, home: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        "PATH": f"{CACHE / 'rg' / 'bin'}:{os.environ['PATH']}",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_EXPERIMENTAL_PLAN_MODE": "1",
    }
    log = (work.parent / "serve.log").open("wb")
    process = subprocess.Popen([str(OPENCODE), "serve", "--port", str(port)], cwd=work, env=env, stdout=log, stderr=log)
    for _ in range(150):
        try:
            call(f"http://127.0.0.1:{port}/global/health")
            return process
        except OSError:
            time.sleep(0.2)
    raise SystemExit("opencode serve did not start")


def script(plan: Path) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(plan), "content": PLAN_TEXT}}]},
        {"tool_calls": [{"name": "plan_exit", "arguments": {}}]},
        {"text": "Implementing the plan now."},
    ]


def answer_question(url: str, answer: str, out: Path, done: threading.Event) -> None:
    while not done.is_set():
        pending = call(f"{url}/question")
        if pending:
            (out / "question.json").write_text(json.dumps(pending, indent=1))
            call(f"{url}/question/{pending[0]['id']}/reply", {"answers": [[answer]]}, "POST")
            return
        time.sleep(0.1)


def main() -> None:
    fixture, out, answer = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve(), sys.argv[3]
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*"):
        old.unlink()
    base = Path(tempfile.mkdtemp(prefix="oracle-plan."))
    model_port, serve_port = free_port(), free_port()
    work, home = prepare(fixture, base, model_port)
    serve = start_serve(work, home, serve_port)
    url = f"http://127.0.0.1:{serve_port}"
    model: subprocess.Popen[bytes] | None = None
    try:
        session = call(f"{url}/session", {}, "POST")
        plan = work / ".opencode" / "plans" / f"{session['time']['created']}-{session['slug']}.md"
        (base / "script.json").write_text(json.dumps(script(plan)))
        server = [sys.executable, str(ORACLE / "scripted_server.py"), "--port", str(model_port), "--out", str(out)]
        model = subprocess.Popen([*server, "--script", str(base / "script.json")])
        time.sleep(0.5)
        done = threading.Event()
        asker = threading.Thread(target=answer_question, args=(url, answer, out, done))
        asker.start()
        body = {"agent": "plan", "parts": [{"type": "text", "text": PROMPT}]}
        call(f"{url}/session/{session['id']}/message", body, "POST")
        done.set()
        asker.join()
        messages = call(f"{url}/session/{session['id']}/message")
        (out / "messages.json").write_text(json.dumps(messages, indent=1))
        args = f"opencode serve: POST /session/{{id}}/message agent=plan {PROMPT!r}; plan_exit answered {answer}"
        written = {"workdir": work, "home": home, "port": model_port, "plan": plan, "args": args}
        written["date"] = time.strftime("%Y-%m-%d")
        for name, value in written.items():
            (out / f"{name}.txt").write_text(f"{value}\n")
    finally:
        serve.terminate()
        if model is not None:
            model.terminate()
    print(f"opencode serve plan mode ({answer}): out={out} work={work}")


if __name__ == "__main__":
    main()
