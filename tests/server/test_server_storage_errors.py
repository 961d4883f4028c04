"""The session database failing under `strata serve` is one clear error, not a 500 `UnknownError`: a full disk
is a 507 with OpenCode's error shape, naming the database and what to free, the prompt that hit it stores
nothing, and once there is room again the session answers as before (the data directory is a real, small
tmpfs: needs root); a database another process keeps locked is a 503 saying so."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import ServeFactory
from small_disk import mounted_tmpfs

FULL = "could not be written: the filesystem that holds it is full"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with mounted_tmpfs(tmp_path / "data", "2m") as mount:
        yield mount


def fill(disk: Path) -> Path:
    """Takes all the free space of `disk`, in one file (removed to free it again)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"x" * 65536)
        except OSError:
            return filler  # ENOSPC


def prompt(client: httpx.Client, session_id: str, text: str) -> httpx.Response:
    return client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": text}]})


def texts(client: httpx.Client, session_id: str) -> list[str]:
    messages: list[dict[str, Any]] = client.get(f"/session/{session_id}/message").json()
    return [p["text"] for m in messages for p in m["parts"] if p["type"] == "text"]


def test_a_prompt_on_a_full_disk_is_a_507_naming_the_store_and_stores_nothing(
    serve: ServeFactory, small_disk: Path
) -> None:
    server = serve([{"text": "Noted: milk."}, {"text": "Still milk."}], extra_env={"STRATA_DATA_DIR": str(small_disk)})
    with httpx.Client(base_url=server.url, timeout=30) as client:
        session_id = client.post("/session", json={}).json()["id"]
        assert prompt(client, session_id, "remember: milk").status_code == 200
        filler = fill(small_disk)
        refused = prompt(client, session_id, "what did I say?")
        assert refused.status_code == 507, refused.text
        body = refused.json()
        assert body["name"] == "StorageFullError"
        assert body["data"]["message"].startswith(f"The session database {small_disk / 'strata.db'} {FULL}")
        assert "Free some space there" in body["data"]["message"]
        filler.unlink()
        assert texts(client, session_id) == ["remember: milk", "Noted: milk."]
        again = prompt(client, session_id, "what did I say?")
        assert again.status_code == 200, again.text
        assert texts(client, session_id)[-2:] == ["what did I say?", "Still milk."]


def test_creating_a_session_on_a_full_disk_is_a_507_too(serve: ServeFactory, small_disk: Path) -> None:
    server = serve([], extra_env={"STRATA_DATA_DIR": str(small_disk)})
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get("/session").status_code == 200  # the database exists before the disk fills
        fill(small_disk)
        refused = client.post("/session", json={})
        assert refused.status_code == 507, refused.text
        assert refused.json()["name"] == "StorageFullError"
        assert FULL in refused.json()["data"]["message"]


def test_a_database_another_process_keeps_locked_is_a_503(serve: ServeFactory, env: dict[str, str]) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=60) as client:
        assert client.get("/session").status_code == 200  # the database exists
        database = Path(env["XDG_DATA_HOME"]) / "strata/strata.db"
        with closing(sqlite3.connect(database, isolation_level=None)) as other:
            other.execute("BEGIN EXCLUSIVE")  # held past the store's busy timeout
            refused = client.post("/session", json={})
            other.execute("ROLLBACK")
        assert refused.status_code == 503, refused.text
        assert refused.json()["name"] == "StorageLockedError"
        assert refused.json()["data"]["message"].startswith(f"The session database {database} stayed locked")
        assert client.post("/session", json={}).status_code == 200
