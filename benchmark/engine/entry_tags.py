"""Tags on result-cache entries: an HMAC by a key only this user can read.

An entry ``ResultCache.put`` stores after checking it carries ``entry_tag`` of its exact
bytes and its cache key; ``ResultCache.get`` reads an entry whose tag matches without
checking it again, and any other entry (bare, another user's, edited, moved to another key)
as untrusted. The key is 32 random bytes in ``cache-key`` of the private per-user folder
(``memo.private_folder``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import stat
from functools import lru_cache
from pathlib import Path

from .memo import owned_privately, private_folder

TAG_BYTES = 32  # an entry's tag: HMAC-SHA256, written as 64 hex digits
_TAGGED = re.compile(rb'\{"tag":"([0-9a-f]{64})","record":(.*)\}', re.DOTALL)


@lru_cache(maxsize=1)
def _tag_key() -> bytes | None:
    """This user's key for entry tags: 32 random bytes in ``cache-key`` of the private folder
    (``memo.private_folder``), made once (written beside and linked into place, so
    two runs starting together read one key), read only from a regular file of ours that no
    one else can read or write. None when there is no such folder or file: entries are then
    written untagged and always checked in full."""
    folder = private_folder()
    if folder is None:
        return None
    path = folder / "cache-key"
    try:
        if not os.path.lexists(path):
            _make_key(folder, path)
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            info = os.fstat(handle)
            key = os.read(handle, TAG_BYTES + 1)
        finally:
            os.close(handle)
    except OSError:
        return None
    usable = stat.S_ISREG(info.st_mode) and owned_privately(info) and len(key) == TAG_BYTES
    return key if usable else None


def _make_key(folder: Path, path: Path) -> None:
    """Write a new key beside ``path`` and link it into place; another run's key made first is
    kept. The temporary file never stays behind, whatever fails (a full disk included)."""
    temporary = folder / f".cache-key-{os.getpid()}-{os.urandom(4).hex()}"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            if os.write(handle, os.urandom(TAG_BYTES)) != TAG_BYTES:
                raise OSError("short write of the cache key")
        finally:
            os.close(handle)
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
    finally:
        os.unlink(temporary)


def entry_tag(key: str, data: bytes) -> str | None:
    """An HMAC-SHA256, by this user's private key, of the cache key and an entry's JSON bytes
    (hex), or None without a key. ``put`` writes it beside the record
    (``{"tag": ..., "record": ...}``); it says "this grader, run by this user, wrote these bytes
    under this key after checking them", so ``get`` need not check them again. Whoever cannot
    read the key cannot make one, and an entry moved to another key or changed in any byte
    does not match."""
    secret = _tag_key()
    if secret is None:
        return None
    return hmac.new(secret, key.encode() + b"\0" + data, hashlib.sha256).hexdigest()


def tagged(key: str, data: bytes) -> bytes | None:
    """``data`` framed with its :func:`entry_tag` as :func:`untagged` reads it back
    (``{"tag": ..., "record": ...}``), or None without a key."""
    tag = entry_tag(key, data)
    return None if tag is None else b'{"tag":"' + tag.encode() + b'","record":' + data + b"}"


def untagged(key: str, raw: bytes) -> tuple[bytes, bool]:
    """(an entry's record as JSON bytes, whether its tag matches). An entry as ``put`` writes
    it with a key is ``{"tag": ..., "record": ...}``, exactly; any other file is a bare record
    (as ``put`` writes it without a key), and a record whose tag does not match is read as
    untrusted like a bare one."""
    tagged = _TAGGED.fullmatch(raw)
    if tagged is None:
        return raw, False
    data = tagged.group(2)
    expected = entry_tag(key, data)
    return data, expected is not None and hmac.compare_digest(expected.encode(), tagged.group(1))
