"""Permission gate: rules, grants and the shell-command analyser."""
