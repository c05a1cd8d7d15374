/// The release version of tokencache: the one place it is written.
///
/// The CLI's `--version`, the C ABI's `tokencache_version()`, and every package `scripts/package.sh`
/// builds (the wheel, whose metadata `tokencache.__version__` reads, the Debian packages, the
/// tarball, the pkg-config file) take it from here; `scripts/package.sh` reads the literal below.
public let tokencacheVersion: StaticString = "0.1.0"
