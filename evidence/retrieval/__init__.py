"""Retrieval: analyzers, BM25 over index segments in Postgres, dense search, hybrid fusion, the search-id
rankings cache and Pi-Serini's tool contract (piserini.py)."""

from .. import face

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "Hit": "types",
    "SEARCHERS": "searchers",
    "add_documents": "index_store",
    "excerpt_around": "excerpts",
    "get_analyzer": "analyzer",
    "get_searcher": "searchers",
    "minmax_array": "fusion",
}
MODULES = ("cache", "index_store", "piserini")
__getattr__ = face(__name__, FACE, MODULES)
