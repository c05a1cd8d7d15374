"""The build backend of the tokencache Python package (PEP 517), and the wheel writer that
`scripts/package.sh` uses for the wheel carrying libtokencache and the CLI.

The version is not written here or in pyproject.toml: it is read from the one place the Swift
sources keep it (`Sources/TokenCacheVersion/Version.swift`), so the package, the library and the
CLI cannot disagree. Every other piece of metadata comes from pyproject.toml's `[project]` table.

Used as a backend (`pip install ./bindings/python`), it writes a pure-Python wheel: the package
finds libtokencache where the system loader looks or at `TOKENCACHE_LIBRARY`. Run as a program, it
writes the platform wheel with the native files inside:

    python tokencache_wheel.py --library libtokencache.so.1 --cli tokencache --out DIR
"""

import argparse
import base64
import hashlib
import io
import os
import re
import stat
import sys
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11 (pyproject.toml's build requirements bring tomli)
    import tomli as tomllib

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERSION_SOURCE = os.path.join("Sources", "TokenCacheVersion", "Version.swift")
VERSION_PATTERN = re.compile(r'^public let tokencacheVersion: StaticString = "([^"]+)"$', re.M)
PACKAGE_FILES = (".py", ".pyi", "py.typed")
# A fixed time for every member, so one checkout gives byte-identical wheels.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


class BuildError(Exception):
    pass


def release_version(project=PROJECT):
    """The release version from the Swift sources of the checkout holding `project`; in an
    unpacked sdist (no checkout around it), the version the sdist was stamped with."""
    path = os.path.normpath(os.path.join(project, "..", "..", VERSION_SOURCE))
    pkg_info = os.path.join(project, "PKG-INFO")
    if not os.path.exists(path) and os.path.exists(pkg_info):
        with open(pkg_info, encoding="utf-8") as source:
            for line in source:
                if line.startswith("Version: "):
                    return line[len("Version: "):].strip()
    try:
        with open(path, encoding="utf-8") as source:
            match = VERSION_PATTERN.search(source.read())
    except OSError as error:
        raise BuildError("cannot read the release version from %s: %s" % (path, error.strerror)) from None
    if not match:
        raise BuildError("%s: no line `public let tokencacheVersion: StaticString = \"...\"`" % path)
    return match.group(1)


def project_table(project=PROJECT):
    path = os.path.join(project, "pyproject.toml")
    with open(path, "rb") as source:
        table = tomllib.load(source).get("project")
    if not table or "version" in table or "version" not in table.get("dynamic", []):
        raise BuildError("%s: [project] must list version as dynamic (it comes from %s)" % (path, VERSION_SOURCE))
    return table


def metadata(project=PROJECT, version=None):
    """The distribution's core metadata (METADATA / PKG-INFO), version 2.1."""
    table = project_table(project)
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + table["name"],
        "Version: " + (version or release_version(project)),
        "Summary: " + table.get("description", ""),
    ]
    if "license" in table and "text" in table["license"]:
        lines.append("License: " + table["license"]["text"])
    if "requires-python" in table:
        lines.append("Requires-Python: " + table["requires-python"])
    for requirement in table.get("dependencies", []):
        lines.append("Requires-Dist: " + requirement)
    for extra, requirements in table.get("optional-dependencies", {}).items():
        lines.append("Provides-Extra: " + extra)
        for requirement in requirements:
            marker = 'extra == "%s"' % extra
            joiner = " and " if ";" in requirement else "; "
            lines.append("Requires-Dist: " + requirement + joiner + marker)
    body = ""
    readme = table.get("readme")
    if isinstance(readme, str):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(project, readme), encoding="utf-8") as source:
            body = source.read()
    return "\n".join(lines) + "\n\n" + body


class WheelWriter:
    """A wheel file: members added with their hashes, RECORD written last."""

    def __init__(self, path, name, version, compression=zipfile.ZIP_DEFLATED):
        self.dist_info = "%s-%s.dist-info" % (name, version)
        self.data = "%s-%s.data" % (name, version)
        self.records = []
        self.compression = compression
        self.archive = zipfile.ZipFile(path, "w", compression=compression)

    def add(self, name, content, executable=False):
        info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
        info.compress_type = self.compression
        mode = 0o755 if executable else 0o644
        info.external_attr = (stat.S_IFREG | mode) << 16
        self.archive.writestr(info, content)
        digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        self.records.append("%s,sha256=%s,%d" % (name, digest, len(content)))

    def close(self):
        record = self.dist_info + "/RECORD"
        self.records.append(record + ",,")
        info = zipfile.ZipInfo(record, date_time=ZIP_TIME)
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        self.archive.writestr(info, "\n".join(self.records) + "\n")
        self.archive.close()


