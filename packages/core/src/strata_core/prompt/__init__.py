"""The system prompt and the other texts a model reads: provider prompts, the environment block, reminders."""
