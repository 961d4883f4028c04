"""Running a child process that the permission bits of its files apply to, even when the tests run as root.

Root ignores `chmod 000`; without `CAP_DAC_OVERRIDE` and `CAP_DAC_READ_SEARCH` it is held to the owner's
bits like anyone else, and still owns the test's `tmp_path`, so the files need no other owner.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest


def run_held_to_permissions(script: str, *args: str) -> str:
    """Run the Python `script` in a child denied what the mode bits deny; its stdout (skips where impossible)."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: nothing here can make the OS deny root access")
        prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]
    done = subprocess.run(
        [*prefix, sys.executable, "-c", script, *args], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout
