"""System 1's readers and what they read: units, judges, fan-out across workers."""
