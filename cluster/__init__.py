"""gpu-npd's cluster component: job incidents across nodes, from what the node agents publish (`gpu-npd cluster`)."""
