"""Tasks, benchmark suites, the trajectory store and fine-tuning export.

Depends on nothing else in the project.
"""
