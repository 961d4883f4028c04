"""The permission rules a subagent's session starts with, derived from its parent (reference §11.7).

Pure logic, so the session code that creates the child and the tests share one definition:

1. the parent agent's `edit` rules for patterns it denies and the subagent does not (plan mode's "no edits"
   follows its helpers, but two agents that each deny `*` do not cancel each other's own allowances);
2. the parent session's `external_directory` rules and every `deny` (the parent session is a ceiling);
3. `todowrite` and `task` denied, unless the subagent has rules of its own for them;
4. every configured primary-only tool denied.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from strata_core.permission.rules import Rule, Ruleset


def _denied_edit_patterns(rules: Iterable[Rule]) -> set[str]:
    return {rule.pattern for rule in rules if rule.permission == "edit" and rule.action == "deny"}


def inherited_edit_rules(parent_agent_rules: Sequence[Rule], subagent_rules: Sequence[Rule]) -> list[Rule]:
    only_parent = _denied_edit_patterns(parent_agent_rules) - _denied_edit_patterns(subagent_rules)
    return [rule for rule in parent_agent_rules if rule.permission == "edit" and rule.pattern in only_parent]


def child_session_rules(
    parent_agent_rules: Sequence[Rule],
    parent_session_rules: Sequence[Rule],
    subagent_rules: Sequence[Rule],
    primary_tools: Sequence[str] = (),
) -> Ruleset:
    rules = inherited_edit_rules(parent_agent_rules, subagent_rules)
    rules += [r for r in parent_session_rules if r.permission == "external_directory" or r.action == "deny"]
    own = {rule.permission for rule in subagent_rules}
    defaults = [Rule(name, "*", "deny") for name in ("todowrite", "task") if name not in own]
    defaults += [Rule(tool, "*", "deny") for tool in primary_tools]
    # A default already present (inherited from the parent session) is not repeated.
    rules += [rule for rule in defaults if rule not in rules]
    return tuple(rules)
