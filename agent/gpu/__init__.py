"""GPU telemetry: one narrow NVML interface (real over pynvml, fake for tests) and the collector."""
