"""The encoder: the embedding model (a BERT graph run in numpy over its safetensors weights), its batching and
its vector cache; used by ingest, retrieval, the judge, the answer layer and the agent."""

from .. import face

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "MODEL_ID": "embedding",
    "available_cores": "embedding",
    "get_embedder": "embedding",
}
__getattr__ = face(__name__, FACE)
