"""The environment a shell command gets: the user's, less everything that looks like or is known to be a secret.

Three sources of names are dropped, sandboxed or not (a sandbox hides files, not the variables handed to it):
- names matching `SECRET_PATTERNS` (`*KEY*`, `*TOKEN*`, ... compared case-insensitively), as Codex's shell
  environment policy does by default;
- the API-key variables Strata itself may read (the built-in list and the catalogue's);
- every variable the config names with `{env:NAME}` (a provider key, a header, an MCP server's environment).

`sandbox.env_allow` names (or `*` patterns) bring a variable back, whichever source dropped it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from fnmatch import fnmatchcase

SECRET_PATTERNS = ("*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*CREDENTIAL*")


def _matches(name: str, patterns: Iterable[str]) -> bool:
    upper = name.upper()
    return any(fnmatchcase(upper, pattern.upper()) for pattern in patterns)


def looks_secret(name: str) -> bool:
    """Whether a variable's name says it holds a secret (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, ...)."""
    return _matches(name, SECRET_PATTERNS)


def scrubbed_environment(
    base: Mapping[str, str], *, hidden: Collection[str] = (), allow: Collection[str] = ()
) -> dict[str, str]:
    """`base` without secret-looking names and without `hidden` ones, except those `allow` names or matches."""
    kept: dict[str, str] = {}
    for name, value in base.items():
        dropped = name in hidden or looks_secret(name)
        if not dropped or _matches(name, allow):
            kept[name] = value
    return kept
