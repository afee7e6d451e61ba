"""System 1's readers over what a run found: whole papers, sections, linked pairs, localization fanned out across
workers, and the choice among them. Above core/, below planning/ and systems/."""

from .executor import register, remote
from .fanout import GRACE_S, from_json, judge_batch_locally, to_json
from .localization import request_evidence
from .registry import choose_shape, evidence_in_documents

__all__ = [
    "GRACE_S",
    "choose_shape",
    "evidence_in_documents",
    "from_json",
    "judge_batch_locally",
    "register",
    "remote",
    "request_evidence",
    "to_json",
]
