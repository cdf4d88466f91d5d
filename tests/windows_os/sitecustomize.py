"""Windows, as far as Python's ``os`` goes, on Linux: imported first by a
Python run with this folder on PYTHONPATH (tests/test_portable_runner.py).

The open flags POSIX has and Windows lacks are gone, ``dir_fd=`` is refused
(NotImplementedError, as there) and folders cannot be listed by descriptor.
What this cannot show (paths, processes, a real Windows file system) the
portable runner's own tests and a Windows machine do."""
import functools
import os

for _flag in ("O_DIRECTORY", "O_NOFOLLOW", "O_CLOEXEC", "O_NONBLOCK", "O_NOCTTY", "O_PATH"):
    if hasattr(os, _flag):
        delattr(os, _flag)


def _no_dir_fd(call):
    @functools.wraps(call)
    def refusing(*args, **kwargs):
        if any(kwargs.get(key) is not None for key in ("dir_fd", "src_dir_fd", "dst_dir_fd")):
            raise NotImplementedError(f"{call.__name__}: dir_fd unavailable on this platform")
        return call(*args, **kwargs)
    return refusing


for _name in ("open", "stat", "lstat", "unlink", "remove", "rename", "replace", "mkdir", "rmdir", "chmod",
              "utime", "link", "symlink", "readlink", "access"):
    setattr(os, _name, _no_dir_fd(getattr(os, _name)))
os.supports_dir_fd = set()
os.supports_fd = {f for f in os.supports_fd if getattr(f, "__name__", "") not in ("scandir", "listdir", "stat")}
_listdir, _scandir = os.listdir, os.scandir


def _by_path_only(call):
    @functools.wraps(call)
    def refusing(path="."):
        if isinstance(path, int):
            raise NotImplementedError(f"{call.__name__}: a descriptor is unavailable on this platform")
        return call(path)
    return refusing


os.listdir, os.scandir = _by_path_only(_listdir), _by_path_only(_scandir)
