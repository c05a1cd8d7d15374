// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "tokencache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CacheStore", targets: ["CacheStore"]),
    ],
    targets: [
        // The keychain-equivalent item store: items, queries, the protocol, the memory backend.
        .target(name: "CacheStore"),
    ],
    swiftLanguageModes: [.v6]
)
