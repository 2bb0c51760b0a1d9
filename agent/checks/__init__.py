"""Active checks: node-problem-detector custom plugins run unchanged, and the built-in checks."""
