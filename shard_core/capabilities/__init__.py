"""L3 capabilities: optional features (skills, code index, MCP, subagents) that install through
the ExtensionHost exactly as a third-party extension would. They implement L1 contracts and
register via ExtensionApi; the engine never imports them (import-linter checks both ways)."""
