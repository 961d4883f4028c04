"""The built-in tools OpenCode exposes, one module each, and `builtin_tools` that builds them from their services."""
