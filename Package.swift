// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "tokencache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CacheStore", targets: ["CacheStore"]),
        .library(name: "TokenCacheSchema", targets: ["TokenCacheSchema"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // The keychain-equivalent item store: items, queries, the protocol, the memory backend.
        .target(name: "CacheStore"),
        // The unified-schema items (credential, account, app metadata, account metadata): their
        // keychain keys and JSON payloads. Knows nothing of storage engines beyond `StoreItem`.
        .target(
            name: "TokenCacheSchema",
            dependencies: [
                "CacheStore",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "TokenCacheSchemaTests", dependencies: ["TokenCacheSchema", "CacheStore"]),
    ],
    swiftLanguageModes: [.v6]
)
