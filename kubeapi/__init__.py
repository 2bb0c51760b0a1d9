"""Kubernetes plumbing shared by the programs that talk to a cluster: the client, aggregated Events."""
