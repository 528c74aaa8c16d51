def transform_and_enrich_users(users):
    """Enrich users.

    Example (Markdown)::

        ```python
        transform_and_enrich_users([])
        ```
    """
    return [dict(user) for user in users]
