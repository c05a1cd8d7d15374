// swift-tools-version: 6.1
import PackageDescription

import struct Foundation.URL

// libFuzzer targets, one executable per parser. A package of its own so that the normal build never
// compiles them; build with `bash scripts/fuzz.sh` (it passes `-sanitize=fuzzer,address`).
// The parent package is a path dependency, whose identity is its folder name (which differs
// between checkouts), so it is computed from this file's location.
let parent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let tokencache = parent.lastPathComponent

func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: tokencache) },
        path: "Sources/\(name)"
    )
}

let package = Package(
    name: "tokencache-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .target(name: "FuzzSupport"),
        fuzzTarget("FuzzMSALJSON", ["TokenCacheInterchange", "CacheStore"]),
        fuzzTarget("FuzzMSALV2", ["TokenCacheInterchange", "CacheStore"]),
        fuzzTarget("FuzzADALNetV3", ["TokenCacheInterchange", "CacheStore"]),
        fuzzTarget("FuzzKeyedArchive", ["KeyedArchive", "TokenCacheSchema"]),
        fuzzTarget("FuzzUnifiedItem", ["TokenCacheSchema", "TokenCacheJSON", "CacheStore"]),
        fuzzTarget("FuzzKeychainItems", ["TokenCacheInterchange", "CacheStore"]),
        // The chain after an import: every lookup, listing, dump and export of what was imported.
        fuzzTarget("FuzzImportChain", ["TokenCacheInterchange", "TokenCacheDisplay", "TokenCache", "TokenCacheJSON", "TokenCacheSchema", "KeyedArchive", "CacheStore", "CacheStoreMemory"]),
    ],
    swiftLanguageModes: [.v6]
)
