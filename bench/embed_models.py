"""Embedding models the benchmarks compare beside the shipped ones: fdq8's graph revision 1 (SkipLayerNormalization,
run with every onnxruntime optimizer on, as it shipped) and the fp32 graph the int8 models are quantized from.
Each is built once per process into a temporary folder."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

from evidence.encode import embedding
from evidence.encode.embedding import FUSED_INT8_ID, MODEL_IDS, Embedder

EXTRA = ("fdq8r1", "fp32")
NAMES = (*MODEL_IDS, *EXTRA)


@cache
def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="embed-models-"))


@cache
def revision_one_file() -> Path:
    """fdq8 as it shipped before graph revision 2."""
    target = _folder() / "fdq8r1.onnx"
    embedding.build_fused_int8(target, skip_layer_norm=True)
    return target


@cache
def fp32_file() -> Path:
    """The fused graph before quantization: the reference the int8 vectors are compared with."""
    import onnx

    from evidence.encode.bert_graph import bert_graph, read_safetensors

    target = _folder() / "fp32.onnx"
    onnx.save(bert_graph(read_safetensors(embedding.fp32_weights_path())), str(target))
    return target


def session_of(path: Path, threads: int, spinning: bool = False):
    """An onnxruntime session with every graph optimizer on (as sessions were built before embedding.UNFUSED)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if not spinning:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def named_embedder(name: str, threads: int | None = None, **options: object) -> Embedder:
    """An Embedder for a shipped model id, "fdq8r1" or "fp32"; its `model_id` is the name."""
    if name not in EXTRA:
        return Embedder(model_id=name, threads=threads, **options)
    path = revision_one_file() if name == "fdq8r1" else fp32_file()
    embedder = Embedder(model_id=FUSED_INT8_ID, threads=threads, onnx_file=path, **options)
    embedder.session = session_of(path, embedder.threads)
    embedder.model_id = name
    return embedder
