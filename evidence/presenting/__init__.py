"""Presenters: a run's stored answer and citations as page pieces, API payloads and exports (below views/, api/
and mcp_tools, which each call these instead of one another)."""
