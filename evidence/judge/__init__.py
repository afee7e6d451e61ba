"""System 1, the judge: the local judge's features and calibrated heads (params/), evidence localization,
relevance, mining, the sentence and paper scorers and the pair reading of linked paragraphs; remote providers
(jev, llm) behind the same Judge."""

from .. import face

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "BATCH_UNITS": "localize",
    "Block": "types",
    "CONFIDENCE_HEAD": "paper",
    "EvidenceSpan": "localize",
    "Head": "heads",
    "JevJudge": "jev",
    "Judge": "types",
    "K_MINING": "mining",
    "LLMJudge": "llm_judge",
    "Lead": "mining",
    "LocalJudge": "local",
    "Localization": "localize",
    "MAX_SUB_QUESTIONS": "localize",
    "MAX_UNITS_PER_REQUEST": "localize",
    "PARAMS_DIR": "heads",
    "RANK_FEATURES": "sentences",
    "SHORT_DOCUMENT_OPTIONS": "localize",
    "TYPE_BONUS": "sentences",
    "Unit": "types",
    "assess_relevance": "relevance",
    "body_flags": "sentences",
    "can_start_batch": "mining",
    "localize_batch": "localize",
    "mine_qa": "mining",
    "nearest_captions": "sentences",
    "paragraph_scores": "paper",
    "pick_paragraphs": "paper",
    "question_terms": "sentences",
    "rank_features": "sentences",
    "score_sentences": "sentences",
    "sigmoid": "heads",
    "split_scope": "sentences",
    "summary_flags": "sentences",
    "summary_section": "sentences",
    "zscore": "features",
}
__getattr__ = face(__name__, FACE)
