"""`{file:}` references to what is not a regular file, or to a huge one: a clear config error, not a hang."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from strata_core.config import files
from strata_core.config.errors import ConfigError
from strata_core.config.files import read_config_file


def config_with(tmp_path: Path, reference: str) -> Path:
    path = tmp_path / "opencode.json"
    path.write_text(json.dumps({"username": "{file:" + reference + "}"}))
    return path


def refusal(path: Path, tmp_path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        read_config_file(path, {}, tmp_path)
    return str(caught.value)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    path = config_with(tmp_path, "pipe")
    assert refusal(path, tmp_path) == (
        f'{path}:1: bad file reference "{{file:pipe}}": {tmp_path / "pipe"} is not a regular file (it is a FIFO)'
    )


def test_a_device_is_refused(tmp_path: Path) -> None:
    assert "/dev/zero is not a regular file (it is a device)" in refusal(config_with(tmp_path, "/dev/zero"), tmp_path)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    assert "is not a regular file (it is a folder)" in refusal(config_with(tmp_path, "folder"), tmp_path)


def test_a_file_over_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "FILE_REFERENCE_LIMIT", 1024 * 1024)
    (tmp_path / "big.txt").write_text("x" * (1024 * 1024 + 1))
    assert f"{tmp_path / 'big.txt'} is larger than 1 MB" in refusal(config_with(tmp_path, "big.txt"), tmp_path)


def test_a_regular_file_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "name.txt").write_text("  ada \n")
    assert read_config_file(config_with(tmp_path, "name.txt"), {}, tmp_path) == {"username": "ada"}
