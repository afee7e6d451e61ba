"""Template filters of the evidence app."""
