"""The systems a run can use (dual, the baselines), registered by name."""
