"""A run's configuration, typed and validated once: what every system and reader may be told.

It is stored on the run as the JSON of the fields that differ from their defaults (`as_stored`), and read back
with `RunConfig.of(run)`. The API documents it (RunOut.config) and accepts its options (RunIn.options).
A benchmark may pass configuration here, but no field names a reader: the question's shape chooses the reader.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..retrieval import SEARCHERS

Searcher = Literal[SEARCHERS]  # type: ignore[valid-type]
JUDGES = ("local", "jev", "llm")
LOCALIZE_OPTIONS = ("size", "stride", "tau", "adapt_floor", "threshold")


class LocalizeOptions(BaseModel):
    """How System 1 cuts units into regions when it localizes evidence (judge/localize.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    size: int | None = Field(None, ge=1, le=32, description="sentences per region")
    stride: int | None = Field(None, ge=1, le=32, description="sentences a region moves by")
    tau: float | None = Field(None, ge=0.0, le=1.0, description="region acceptance threshold")
    adapt_floor: float | None = Field(None, ge=0.0, le=1.0, description="adaptive reading floor (null: off)")
    threshold: float | None = Field(None, ge=0.0, le=1.0, description="plain sentence threshold instead of regions")

    def as_kwargs(self) -> dict[str, Any]:
        """The options that were set, as keyword arguments of localize_batch (an explicit null is kept)."""
        return {name: getattr(self, name) for name in self.model_fields_set}


class EarlierTurn(BaseModel):
    """A question asked earlier in the thread a follow-up continues, with the short answer it got."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(..., min_length=1, max_length=2000)
    answer: str = Field("", max_length=500, description="its short answer ('' when none was shown)")


MAX_EARLIER_TURNS = 3


class RunConfig(BaseModel):
    """Everything a run may be configured with beyond its question, system, task and budget."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    searcher: Searcher = Field("hybrid", description="the retrieval behind the search tool")
    scope_docids: list[str] = Field(default_factory=list, description="limit the run to these documents")
    top_k: int | None = Field(None, ge=1, le=100, description="units read per search (system default if unset)")
    answer_spans: int = Field(3, ge=1, le=20, description="spans the extractive answer may cite")
    answer_threshold: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="show the short answer when its P(right) reaches this (default: the calibration's threshold); "
        "0 always shows the best candidate, with its confidence",
    )
    block_kind: Literal["sentence", "paragraph"] = Field("sentence", description="the blocks System 1 reads")
    judge: Literal[JUDGES] | None = Field(None, description="System 1 provider (default: EVIDENCE_JUDGE)")  # type: ignore[valid-type]
    judge_heads: dict[str, str] = Field(default_factory=dict, description="the local judge's heads, by role")
    localize: LocalizeOptions = Field(default_factory=LocalizeOptions)
    planner: Literal["offline", "llm", "replay"] | None = Field(
        None, description="System 2 (default: an LLM when a key is configured, else offline)"
    )
    replay_of: int | None = Field(None, ge=1, description="the recorded run a replay answers from")
    earlier: list[EarlierTurn] = Field(
        default_factory=list,
        max_length=MAX_EARLIER_TURNS,
        description="a follow-up's thread so far, oldest first: the planner reads the question in their light",
    )
    model: str = Field("", max_length=200, description="the LLM planner's model (default: OPENAI_MODEL)")
    base_url: str = Field("", max_length=500, description="the LLM planner's endpoint (default: OPENAI_BASE_URL)")

    @classmethod
    def parse(cls, data: dict[str, Any] | None) -> RunConfig:
        """Validate a requested configuration; ValueError names the field and what is wrong with it."""
        try:
            return cls.model_validate(data or {})
        except ValidationError as error:
            raise ValueError(describe(error)) from error

    @classmethod
    def of(cls, run: Any) -> RunConfig:
        """Read a stored run's configuration; keys an older version stored and this one lacks are ignored."""
        data = cls.known(run.config or {})
        try:
            return cls.parse(data)
        except ValueError:  # stored by an older version with other rules: keep what still validates
            return cls.parse({k: v for k, v in data.items() if _valid(k, v)})

    @classmethod
    def known(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Keep only the run configuration in a wider dict (an evaluation's settings)."""
        return {k: v for k, v in data.items() if k in cls.model_fields}

    def as_stored(self) -> dict[str, Any]:
        """The JSON stored on the run: only the fields that were set."""
        return self.model_dump(mode="json", exclude_unset=True)

    def k(self, default: int) -> int:
        return self.top_k if self.top_k is not None else default


def _valid(name: str, value: Any) -> bool:
    try:
        RunConfig.model_validate({name: value})
    except ValidationError:
        return False
    return True


def describe(error: ValidationError) -> str:
    """One sentence per problem: `config.top_k: Input should be less than or equal to 100`."""
    parts = []
    for problem in error.errors():
        where = ".".join(str(p) for p in problem["loc"])
        parts.append(f"config.{where}: {problem['msg']}" if where else problem["msg"])
    return "; ".join(parts)


class RunOptions(BaseModel):
    """The options a person may set on a run they start (the planner's endpoint and replays are not theirs)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    top_k: int | None = RunConfig.model_fields["top_k"]
    answer_spans: int | None = Field(None, ge=1, le=20, description="spans the extractive answer may cite")
    judge: Literal[JUDGES] | None = RunConfig.model_fields["judge"]  # type: ignore[valid-type]


def user_config(searcher: str, scope: list[str] | None = None, options: RunOptions | None = None) -> RunConfig:
    """The configuration of a run a person starts: the searcher, the documents it is limited to, any options."""
    data: dict[str, Any] = {"searcher": searcher}
    if options is not None:
        data.update(options.model_dump(exclude_none=True))
    if scope:
        data["scope_docids"] = list(scope)
    return RunConfig.parse(data)
