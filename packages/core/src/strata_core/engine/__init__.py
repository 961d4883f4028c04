"""The engine: one turn of a session, from the user's message through model steps and tool calls to the finish."""
