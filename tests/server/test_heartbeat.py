"""`server.heartbeat` on the event streams, as OpenCode 1.18.33 sends it: `{id, type, properties: {}}` on `/event`,
`{payload}` alone on `/global/event`, every 10 s per connection unless `STRATA_SERVER_HEARTBEAT_SECONDS` says."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from server_harness import ServeFactory

from strata_server import ServerSettings
from strata_server.settings import HEARTBEAT_SECONDS, ServerSettingsError

FAST = {"STRATA_SERVER_HEARTBEAT_SECONDS": "0.2"}


def first_heartbeat(url: str, route: str) -> tuple[dict[str, Any], bytes]:
    with httpx.Client(base_url=url, timeout=30) as client, client.stream("GET", route) as stream:
        raw = b""
        for chunk in stream.iter_raw():
            raw += chunk
            for line in raw.split(b"\n"):
                if line.startswith(b"data: ") and b"server.heartbeat" in line:
                    return json.loads(line.removeprefix(b"data: ")), raw
    raise AssertionError(f"the stream ended before a heartbeat: {raw!r}")


def test_the_event_stream_sends_opencodes_heartbeat_event(serve: ServeFactory) -> None:
    server = serve([], extra_env=FAST)
    beat, raw = first_heartbeat(server.url, "/event")
    assert beat["type"] == "server.heartbeat" and beat["properties"] == {} and beat["id"].startswith("evt_")
    assert set(beat) == {"id", "type", "properties"}
    assert b": ping" not in raw  # the heartbeat event replaces the comment ping


def test_the_global_stream_wraps_the_heartbeat_without_a_directory(serve: ServeFactory) -> None:
    server = serve([], extra_env=FAST)
    beat, _ = first_heartbeat(server.url, "/global/event")
    assert set(beat) == {"payload"} and beat["payload"]["type"] == "server.heartbeat"


def test_the_heartbeat_interval_is_opencodes_unless_set() -> None:
    assert ServerSettings.from_env({}).heartbeat_seconds == HEARTBEAT_SECONDS == 10.0
    assert ServerSettings.from_env({"STRATA_SERVER_HEARTBEAT_SECONDS": "2.5"}).heartbeat_seconds == 2.5
    with pytest.raises(ServerSettingsError, match="STRATA_SERVER_HEARTBEAT_SECONDS='0'"):
        ServerSettings.from_env({"STRATA_SERVER_HEARTBEAT_SECONDS": "0"})