def write_wheel(directory, project=PROJECT, library=None, cli=None, tag="py3-none-any"):
    """Writes the wheel into `directory` and returns its file name. With `library` (a path to
    libtokencache.so.1) and `cli` (the tokencache executable), they go inside the package and into
    the scripts pip installs into the environment's bin/."""
    table = project_table(project)
    name = table["name"].replace("-", "_")
    version = release_version(project)
    filename = "%s-%s-%s.whl" % (name, version, tag)
    package = os.path.join(project, "src", "tokencache")
    # With native files the wheel is auditwheel's input, which writes the compressed one: store.
    compression = zipfile.ZIP_STORED if library or cli else zipfile.ZIP_DEFLATED
    writer = WheelWriter(os.path.join(directory, filename), name, version, compression)
    try:
        for root, folders, files in os.walk(package):
            folders[:] = sorted(folder for folder in folders if folder != "__pycache__")
            for file in sorted(files):
                if file.endswith(PACKAGE_FILES):
                    path = os.path.join(root, file)
                    member = os.path.relpath(path, os.path.join(project, "src")).replace(os.sep, "/")
                    with open(path, "rb") as source:
                        writer.add(member, source.read())
        if library:
            with open(library, "rb") as source:
                writer.add("tokencache/libtokencache.so.1", source.read(), executable=True)
        if cli:
            with open(cli, "rb") as source:
                writer.add(writer.data + "/scripts/tokencache", source.read(), executable=True)
        writer.add(writer.dist_info + "/METADATA", metadata(project, version).encode())
        wheel = "Wheel-Version: 1.0\nGenerator: tokencache_wheel\nRoot-Is-Purelib: %s\nTag: %s\n" % (
            "false" if library or cli else "true", tag)
        writer.add(writer.dist_info + "/WHEEL", wheel.encode())
    finally:
        writer.close()
    return filename


def write_sdist(directory, project=PROJECT):
    """Writes the source distribution: the package, the backend and PKG-INFO with the version."""
    import tarfile
    table = project_table(project)
    version = release_version(project)
    base = "%s-%s" % (table["name"].replace("-", "_"), version)
    filename = base + ".tar.gz"
    members = ["pyproject.toml", table.get("readme", "README.md"), "build_backend/tokencache_wheel.py"]
    for root, folders, files in os.walk(os.path.join(project, "src")):
        folders[:] = sorted(folder for folder in folders if folder != "__pycache__" and not folder.endswith(".egg-info"))
        members += [os.path.relpath(os.path.join(root, file), project) for file in sorted(files) if file.endswith(PACKAGE_FILES)]

    def add(archive, name, content):
        info = tarfile.TarInfo("%s/%s" % (base, name.replace(os.sep, "/")))
        info.size, info.mode, info.mtime = len(content), 0o644, 1577836800
        archive.addfile(info, io.BytesIO(content))

    with tarfile.open(os.path.join(directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for member in members:
            with open(os.path.join(project, member), "rb") as source:
                add(archive, member, source.read())
        add(archive, "PKG-INFO", metadata(project, version).encode())
    return filename


# PEP 517 hooks.

def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    return write_sdist(sdist_directory)


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return write_wheel(wheel_directory)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Writes the tokencache wheel with its native files.")
    parser.add_argument("--library", required=True, help="libtokencache.so.1 to bundle")
    parser.add_argument("--cli", required=True, help="the tokencache executable to install as a script")
    parser.add_argument("--tag", default="py3-none-linux_x86_64", help="the wheel's tag before auditwheel repair")
    parser.add_argument("--out", required=True, help="the directory the wheel is written to")
    arguments = parser.parse_args(argv)
    print(write_wheel(arguments.out, library=arguments.library, cli=arguments.cli, tag=arguments.tag))


if __name__ == "__main__":
    try:
        if sys.argv[1:] == ["--print-version"]:
            print(release_version())
        else:
            main()
    except BuildError as error:
        sys.exit("tokencache_wheel: %s" % error)
