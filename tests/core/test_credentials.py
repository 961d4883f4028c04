"""The credentials store: Strata's `auth.json` written whole with mode 0600, OpenCode's read under it, a broken
file named in a clear error."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from strata_core import redaction
from strata_core.config import CredentialsError, CredentialStore, StrataPaths

API = {"type": "api", "key": "sk-stored-0001"}


def store_in(tmp_path: Path) -> CredentialStore:
    return CredentialStore.from_paths(StrataPaths.from_env({"HOME": str(tmp_path)}))


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def test_a_stored_credential_is_written_with_mode_0600_and_read_back(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.set("groq", API)
    path = tmp_path / ".local/share/strata/auth.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text(encoding="utf-8")) == {"groq": API}
    assert store_in(tmp_path).api_key("groq") == "sk-stored-0001"
    assert [p.name for p in path.parent.iterdir()] == ["auth.json"]  # no temporary file left beside it


def test_a_write_that_fails_leaves_the_old_file_whole(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.set("groq", API)
    with pytest.raises(TypeError):
        store.set("mistral", {"type": "api", "key": "sk-2", "metadata": {"x": object()}})
    path = tmp_path / ".local/share/strata/auth.json"
    assert json.loads(path.read_text(encoding="utf-8")) == {"groq": API}
    assert [p.name for p in path.parent.iterdir()] == ["auth.json"]


def test_opencodes_file_is_read_under_stratas_and_never_written(tmp_path: Path) -> None:
    theirs = tmp_path / ".local/share/opencode/auth.json"
    write(theirs, {"groq": {"type": "api", "key": "sk-theirs"}, "xai": {"type": "api", "key": "sk-xai"}})
    store = store_in(tmp_path)
    store.set("groq", API)
    assert store.api_key("groq") == "sk-stored-0001"  # Strata's entry wins
    assert store.api_key("xai") == "sk-xai"
    assert store.remove("xai") is False  # not Strata's to remove
    assert json.loads(theirs.read_text(encoding="utf-8"))["groq"]["key"] == "sk-theirs"


def test_only_an_api_credential_gives_a_key_and_odd_entries_are_skipped(tmp_path: Path) -> None:
    oauth = {"type": "oauth", "refresh": "r", "access": "a", "expires": 0}
    write(tmp_path / ".local/share/strata/auth.json", {"a": oauth, "b": {"type": "api"}, "c": "x", "d": API})
    store = store_in(tmp_path)
    assert store.all() == {"a": oauth, "d": API}
    assert store.api_key("a") is None and store.api_key("d") == "sk-stored-0001"


@pytest.mark.parametrize(
    ("text", "says"),
    [("{ not json", "is not valid JSON (line 1, column 3)"), ("[1, 2]", "must hold a JSON object")],
)
def test_a_broken_file_is_an_error_naming_it(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / ".local/share/strata/auth.json"
    write(path, text)
    with pytest.raises(CredentialsError) as raised:
        store_in(tmp_path).api_key("groq")
    assert str(path) in str(raised.value) and says in str(raised.value)


def test_a_change_on_disk_is_seen_by_the_next_lookup(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    assert store.api_key("groq") is None
    store_in(tmp_path).set("groq", API)  # another process, say
    assert store.api_key("groq") == "sk-stored-0001"


def test_a_stored_key_is_remembered_as_a_secret(tmp_path: Path) -> None:
    store_in(tmp_path).set("groq", {"type": "api", "key": "sk-never-shown-42"})
    assert "sk-never-shown-42" not in redaction.redact_text("the key is sk-never-shown-42")


def test_changes_made_at_once_from_many_threads_are_all_kept(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    ids = [f"provider-{n}" for n in range(40)]

    def store_some(start: int) -> None:
        for provider_id in ids[start::4]:
            store.set(provider_id, {"type": "api", "key": f"sk-{provider_id}"})

    threads = [threading.Thread(target=store_some, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(store_in(tmp_path).all()) == sorted(ids)
