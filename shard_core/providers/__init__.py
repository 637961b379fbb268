"""L2 providers: Anthropic, OpenAI-compatible and scripted, behind the Provider contract."""
