"""Message builders of the translate agent's model calls (pure)."""
