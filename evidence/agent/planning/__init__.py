"""System 2: the offline planner, the LLM planner, and which one a run gets."""
