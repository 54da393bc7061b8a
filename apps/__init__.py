"""minigr.apps: graph primitives, each a problem (per-vertex data), CUDA C
functors and an enactor loop over the operators."""
