"""The fabric check: which nodes are tested together, who is to blame (plan), run on Kubernetes."""
