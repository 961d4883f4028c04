"""The `strata` subcommands, one module each; heavy imports stay inside the command functions."""
