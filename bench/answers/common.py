"""Shared helpers of the answer layer's fitting scripts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"


def django_setup() -> None:
    """Set Django up for a script run from the project root (the database of the running app)."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
    import django

    django.setup()
