"""ParForge as a service in containers: `parforge deploy build` makes the images (the service,
PostgreSQL, the model server; from the sandbox image's base, offline where no registry answers)
and `parforge deploy compose DIR` writes the compose project that runs them (docs/serving.md).
"""
