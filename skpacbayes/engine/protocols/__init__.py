"""The engine's protocols: how the rows of a fit are read to build the statements it certifies."""
