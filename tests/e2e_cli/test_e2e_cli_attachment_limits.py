"""`strata run -f`: a huge attachment never reaches the request; a big image arrives downscaled."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config
from PIL import Image

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def configure(cli: Cli, server: ScriptedServer) -> None:
    config = mock_provider_config(server.base_url)
    config["provider"]["mock"]["models"]["gpt-4o-mock"]["attachment"] = True
    write_config(cli.project, config)


def image_urls(body: dict[str, Any]) -> list[str]:
    user = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return [p["image_url"]["url"] for p in user if isinstance(p, dict) and p.get("type") == "image_url"]


def test_a_huge_attachment_is_refused_before_the_request(cli: Cli, scripted: Scripted) -> None:
    huge = cli.project / "huge.png"
    with huge.open("wb") as file:
        file.truncate(100 * 1024 * 1024)
    server = scripted([{"text": "No picture."}])
    configure(cli, server)
    done = cli("run", "-f", str(huge), "what is this?")
    assert "No picture." in done.stdout
    body = server.main_requests[0].body
    assert image_urls(body) == []
    assert len(server.main_requests[0].raw) < 1024 * 1024
    assert "more than the 20.0 MB an attachment may be" in json.dumps(body)


def test_a_big_image_arrives_downscaled(cli: Cli, scripted: Scripted) -> None:
    Image.new("RGB", (4000, 3000), "orange").save(cli.project / "photo.jpg", format="JPEG")
    server = scripted([{"text": "Orange."}])
    configure(cli, server)
    done = cli("run", "-f", str(cli.project / "photo.jpg"), "what colour?")
    assert done.returncode == 0, done.stderr
    [url] = image_urls(server.main_requests[0].body)
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert image.size == (2000, 1500)
