"""Kubernetes: node conditions, taints and events written from the health engine's state."""
