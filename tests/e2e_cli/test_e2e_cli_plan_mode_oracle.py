"""`strata run --agent plan` with experimental plan mode sends what `opencode run` 1.18.33 sent.

`tests/oracle_fixtures/captures/opencode-plan-mode-run` is capture.sh's recording of
`OPENCODE_EXPERIMENTAL_PLAN_MODE=1 opencode run --agent plan "plan a shout function in greet.py"` on the
`plan-mode` fixture, the model calling plan_exit and then answering. `opencode run` denies plan_exit for
its sessions (nobody could answer), so the call is rewritten to `invalid`; Strata does not offer the tool in
a non-interactive run either. Compared: the tools offered, and every message, with the plan-mode reminder
reduced to the line naming the plan file (its prose is each product's own) and the plan file's name
(creation time and slug) normalised. The plan directory is created before the first request.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from cli_harness import Cli

from strata_providers.testing import ScriptedServer

FIXTURES = Path(__file__).parents[1] / "oracle_fixtures"
CAPTURE = FIXTURES / "captures" / "opencode-plan-mode-run"
PROMPT = "plan a shout function in greet.py"
PLAN_NAME = re.compile(r"plans/\d{13}-[a-z0-9-]+\.md")
QUOTED = re.compile(r'^"(.*)"$', re.DOTALL)
SCRIPT: list[dict[str, Any]] = [{"tool_calls": [{"name": "plan_exit", "arguments": {}}]}, {"text": "Planned."}]


def part_shape(text: str, work: str) -> Any:
    text = PLAN_NAME.sub("plans/<PLAN>.md", text.replace(work, "<WORK>"))
    if not text.startswith("<system-reminder>"):
        return QUOTED.sub(r"\1", text)  # `opencode run` quotes an argument that holds a space
    body, _, tail = text.partition("</system-reminder>")
    return {"reminder": [line for line in body.splitlines() if "<PLAN>" in line], "tail": tail}


def shape(body: dict[str, Any], work: str) -> dict[str, Any]:
    messages: list[Any] = []
    for message in body["messages"][1:]:
        content = message.get("content")
        if message["role"] == "user":
            messages.append([part_shape(p["text"], work) for p in content])
        elif message["role"] == "assistant":
            messages.append(
                [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message["tool_calls"]]
            )
        else:
            messages.append(content)
    return {"tools": [t["function"]["name"] for t in body["tools"]], "messages": messages}


def test_plan_mode_run_matches_what_opencode_sent(cli: Cli) -> None:
    work = cli.project
    shutil.copytree(FIXTURES / "plan-mode", work, dirs_exist_ok=True)
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    with ScriptedServer(SCRIPT) as server:
        config = work / "opencode.json"
        config.write_text(config.read_text().replace("__PORT__", str(server.port)))
        done = cli("run", "--agent", "plan", PROMPT, extra_env={"STRATA_EXPERIMENTAL_PLAN_MODE": "1"})
        assert done.returncode == 0, done.stderr
        ours = [shape(r.body, str(work)) for r in server.main_requests]
    their_work = (CAPTURE / "workdir.txt").read_text().strip()
    theirs = [shape(json.loads(p.read_text()), their_work) for p in sorted(CAPTURE.glob("[0-9][0-9][0-9].json"))]
    assert ours == theirs
    assert ours[0]["messages"][0][1] == {
        "reminder": [
            "No plan file exists yet. You should create your plan at <WORK>/.opencode/plans/<PLAN>.md "
            "using the write tool."
        ],
        "tail": "\n",
    }
    (plans,) = (work / ".opencode").iterdir()
    assert plans.name == "plans" and list(plans.iterdir()) == []
