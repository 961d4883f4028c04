"""`session export --sanitize` redacts what `opencode export --sanitize` (1.18.33) redacts, and nothing else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from opencode_records import opencode_export

from strata_core.session.sanitize import sanitized


def test_a_recorded_export_sanitizes_to_what_opencode_printed(tmp_path: Path) -> None:
    work = tmp_path / "work"
    assert sanitized(opencode_export(work)) == opencode_export(work, "opencode-1.18.33-export-sanitized.json")


def _one_part(part: dict[str, Any]) -> dict[str, Any]:
    document = {
        "info": {"id": "ses_1", "title": "t", "directory": "/d", "time": {"created": 1, "updated": 1}},
        "messages": [{"info": {"id": "msg_1", "role": "user", "sessionID": "ses_1"}, "parts": [part]}],
    }
    result: dict[str, Any] = sanitized(document)["messages"][0]["parts"][0]
    return result


def test_file_contents_and_their_sources_are_redacted() -> None:
    part = {
        "id": "prt_f",
        "type": "file",
        "mime": "text/plain",
        "url": "file:///d/secret.txt",
        "filename": "secret.txt",
        "source": {"type": "file", "path": "/d/secret.txt", "text": {"value": "API_KEY=x", "start": 0, "end": 9}},
    }
    assert _one_part(part) == {
        **part,
        "url": "[redacted:file-url:prt_f]",
        "filename": "[redacted:file-name:prt_f]",
        "source": {
            "type": "file",
            "path": "[redacted:file-path:prt_f]",
            "text": {"value": "[redacted:file-text:prt_f]", "start": 0, "end": 9},
        },
    }


def test_tool_input_output_and_metadata_are_redacted_but_the_call_stays_readable() -> None:
    state = {
        "status": "completed",
        "input": {"command": "cat .env"},
        "output": "TOKEN=abc",
        "title": "cat .env",
        "metadata": {"exit": 0},
        "time": {"start": 1, "end": 2},
    }
    part = {"id": "prt_t", "type": "tool", "tool": "bash", "callID": "call_1", "state": state}
    assert _one_part(part)["state"] == {
        "status": "completed",
        "input": {"redacted": "tool-input:prt_t"},
        "output": "[redacted:tool-output:prt_t]",
        "title": "[redacted:tool-title:prt_t]",
        "metadata": {"redacted": "tool-state-metadata:prt_t"},
        "time": {"start": 1, "end": 2},
    }
    pending = {**part, "state": {"status": "pending", "input": {}, "raw": '{"comm'}}
    assert _one_part(pending)["state"] == {"status": "pending", "input": {}, "raw": "[redacted:tool-raw:prt_t]"}


def test_empty_values_and_other_records_are_kept() -> None:
    assert _one_part({"id": "prt_e", "type": "text", "text": "  \n"})["text"] == "  \n"
    assert _one_part({"id": "prt_c", "type": "compaction", "auto": True}) == {
        "id": "prt_c",
        "type": "compaction",
        "auto": True,
    }
    patch = {"id": "prt_p", "type": "patch", "hash": "abc", "files": ["/d/a.py", "/d/b.py"]}
    assert _one_part(patch)["files"] == ["[redacted:patch-file:prt_p-0]", "[redacted:patch-file:prt_p-1]"]
    subtask = {"id": "prt_s", "type": "subtask", "prompt": "p", "description": "d", "agent": "general"}
    assert _one_part(subtask) == {
        **subtask,
        "prompt": "[redacted:subtask-prompt:prt_s]",
        "description": "[redacted:subtask-description:prt_s]",
    }
    json.dumps(_one_part(subtask))
