"""The advisor for other programs and real tables: ``tarneeb-serve`` (a JSON HTTP API) and ``tarneeb-advise``
(a terminal advisor), both answering with :func:`agents.explain.explain` for a position (:mod:`.position`)."""
