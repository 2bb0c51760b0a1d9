"""gpu-npd fabric-check, its own program: which nodes are tested together, who is to blame (plan), run on Kubernetes."""
