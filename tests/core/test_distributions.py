"""`installed_version` reads a distribution's version from its `.dist-info`, as importlib.metadata reports it."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pytest

from strata_core.distributions import installed_version


@pytest.mark.parametrize("name", ["strata-core", "strata_cli", "attrs", "dependency-injector", "pydantic"])
def test_the_version_is_the_one_importlib_metadata_reports(name: str) -> None:
    assert installed_version(name) == metadata.version(name)


def test_a_distribution_that_is_not_installed_has_no_version() -> None:
    assert installed_version("strata-no-such-distribution") is None


def test_the_first_dist_info_on_the_import_path_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for folder, version in (("first", "2.0"), ("second", "1.0")):
        dist_info = tmp_path / folder / "demo_pkg-0.dist-info"
        dist_info.mkdir(parents=True)
        (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: demo-pkg\nVersion: {version}\n\nBody\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "first"), str(tmp_path / "second"), *sys.path])
    assert installed_version("Demo.Pkg") == "2.0" == metadata.version("demo-pkg")
