"""gpu-npd's node agent: sources -> parsers -> health engine -> sinks."""
