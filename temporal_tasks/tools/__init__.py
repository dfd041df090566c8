"""The commands that work on runs and data, each its own module: ``rescore``, ``export``, ``import``
(:mod:`.importer`), ``check-data`` (:mod:`.check`), ``compare``, ``bench``, ``report`` and ``view``; reading runs
and samples files back (:mod:`.runs`, :mod:`.samples`), and their provenance records (:mod:`.provenance`)."""
