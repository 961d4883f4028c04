"""Permission rules: what an agent may do, decided by the last matching rule.

Pure logic (rules, config parsing, evaluation, wildcard matching) lives here; the interactive ask/reply
flow that waits for a person is `permission/flow.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal, TypeAlias

from attrs import frozen

from strata_core.errors import StrataError
from strata_core.texts import read_prompt

Action: TypeAlias = Literal["allow", "deny", "ask"]
ACTIONS: tuple[Action, ...] = ("allow", "deny", "ask")


@frozen
class Rule:
    permission: str
    pattern: str
    action: Action


Ruleset: TypeAlias = tuple[Rule, ...]


class PermissionConfigError(StrataError, ValueError):
    """A `permission` config value that is neither an action nor a `{pattern: action}` object."""

    def __init__(self, where: str, below: tuple[str, ...], expected: str, value: Any) -> None:
        super().__init__(f"{'.'.join((where, *below))}: expected {expected}, got {value!r}")
        self.below = below
        """The keys under the permission value that lead to the bad one (`("bash", "git *")`)."""
        self.expected = expected
        self.value = value


def _expand_home(pattern: str, home: Path) -> str:
    if pattern == "~":
        return str(home)
    if pattern.startswith("~/"):
        return f"{home}/{pattern[2:]}"
    if pattern.startswith("$HOME"):
        return f"{home}{pattern[len('$HOME') :]}"
    return pattern


_ACTION_EXPECTED = "one of allow, ask, deny"


def _action(value: Any, where: str, below: tuple[str, ...]) -> Action:
    if value in ACTIONS:
        return value  # type: ignore[no-any-return]
    raise PermissionConfigError(where, below, _ACTION_EXPECTED, value)


def parse_permission(config: Any, where: str = "permission") -> Ruleset:
    """Rules from the config form, patterns as written: an action (for everything) or
    `{key: action | {pattern: action}}`. The one definition of that shape (the config loader uses it too).

    The user's key order is kept: it decides precedence, since the last matching rule wins.
    """
    if config is None:
        return ()
    if isinstance(config, str):
        return (Rule("*", "*", _action(config, where, ())),)
    if not isinstance(config, Mapping):
        raise PermissionConfigError(where, (), f"{_ACTION_EXPECTED}, or an object of them", config)
    rules: list[Rule] = []
    for key, value in config.items():
        if isinstance(value, Mapping):
            rules += [Rule(key, pattern, _action(action, where, (key, pattern))) for pattern, action in value.items()]
        else:
            rules.append(Rule(key, "*", _action(value, where, (key,))))
    return tuple(rules)


def expand_home(rules: Iterable[Rule], home: Path) -> Ruleset:
    """The rules with `~`, `~/...` and `$HOME...` patterns made absolute (a `~` mid-pattern stays)."""
    return tuple(Rule(rule.permission, _expand_home(rule.pattern, home), rule.action) for rule in rules)


def from_config(config: Any, *, home: Path | None = None, where: str = "permission") -> Ruleset:
    """Rules from the config form (see `parse_permission`), home patterns expanded."""
    return expand_home(parse_permission(config, where), home or Path.home())


def merge(*rulesets: Iterable[Rule]) -> Ruleset:
    """Concatenation: rules later in the result win over earlier ones."""
    return tuple(rule for ruleset in rulesets for rule in ruleset)


@lru_cache(maxsize=4096)
def _wildcard_regex(pattern: str) -> re.Pattern[str]:
    pattern = pattern.replace("\\", "/")
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    # "ls *" matches "ls" alone as well as "ls -la", but not "lsof".
    if body.endswith(r"\ .*"):
        body = body[: -len(r"\ .*")] + r"(\ .*)?"
    return re.compile(f"^{body}$", re.DOTALL)


def wildcard_match(value: str, pattern: str) -> bool:
    """OpenCode's wildcard: `*` matches anything (including `/`), `?` one character, a trailing ` *` is optional."""
    return _wildcard_regex(pattern).match(value.replace("\\", "/")) is not None


