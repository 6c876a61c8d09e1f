"""LLM agents: the model client, planning, parallel reasoning threads and candidate evolution.

Uses `sandbox` (to verify) and `corpus` (to store trajectories); nothing else in the project.
"""
