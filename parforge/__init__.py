"""ParForge wiring: settings, the CLI, the HTTP API and the model-server launcher."""
