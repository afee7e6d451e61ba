"""Evidence desk: the research app."""
