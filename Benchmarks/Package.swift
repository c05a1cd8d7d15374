// swift-tools-version: 6.1
import PackageDescription

import struct Foundation.URL

// The benchmarks live in a package of their own, so that linking tokencache never pulls in the
// benchmark harness. The parent package is a path dependency, whose identity is its folder name.
let parent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let tokencache = parent.lastPathComponent

/// The engine and the stores, as both executables use them.
let engineAndStores: [Target.Dependency] = [
    "CacheStore", "CacheStoreMemory", "CacheStoreSQLite", "CacheStoreRedis", "TokenCache", "TokenCacheJSON", "TokenCacheSchema",
    "TokenCacheInterchange",
].map { .product(name: $0, package: tokencache) }

let package = Package(
    name: "tokencache-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "TokenCacheBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CacheStoreSecretService", package: tokencache),
                "RedisWire",
            ] + engineAndStores,
            path: "Benchmarks/TokenCacheBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A minimal blocking RESP client (and cluster routing) for the blob-per-user baselines and
        // the sizing numbers, shared by both executables.
        .target(
            name: "RedisWire",
            dependencies: [.product(name: "CacheStoreRedis", package: tokencache)],
            path: "RedisWire"
        ),
        // The load benchmark of docs/scaling.md ("Load: the web-app shape"): a driver and its worker
        // processes, no benchmark harness (scripts/load-benchmark.sh runs it).
        .executableTarget(
            name: "TokenCacheLoad",
            dependencies: ["RedisWire"] + engineAndStores,
            path: "Load"
        ),
    ],
    swiftLanguageModes: [.v6]
)
