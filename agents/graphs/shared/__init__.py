"""What the translate graph and its subgraphs share: the run's context (`context`, fixed for
the run), the agent's configuration (`config`), the state reducers (`state`) and how a verified
candidate sits in the state (`observations`). Import from the modules: this package imports
nothing, so reading the configuration loads no graph."""
