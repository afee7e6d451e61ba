"""Pure steps around the embedding model: texts grouped into batches by length (little padding, bounded tokens),
and token vectors pooled into one unit vector per text (mean over the attention mask, then L2)."""

from collections.abc import Sequence

import numpy as np


def length_batches(lengths: Sequence[int], batch_size: int, max_tokens: int) -> list[list[int]]:
    """Group indices sorted by length into batches of at most batch_size rows and max_tokens padded tokens."""
    # Sorting keeps padding small; the token cap keeps long-passage batches cache-sized (on 2 cores,
    # 8 x 256 tokens ran ~40% faster and used a third of the memory of 32 x 256; with the fused graph, 4 x 256
    # ran 5% faster than 8 x 256 on one thread and on two).
    batches: list[list[int]] = []
    current: list[int] = []
    for index in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        # Ascending order: this item's length is the padded width if it joins the batch.
        if current and (len(current) >= batch_size or (len(current) + 1) * lengths[index] > max_tokens):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def mean_pool_normalize(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Average token vectors over the attention mask and scale each row to unit length."""
    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)
    pooled = summed / counts
    norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
    return (pooled / norms).astype(np.float32)
