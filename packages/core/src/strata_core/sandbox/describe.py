"""What `strata debug sandbox` shows: the mode in force and why, what commands may write and read (the toolchains
on PATH among it), what stays protected or hidden in the project, which variables they do not see, and
(uncontained) what they still read. A project with more `.env` files than the sandbox can hide is shown with
the refusal as its `problem` (commands there do not run)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from attrs import evolve

from strata_core.sandbox.bubblewrap import SYSTEM_DIRS
from strata_core.sandbox.environment import scrubbed_environment
from strata_core.sandbox.masks import TooManySecretFilesError
from strata_core.sandbox.project_scan import scan_project
from strata_core.sandbox.protected import protected_paths
from strata_core.sandbox.sandbox import ShellSandbox, is_within
from strata_core.sandbox.undumpable import STILL_READABLE


def describe(sandbox: ShellSandbox, root: Path, env: Mapping[str, str], hidden: frozenset[str]) -> dict[str, object]:
    """What `strata debug sandbox` shows: the mode in force and why, what is writable, protected, hidden."""
    state = sandbox.state()
    writable = state.contained and state.mode == "workspace-write"
    scan = scan_project(root)
    refused = None
    try:
        layout = sandbox.layout(root, root, writable, scan) if state.contained else None
    except TooManySecretFilesError as error:  # shown, not raised: this command's job is to say what holds
        refused = str(error)
        layout = sandbox.layout(root, root, writable, evolve(scan, secrets=()))
    mounts = layout.mounts if layout is not None else ()
    kept = scrubbed_environment(env, hidden=hidden | sandbox.settings.hidden_env, allow=sandbox.settings.env_allow)
    shown = {
        "writable": [m.target for m in reversed(mounts) if m.writable],
        "readable": [Path(name) for name in SYSTEM_DIRS if Path(name).is_dir()]
        + [m.target for m in mounts if not (m.writable or is_within(m.target, root) or m.source != m.target)],
        # Version managers' roots and the dot-dirs PATH reaches (all in "readable" too), for who asks "why
        # does my python3 work / not work in there".
        "toolchains": sandbox.toolchains() if state.contained else [],
        "protected": list(dict.fromkeys([*protected_paths(root), *scan.read_only])) if writable else [],
        "hidden_files": list(layout.masks) if layout is not None else [],
    }
    if not state.contained:
        shown["writable"] = shown["readable"] = [Path("/")]
    return {
        "wanted": state.wanted,
        "mode": state.mode,
        "mechanism": state.mechanism,
        "problem": refused or state.problem,
        "network": sandbox.settings.network or not state.contained,
        "root": str(root),
        **{key: [str(path) for path in paths] for key, paths in shown.items()},
        "hidden_env": sorted(set(env) - set(kept)),
        # Inside the sandbox no other process is there at all; outside it, only Strata's own /proc is closed.
        "still_readable": None if state.contained else STILL_READABLE,
    }
