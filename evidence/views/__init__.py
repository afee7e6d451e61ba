"""Page views, one module per journey."""
