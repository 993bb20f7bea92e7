"""Playing Tarneeb: the people-facing programs (terminal and web tables)."""
