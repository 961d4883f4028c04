"""The API's routes, one module per area of OpenCode's API."""
