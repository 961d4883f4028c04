"""Permissions: rules and their evaluation, the ask/reply flow, and the rules a subagent's session inherits."""
