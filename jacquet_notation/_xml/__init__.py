"""The parts of :mod:`jacquet_notation.xml`, one concern each: the format's names and escaping
(``format``), the schema and the stylesheet (``schema``), the exporter (``export``), the secure
reader (``reading``). Private: ``jacquet_notation.xml`` is the one public door to them.
"""
