"""The research loop: a run's context, budget, progress, recorder and trajectory."""
