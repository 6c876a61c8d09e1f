"""`python -m parforge`: the command line, as the `parforge` script runs it."""

from parforge.cli import main

main()
