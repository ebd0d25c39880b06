"""The desk's flows: what happens between a key and the desk's answer (one module per flow)."""
