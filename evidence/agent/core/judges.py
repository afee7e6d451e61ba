"""System 1 providers by configuration: `local` (offline), `jev` (TypeSafe's System One API) or `llm` (any
OpenAI-compatible chat endpoint asked for JSON judgments).

The run's configuration (or EVIDENCE_JUDGE) names the provider; endpoints and keys come from the settings,
so a judge spec stays plain JSON that a worker can rebuild the same judge from without carrying a secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from ...judge import Judge
from ...run_state import JUDGES, RunConfig


class JudgeUnavailable(ValueError):
    """The configured provider cannot be built here (no endpoint or key): the sentence says which setting."""


@dataclass(frozen=True)
class JudgeSpec:
    """How to build a run's System 1 judge: its provider, the local judge's head overrides and how units are cut
    into regions. It travels to the workers as JSON (`as_json`) and is read back by `from_json`, the one adapter
    for messages of any age; it never carries a secret (endpoints and keys come from each machine's settings)."""

    name: str = "local"
    heads: Mapping[str, str] = field(default_factory=dict)
    block_kind: str = "sentence"

    @classmethod
    def of(cls, config: RunConfig) -> JudgeSpec:
        return cls(config.judge or default_provider(), dict(config.judge_heads), config.block_kind)

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "heads": dict(self.heads), "block_kind": self.block_kind}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | JudgeSpec) -> JudgeSpec:
        if isinstance(data, JudgeSpec):
            return data
        heads = data.get("heads") or {}
        return cls(
            str(data.get("name") or "local"),
            {str(k): str(v) for k, v in heads.items()} if isinstance(heads, Mapping) else {},
            str(data.get("block_kind") or "sentence"),
        )


def default_provider() -> str:
    name = str(settings.EVIDENCE_JUDGE or "local")
    if name not in JUDGES:
        raise JudgeUnavailable(f"EVIDENCE_JUDGE={name!r} is not a System 1 provider: use one of {', '.join(JUDGES)}.")
    return name


def make_judge(spec: JudgeSpec) -> Judge:
    """Build the provider a judge spec names."""
    name = spec.name
    if name == "local":
        from ...judge import LocalJudge

        return LocalJudge(heads=dict(spec.heads) or None)
    if name == "jev":
        from ...judge import JevJudge

        url = settings.EVIDENCE_JEV_URL
        if not url:
            raise JudgeUnavailable("The jev judge needs EVIDENCE_JEV_URL (and EVIDENCE_JEV_KEY) in the settings.")
        return JevJudge(url, settings.EVIDENCE_JEV_KEY or None, model=settings.EVIDENCE_JEV_MODEL)
    if name == "llm":
        from ...judge import LLMJudge

        url = settings.EVIDENCE_JUDGE_LLM_URL or settings.OPENAI_BASE_URL
        key = settings.EVIDENCE_JUDGE_LLM_KEY or settings.OPENAI_API_KEY
        if not key:
            raise JudgeUnavailable(
                "The llm judge needs EVIDENCE_JUDGE_LLM_KEY (or OPENAI_API_KEY) and an endpoint in the settings."
            )
        return LLMJudge(url, key, model=settings.EVIDENCE_JUDGE_LLM_MODEL or settings.OPENAI_MODEL)
    raise JudgeUnavailable(f"Unknown System 1 provider {name!r}: use one of {', '.join(JUDGES)}.")
