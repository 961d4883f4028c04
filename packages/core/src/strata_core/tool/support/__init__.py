"""What the built-in tools are made of: file text and kinds, search, shell parsing and processes, patches, edits."""
