"""The encoder: the embedding model (a BERT graph run in numpy over its safetensors weights), its batching and
its vector cache; used by ingest, retrieval, the judge, the answer layer and the agent."""
