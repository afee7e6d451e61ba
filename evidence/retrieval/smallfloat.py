"""Lucene's one-byte document-length encoding (SmallFloat.intToByte4 / byte4ToInt).

Lengths below 24 are stored exactly; larger ones keep 4 significant bits (a float with a 3-bit
mantissa and an implicit leading one), rounded down. BM25Similarity scores with the decoded length.
"""

import numpy as np


def _long_to_int4(i: int) -> int:
    """Encode a non-negative integer keeping its 4 most significant bits (order-preserving)."""
    num_bits = i.bit_length()
    if num_bits < 4:
        return i  # subnormal: stored as is
    shift = num_bits - 4
    # drop the implicit leading bit, keep 3 mantissa bits, store shift + 1 above them
    return ((i >> shift) & 0x07) | ((shift + 1) << 3)


def _int4_to_long(i: int) -> int:
    """Decode _long_to_int4."""
    bits = i & 0x07
    shift = (i >> 3) - 1
    return bits if shift == -1 else (bits | 0x08) << shift


# Byte values left over after encoding the whole int range go to exact small lengths.
_NUM_FREE_VALUES = 255 - _long_to_int4(2**31 - 1)


def int_to_byte4(i: int) -> int:
    """Encode a length (0 <= i < 2**31) as an unsigned byte value 0..255."""
    if i < 0:
        raise ValueError(f"length must be non-negative, got {i}")
    if i < _NUM_FREE_VALUES:
        return i
    return _NUM_FREE_VALUES + _long_to_int4(i - _NUM_FREE_VALUES)


def byte4_to_int(b: int) -> int:
    """Decode an unsigned byte value 0..255 to the length it stands for."""
    b &= 0xFF
    if b < _NUM_FREE_VALUES:
        return b
    return _NUM_FREE_VALUES + _int4_to_long(b - _NUM_FREE_VALUES)


LENGTH_TABLE = np.array([byte4_to_int(b) for b in range(256)], dtype=np.int64)


def encode_lengths(lengths: np.ndarray) -> np.ndarray:
    """Encode an array of lengths to their byte values (uint8)."""
    values, inverse = np.unique(np.asarray(lengths, dtype=np.int64), return_inverse=True)
    codes = np.array([int_to_byte4(int(v)) for v in values], dtype=np.uint8)
    return codes[inverse].reshape(np.shape(lengths))
