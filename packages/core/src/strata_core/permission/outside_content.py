"""Content from outside the project pulled in by configuration: allowed only where `external_directory` is.

Skills, instruction globs and `{file:}` references are read while the session is being set up, before anyone
could be asked. So a file that resolves (symlinks followed) outside the worktree and the global config
directories is read only when the configured `external_directory` rules allow its directory outright;
otherwise it is skipped with a warning naming it (what a headless run does with an `ask`). Allow a
directory with `"permission": {"external_directory": {"~/my-skills/*": "allow"}}`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from strata_core.logging import get_logger
from strata_core.permission.rules import PermissionConfigError, Ruleset, evaluate, from_config

log = get_logger(__name__)


def _contains(root: Path, target: Path) -> bool:
    return target == root or root in target.parents


@frozen
class OutsideContent:
    """Decides whether configuration may read a file: inside `roots`, or allowed by `rules`."""

    roots: tuple[Path, ...]
    rules: Ruleset

    @classmethod
    def build(cls, roots: Sequence[Path], permission: Any, home: Path) -> OutsideContent:
        """`roots` (the worktree, the global config dirs) and the `permission` config value to judge by."""
        try:
            rules = from_config(permission, home=home)
        except PermissionConfigError:
            rules = ()  # a bad permission value is reported where the config is checked; allow nothing extra
        real_roots = tuple(Path(os.path.realpath(root)) for root in roots if root != Path(root.anchor))
        return cls(real_roots, rules)

    def allows(self, path: Path, what: str) -> bool:
        """Whether `path` may be read; a refusal logs a warning saying what (`what`) was skipped and why."""
        real = Path(os.path.realpath(path))
        if any(_contains(root, real) for root in self.roots):
            return True
        pattern = f"{real.parent}/*"
        if evaluate("external_directory", pattern, self.rules).action == "allow":
            return True
        log.notice(
            "outside content skipped",
            what=what,
            file=str(path),
            resolved=str(real),
            fix=f'allow it with "permission": {{"external_directory": {{"{pattern}": "allow"}}}}',
        )
        return False
