"""Processing stages; each reads the Conversation and adds its own part."""
