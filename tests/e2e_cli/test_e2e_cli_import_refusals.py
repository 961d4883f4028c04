"""`strata session import` / `strata import` of exports Strata cannot store as they are: a clear refusal naming
what is wrong and, where a copy would work, the command for it; never an internal error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_harness import Cli

EXPORT = Path(__file__).parents[1] / "session" / "fixtures" / "opencode-1.14-export.json"


def _write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document))
    return path


def test_a_copy_whose_messages_are_stored_under_another_session_is_refused_with_new_ids_offered(
    cli: Cli, tmp_path: Path
) -> None:
    document = json.loads(EXPORT.read_text())
    assert cli("session", "import", str(EXPORT)).returncode == 0
    document["info"]["id"] = "ses_zzzzcopy0000000000000000"
    copied = _write(tmp_path / "copy.json", document)

    for command in (("session", "import"), ("import",)):
        refused = cli(*command, str(copied))
        assert refused.returncode == 1, refused.stderr
        message, holder = document["messages"][0]["info"]["id"], json.loads(EXPORT.read_text())["info"]["id"]
        assert f"its message {message} is already stored in {holder}" in refused.stderr
        assert f"`strata session import --new-ids {copied}`" in refused.stderr

    done = cli("import", "--new-ids", str(copied))
    assert done.returncode == 0, done.stderr
    assert len(json.loads(cli("session", "list", "--json").stdout)) == 2


def test_an_export_with_a_time_no_date_can_name_is_refused_saying_where(cli: Cli, tmp_path: Path) -> None:
    document = json.loads(EXPORT.read_text())
    document["info"]["time"]["updated"] = 10**30
    refused = cli("session", "import", str(_write(tmp_path / "t.json", document)))
    assert refused.returncode == 1, refused.stderr
    assert refused.stderr.startswith("Error: invalid time at info.time.updated: 1000000000000000000000000000000 ")
    assert json.loads(cli("session", "list", "--json").stdout) == []
