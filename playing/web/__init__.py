"""The web table: play Tarneeb in the browser, replay hand records, take the duplicate challenge (``python -m playing.web``)."""