def evaluate(permission: str, pattern: str, *rulesets: Iterable[Rule]) -> Rule:
    """The last rule matching both the permission and the pattern; `ask` when none does."""
    for rule in reversed(merge(*rulesets)):
        if wildcard_match(permission, rule.permission) and wildcard_match(pattern, rule.pattern):
            return rule
    return Rule(permission, "*", "ask")


_MCP_RESOURCE_TOOLS = ("list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource")


def permission_key(tool: str) -> str:
    """The permission a tool is governed by: edit, write and apply_patch share `edit`; the MCP resource
    tools are `read` (OpenCode's mapping)."""
    if tool in ("edit", "write", "apply_patch"):
        return "edit"
    return "read" if tool in _MCP_RESOURCE_TOOLS else tool


def disabled(tools: Iterable[str], ruleset: Sequence[Rule]) -> set[str]:
    """Tools switched off entirely: their last rule (by permission, any pattern) is `*` -> deny."""
    result: set[str] = set()
    for tool in tools:
        key = permission_key(tool)
        last = next((r for r in reversed(ruleset) if wildcard_match(key, r.permission)), None)
        if last is not None and last.pattern == "*" and last.action == "deny":
            result.add(tool)
    return result


def to_config(ruleset: Iterable[Rule]) -> list[dict[str, str]]:
    """Rules as plain dicts, for storage and `debug` output."""
    return [{"permission": r.permission, "pattern": r.pattern, "action": r.action} for r in ruleset]


def from_stored(items: Iterable[Mapping[str, Any]]) -> Ruleset:
    return tuple(Rule(str(i["permission"]), str(i["pattern"]), _action(i["action"], "stored rule", ())) for i in items)


# ---------------------------------------------------------------------------------------------------------
# Outcomes of asking. Tools let these propagate; the tool runner turns them into error results the model
# sees, and a rejection stops the turn (OpenCode's `blocked`).


class PermissionRefusedError(StrataError):
    """A tool call that may not go ahead: a `deny` rule, a person's no, or nobody there to say yes."""


class DeniedError(PermissionRefusedError):
    """A configured `deny` rule matched; no one was asked."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        relevant = to_config(rules)
        import json

        super().__init__(
            "The user has specified a rule which prevents you from using this specific tool call. "
            f"Here are some of the relevant rules {json.dumps(relevant)}"
        )
        self.rules = tuple(rules)


class RejectedError(PermissionRefusedError):
    """The person said no."""

    def __init__(self) -> None:
        super().__init__("The user rejected permission to use this specific tool call.")


class CorrectedError(PermissionRefusedError):
    """The person said no and told the model what to do instead."""

    def __init__(self, feedback: str) -> None:
        super().__init__(
            f"The user rejected permission to use this specific tool call with the following feedback: {feedback}"
        )
        self.feedback = feedback


NO_RESPONDER = (
    "nobody can answer: this tool context was built without a responder (`ToolContext.ask`). "
    "Allow it in the `permission` config, or run the tool through a runtime, which asks through its permission flow."
)


@cache
def no_approver_reason() -> str:
    """The library's words for an ask that nobody was there to answer (the runtime has no approver)."""
    return read_prompt("permission/no_approver.txt").strip()


class NoResponderError(PermissionRefusedError):
    """An `ask` with nobody to answer: fail fast, never hang, and never treat silence as a yes.

    `reason` says why nobody can answer: the runtime has no approver (the library's words, the default), the
    approver's own words (`NoAnswer`), or a tool context built without a responder at all (`NO_RESPONDER`).
    """

    def __init__(self, permission: str, patterns: Sequence[str], *, reason: str | None = None) -> None:
        reason = no_approver_reason() if reason is None else reason
        shown = ", ".join(patterns) or "*"
        super().__init__(f"Permission '{permission}' for {shown} needs approval, but {reason}")
        self.permission = permission
        self.patterns = tuple(patterns)
