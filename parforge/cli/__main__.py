"""`python -m parforge.cli`."""

from parforge.cli import main

main()
