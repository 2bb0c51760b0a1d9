"""Sinks are told what changed in the node state and make the world match it."""
