"""The long-running side of ParForge: the worker pool that runs queued tasks, and its config."""
