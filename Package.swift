// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "tokencache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CacheStore", targets: ["CacheStore"]),
        .library(name: "CacheStoreSQLite", targets: ["CacheStoreSQLite"]),
        .library(name: "CacheStoreLocation", targets: ["CacheStoreLocation"]),
        .executable(name: "tokencache", targets: ["tokencache"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The keychain-equivalent item store: items, queries, the protocol, the memory backend.
        .target(name: "CacheStore"),

        // System libraries, each behind a module map and pkg-config.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        // Backends: each knows the store contract and its engine, nothing of tokens.
        .target(name: "CacheStoreSQLite", dependencies: ["CacheStore", "CSQLite"]),

        // Parses store specifications (`sqlite:PATH`, `memory`) and opens the backend they name.
        .target(name: "CacheStoreLocation", dependencies: ["CacheStore", "CacheStoreSQLite"]),

        .executableTarget(
            name: "tokencache",
            dependencies: [
                "CacheStore",
                "CacheStoreLocation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // A small program the tests start as real separate processes against one store.
        .executableTarget(
            name: "store-worker",
            dependencies: ["CacheStore", "CacheStoreSQLite"],
            path: "Tests/store-worker"
        ),

        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "CacheStoreTests", dependencies: ["CacheStore"]),
        // The store contract, run against every backend.
        .testTarget(name: "CacheStoreConformanceTests", dependencies: ["CacheStore", "CacheStoreSQLite"]),
        .testTarget(
            name: "CacheStoreSQLiteTests",
            dependencies: ["CacheStore", "CacheStoreSQLite", "CSQLite", "TestSupport", "store-worker"]
        ),
        .testTarget(name: "CacheStoreLocationTests", dependencies: ["CacheStoreLocation"]),
        .testTarget(name: "tokencacheTests", dependencies: ["TestSupport", "tokencache"]),
    ],
    swiftLanguageModes: [.v6]
)
