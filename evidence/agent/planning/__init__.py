"""The LLM planner (System 2 with a model): its tools loop and its anchored final answer. Above readers/."""

from .llm import MAX_OUTPUT_TOKENS, final_answer, run_llm_planner

__all__ = [
    "MAX_OUTPUT_TOKENS",
    "final_answer",
    "run_llm_planner",
]
