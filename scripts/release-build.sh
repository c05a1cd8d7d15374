# The release build's folder and compiler flags, sourced by every script that builds in release mode
# (package.sh, install.sh, bench-check.sh, load-benchmark.sh). Built with the same flags in the same
# folder, the library's modules are compiled once: the packages, the C ABI installs and the
# benchmarks (a package of their own, rooted in Benchmarks/, whose path dependency resolves to the
# same modules and compile commands) then only compile their own code and link.
#
#   release_options   the folder and the static Swift runtime, also for `swift package`, whose
#                     plugins build in release themselves: -Xswiftc -static-stdlib reaches every
#                     compile and link command, so executables and the dynamic library alike carry
#                     the runtime (SwiftPM's --static-swift-stdlib would add it a second time to the
#                     compile commands, and `swift package` does not take it: its plugins' builds
#                     would then compile every module again); linker flags (-Xlinker) do not reach
#                     the compile commands, so products may add their own
#   release_flags     -c release and release_options
#   library_link_flags  the C ABI library's: its soname and the version script exporting only the ABI
release_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
release_scratch="$release_root/.build-release"
release_static_lib=$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift_static/linux" && pwd)
release_options=(--scratch-path "$release_scratch" -Xswiftc -static-stdlib -Xlinker "-L$release_static_lib")
release_flags=(-c release "${release_options[@]}")
library_link_flags=(-Xlinker -soname=libtokencache.so.1 -Xlinker "--version-script=$release_root/pkgconfig/tokencache.map")
