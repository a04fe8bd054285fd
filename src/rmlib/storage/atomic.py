"""Files and folders that appear whole or not at all, even with several processes and kills.

Everything rmlib caches (sweep shards, de-quantised weights, trained checkpoints, research data, `--out` files)
is written under a temporary name that no other process uses (it carries the writer's pid and a random
token) and renamed into place. Temporary names are made with the process umask, like any ordinary file
(`tempfile.mkstemp` would make them 0600 and `mkdtemp` 0700, which other users of a shared cache cannot
read); files that a library writes 0600 (safetensors, torch.save) get the same mode through
`ordinary_permissions`. A kill leaves only a temporary name behind; `remove_orphans` deletes those whose writer is gone.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import time
from pathlib import Path

from filelock import FileLock, Timeout

# <anything>.<pid>.<token>.tmp  (files and folders alike)
_TEMP = re.compile(r"\.(?P<pid>\d+)\.[0-9a-f]{8}\.tmp$")
ORPHAN_AGE_S = 24 * 3600  # a temporary name older than this is an orphan even if its pid was reused


def temp_path(target: str | os.PathLike) -> Path:
    """A fresh name next to `target`: hidden, unique to this process and call, recognisable by remove_orphans."""
    target = Path(target)
    return target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def umask() -> int:
    """The process umask, read without changing it where Linux's /proc allows."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def ordinary_permissions(folder: str | os.PathLike) -> None:
    """Give every file directly in `folder` the mode an ordinary new file gets (0666 less the umask, 0644 with the
    usual 022). safetensors and torch.save write 0600, which other users of a shared cache cannot read."""
    mode = 0o666 & ~umask()
    for p in Path(folder).iterdir():
        if p.is_file() and not p.is_symlink():
            os.chmod(p, mode)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` atomically (temporary file, fsync, rename), with the umask's permissions."""
    path = Path(path)
    tmp = temp_path(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def writing_file(path: str | os.PathLike):
    """Yield a temporary path to write (by any means); on success it is renamed to `path`, else deleted."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def building_dir(target: str | os.PathLike):
    """Yield an empty temporary folder to fill; on success it becomes `target` in one rename.

    First rename wins: when another process published `target` meanwhile, ours is discarded and theirs kept
    (callers build the same content under the same name, so either copy serves). Returns via the context
    value's `.won` whether ours was the one published.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(target)
    os.mkdir(tmp, 0o777)
    result = _Built(tmp)
    try:
        yield result
        try:
            os.rename(tmp, target)
            result.won = True
        except OSError as exc:
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


class _Built:
    def __init__(self, path: Path):
        self.path = path
        self.won = False


@contextlib.contextmanager
def file_lock(path: str | os.PathLike, wait: bool = True):
    """An advisory lock on `path` (filelock's flock lock; the file is created if needed and stays in place, so every
    waiter locks the same inode); blocks until it is granted, and yields True. With ``wait=False`` it yields False
    at once, holding nothing, when another process holds the lock (a caller that has other work to do meanwhile,
    e.g. the chapter tests' shared runs, comes back to it later).

    Used so that two processes do not both spend a minute building the same de-quantised model, and so that a
    `--no-cache` replacement and a new sweep of the same key do not interleave. Correctness never depends on it
    (writes are atomic and first-rename-wins); on a file system without flock it only costs duplicate work: the lock
    is then skipped, never replaced by filelock's soft lock (a marker file that a killed holder would leave behind,
    blocking every later waiter).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path, fallback_to_soft=False)
    try:
        lock.acquire(blocking=wait)
    except Timeout:
        yield False
        return
    except (NotImplementedError, OSError):  # no flock here (some network file systems): carry on unlocked
        yield True
        return
    try:
        yield True
    finally:
        lock.release()


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs. A pid <= 0 names no one process (os.kill would signal a group, or every
    process), and one too large for the system (os.kill's OverflowError) cannot run: neither is running (#62)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True
    return True


def is_orphan(path: Path) -> bool:
    """A temporary name (see temp_path) whose writing process is gone, or that is older than a day."""
    m = _TEMP.search(path.name)
    if not m:
        return False
    try:
        age = time.time() - path.lstat().st_mtime
    except FileNotFoundError:
        return False
    return not _pid_alive(int(m["pid"])) or age > ORPHAN_AGE_S


def remove_orphans(folder: str | os.PathLike) -> list[Path]:
    """Delete the orphaned temporary files and folders directly inside `folder`; returns what was removed."""
    folder = Path(folder)
    removed = []
    try:
        entries = list(folder.iterdir())
    except FileNotFoundError:
        return removed
    for p in entries:
        if p.name.startswith(".") and is_orphan(p):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
            removed.append(p)
    return removed


def quarantine(path: str | os.PathLike, into: str | os.PathLike | None = None) -> Path:
    """Move a corrupt file or folder aside (never deleted silently: it may help to find the cause), next to it or
    into the folder `into` (on the same file system)."""
    path = Path(path)
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"
    dest = (Path(into) if into is not None else path.parent) / f"{path.name}.corrupt-{stamp}"
    os.replace(path, dest)
    return dest
