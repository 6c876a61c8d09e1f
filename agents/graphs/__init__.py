"""LangGraph graphs of the agents: `translate` (plan, run tools in parallel, join, repair)."""
