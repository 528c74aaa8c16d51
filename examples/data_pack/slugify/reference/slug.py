"""Reference solution: URL slugs from titles."""

import re
import unicodedata

_SEPARATORS = re.compile(r"[^a-z0-9]+")


def slugify(title: str, max_length: int | None = None) -> str:
    """Lower-case ASCII words of ``title`` joined by single hyphens, cut to ``max_length``
    characters without leaving a trailing hyphen."""
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, not {type(title).__name__}")
    if max_length is not None and (not isinstance(max_length, int) or max_length < 1):
        raise ValueError("max_length must be a positive integer")
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = _SEPARATORS.sub("-", ascii_text.lower()).strip("-")
    if max_length is not None:
        slug = slug[:max_length].rstrip("-")
    return slug
