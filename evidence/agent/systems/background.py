"""Evidence mining in the background (JevGPT 3.3): a search starts a mining task and the loop goes on.

Inside a worker, each mining batch is a Celery task on the judge queue. The loop harvests the batches
that have finished at the start of each round (their leads enter the research history then) and waits
for the rest only before it answers. A batch no other worker has started within the fan-out's grace
period is mined in place, so a single busy worker cannot stall a run. Outside a worker (a command, a
test) mining runs inline and its result is ready at once.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from celery import current_task
from django.conf import settings

from ...judge import Judge, Lead, Localization, Unit, mine_qa
from ..core import JudgeSpec, UnitRef, load_units_by_ref, unit_ref
from ..readers import GRACE_S, from_json, remote, to_json


@dataclass
class MiningBatch:
    """One mining request: a Celery result, or leads already mined."""

    inline: Any  # () -> list[Lead], used when no worker takes the task
    result: Any = None
    leads: list[Lead] | None = None
    submitted: float = field(default_factory=time.monotonic)

    def ready(self) -> bool:
        """Tell whether the leads can be taken now without waiting."""
        return self.leads is not None or bool(self.result.ready())

    def take(self, deadline: float) -> tuple[list[Lead], str]:
        """Return (leads, where they came from: "here", "worker", "in place" or "dropped"), waiting until the deadline.

        A batch still unfinished at the deadline is dropped: its leads would arrive after the submit steer.
        """
        if self.leads is not None:
            return self.leads, "here"
        while True:
            if self.result.ready():
                if self.result.successful():
                    return leads_from_json(self.result.get(disable_sync_subtasks=False)), "worker"
                return self.inline(), "in place"
            if time.monotonic() > deadline:
                self.result.revoke()
                return [], "dropped"
            if self.result.state == "PENDING" and time.monotonic() - self.submitted > GRACE_S:
                self.result.revoke()
                return self.inline(), "in place"
            time.sleep(0.02)


def start_mining(
    judge: Judge,
    judge_spec: JudgeSpec,
    collection_id: int,
    question: str,
    units: Sequence[Unit],
    clues: Sequence[str],
) -> MiningBatch:
    """Start mining the units for the question's clues: a task when inside a worker, else inline now."""
    units, clues = list(units), list(clues)

    def inline() -> list[Lead]:
        return mine_qa(judge, question, units, clues=clues)

    mine_leads = remote("mine_leads")
    if not (settings.EVIDENCE_JUDGE_FANOUT and current_task and mine_leads and units):
        return MiningBatch(inline, leads=inline())
    refs = [unit_ref(unit) for unit in units]
    result = mine_leads.apply_async(
        (judge_spec.as_json(), collection_id, question, refs, clues), queue=settings.EVIDENCE_JUDGE_QUEUE
    )
    return MiningBatch(inline, result=result)


def mine_locally(
    judge: Judge, block_kind: str, collection_id: int, question: str, refs: Sequence[UnitRef], clues: Sequence[str]
) -> list[list[Any]]:
    """Mine one batch in a worker: reload its units and return the leads as JSON rows (no database writes)."""
    units = load_units_by_ref(collection_id, [tuple(ref) for ref in refs], block_kind)  # type: ignore[misc]
    return leads_to_json(mine_qa(judge, question, units, clues=list(clues)))


def leads_to_json(leads: Sequence[Lead]) -> list[list[Any]]:
    return [[lead.docid, lead.priority, list(lead.clues), to_json_spans(lead)] for lead in leads]


def to_json_spans(lead: Lead) -> dict[str, Any]:
    return to_json(Localization(spans=list(lead.spans)))


def leads_from_json(rows: Sequence[Sequence[Any]]) -> list[Lead]:
    return [Lead(str(d), float(p), tuple(clues), tuple(from_json(spans).spans)) for d, p, clues, spans in rows]
