"""System 2, injected into a run: the deterministic offline planner, or a recorded model client.

The runs service's loop builds one with `planner_for(run, config)` and hands it to the system; the systems
never look at keys or settings to decide which planner they have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from ...run_state import RunConfig
from ..llm import LLMClient


@dataclass(frozen=True)
class OfflinePlanner:
    """The rule-based planner (text/question_plan.py): query variants, sub-questions, refinement from delivered
    quotes."""

    name: str = "offline"


@dataclass(frozen=True)
class ModelPlanner:
    """An LLM as System 2: every call goes through the recorded, spending-capped client."""

    client: LLMClient
    model: str
    name: str = "llm"


Planner = OfflinePlanner | ModelPlanner


def planner_name(config: RunConfig) -> str:
    """Return 'llm', 'replay' or 'offline': the run's choice, else an LLM when a key is configured."""
    if config.planner:
        return config.planner
    return "llm" if settings.OPENAI_API_KEY else "offline"


def planner_for(run: Any, config: RunConfig) -> Planner:
    """Build the run's planner: offline, a live OpenAI-compatible client, or a replay of a recorded run."""
    name = planner_name(config)
    if name == "offline":
        return OfflinePlanner()
    from ..llm import DjangoRecorder, SpendingCap, make_client

    cap = SpendingCap(run.spend_cap_usd)
    recorder = DjangoRecorder(run_id=run.pk)
    model = config.model or settings.OPENAI_MODEL
    if name == "replay":
        if not config.replay_of:
            raise ValueError("a replay run needs config['replay_of'], the id of the recorded run")
        source = DjangoRecorder(source_run_id=int(config.replay_of))
        return ModelPlanner(make_client("replay", source=source, recorder=recorder, cap=cap), model, "replay")
    client = make_client(
        "openai",
        recorder=recorder,
        cap=cap,
        base_url=config.base_url or settings.OPENAI_BASE_URL,
        api_key=settings.OPENAI_API_KEY or None,
    )
    return ModelPlanner(client, model)
