"""The container's services have their Protocols' types under mypy (`container_types.py` says which)."""

from __future__ import annotations

from pathlib import Path

from mypy import api


def test_mypy_sees_each_service_as_its_protocol() -> None:
    checked = Path(__file__).with_name("container_types.py")
    out, err, status = api.run(["--strict", "--no-error-summary", str(checked)])
    assert status == 0, out + err  # `assert_type` fails on a service typed `Any` as on one of the wrong type
