"""gpu-npd's node agent: sources -> parsers -> health engine -> sinks."""

__version__ = "0.1.0"
