"""Ingest: parsers per format, chunking with exact offsets, storage of documents, passages, regions and their
vectors, upload jobs and the preparation of a collection for reading."""

from .. import face

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "ACCEPTED_FORMATS": "parsers",
    "ParsedDocument": "types",
    "RETRY_REFUSED": "jobs",
    "Region": "types",
    "char_indices": "parsers.pdf_offsets",
    "file_beat_every_s": "jobs",
    "file_note": "library_import",
    "fill_region_vectors": "store",
    "library_report": "library_import",
    "parse_file": "parsers",
    "prepare_all": "prepare",
    "prepare_some": "prepare",
    "readiness": "prepare",
    "reembed_collection": "reembed",
    "refresh_job": "jobs",
    "stale_collections": "reembed",
    "store_documents": "store",
    "text_sha256": "store",
}
MODULES = ("jobs",)
__getattr__ = face(__name__, FACE, MODULES)
