// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "tokencache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CacheStore", targets: ["CacheStore"]),
        .library(name: "CacheStoreMemory", targets: ["CacheStoreMemory"]),
        .library(name: "CacheStoreSQLite", targets: ["CacheStoreSQLite"]),
        .library(name: "CacheStoreLocation", targets: ["CacheStoreLocation"]),
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        .library(name: "CacheStoreEncryption", targets: ["CacheStoreEncryption"]),
        .library(name: "CacheStoreSecretService", targets: ["CacheStoreSecretService"]),
        .library(name: "CacheStoreRedis", targets: ["CacheStoreRedis"]),
        .library(name: "TokenCacheJSON", targets: ["TokenCacheJSON"]),
        .library(name: "TokenCacheSchema", targets: ["TokenCacheSchema"]),
        .library(name: "TokenCache", targets: ["TokenCache"]),
        .library(name: "TokenCacheDisplay", targets: ["TokenCacheDisplay"]),
        .library(name: "TokenCacheInterchange", targets: ["TokenCacheInterchange"]),
        .executable(name: "tokencache", targets: ["tokencache"]),
        // The C ABI (include/tokencache.h): libtokencache.so, installed by scripts/install.sh.
        .library(name: "tokencache-c", type: .dynamic, targets: ["TokenCacheC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // The keychain-equivalent item store: items, queries, the protocol every backend keeps.
        .target(name: "CacheStore"),
        // The release version, written once for the CLI, the C ABI and the packages.
        .target(name: "TokenCacheVersion"),
        // Files with mode 0600 and directories with 0700 from their creation: the store's, the key file, exports.
        .target(name: "PrivateFiles"),
        // The in-process backend: the contract's reference implementation, for tests and ephemeral caches.
        .target(name: "CacheStoreMemory", dependencies: ["CacheStore"]),

        // SQLite, linked at build time behind a module map and pkg-config.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libsecret-1, loaded at run time with dlopen (a machine without it still runs everything
        // but the Secret Service); its declarations are the shim's own, so building needs no
        // libsecret or GLib headers.
        .target(name: "CLibsecret", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // hiredis 0.14, loaded at run time with dlopen like libsecret (building needs libhiredis-dev's
        // headers, running the Redis backend needs libhiredis0.14).
        .target(name: "CHiredis", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),

        // Sealing payloads at rest (AES-GCM envelopes) and the data keys' sources; no storage engine.
        .target(
            name: "CacheStoreEncryption",
            dependencies: ["CacheStore", "PrivateFiles", .product(name: "Crypto", package: "swift-crypto")]
        ),

        // Backends: each knows the store contract and its engine, nothing of tokens.
        .target(name: "CacheStoreSQLite", dependencies: ["CacheStore", "CSQLite", "CacheStoreEncryption", "PrivateFiles"]),
        // Items kept in the Secret Service (gnome-keyring, KWallet, KeePassXC), one keyring item per
        // (access group, account) partition; also the Secret Service source of SQLite data keys.
        .target(
            name: "CacheStoreSecretService",
            dependencies: [
                "CacheStore", "CacheStoreEncryption", "CLibsecret",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // Items in Redis 7 or a Redis Cluster, one hash per (access group, account) partition, via hiredis.
        .target(
            name: "CacheStoreRedis",
            dependencies: [
                "CacheStore", "CacheStoreEncryption", "CHiredis", "TokenCacheJSON", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // The one door to the backends: parses store specifications (StoreSpecification.forms),
        // opens the backend they name and diagnoses it.
        .target(
            name: "CacheStoreLocation",
            dependencies: [
                "CacheStore", "CacheStoreMemory", "CacheStoreSQLite", "CacheStoreEncryption", "CacheStoreSecretService",
                "CacheStoreRedis", "PrivateFiles",
            ]
        ),

        // NSKeyedArchiver archives and binary property lists, read and written without Foundation's
        // class registry: safe for untrusted input, and able to write ADAL's class names.
        .target(name: "KeyedArchive"),

        // JSON values, parsed exactly (numbers kept as written, member order and unknown members
        // kept, bounded depth and size) and serialized compactly; the payloads' and files' format.
        .target(name: "TokenCacheJSON"),

        // The unified-schema items (credential, account, app metadata, account metadata): their
        // keychain keys and JSON payloads. Knows nothing of storage engines beyond `StoreItem`.
        .target(
            name: "TokenCacheSchema",
            dependencies: [
                "CacheStore",
                "KeyedArchive",
                "TokenCacheJSON",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // The engine: save token responses, look up tokens and accounts, remove accounts.
        .target(name: "TokenCache", dependencies: ["CacheStore", "KeyedArchive", "TokenCacheJSON", "TokenCacheSchema"]),

        // How items and text are shown: terminal-safe text, the payload view of `dump` with secrets
        // redacted by an allow-list.
        .target(
            name: "TokenCacheDisplay",
            dependencies: [
                "CacheStore", "KeyedArchive", "TokenCacheJSON", "TokenCacheSchema",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // Files in and out of the store: MSAL unified JSON (import and export), the MSAL.NET 2.x
        // dictionary (import), the keychain-items format, the ADAL formats, the Linux SDKs' caches.
        .target(
            name: "TokenCacheInterchange",
            dependencies: [
                "CacheStore",
                "KeyedArchive",
                "PrivateFiles",
                "TokenCacheDisplay",
                "TokenCacheJSON",
                "TokenCacheSchema",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // The Secret Service as the interchange's read-only keyring, for `import sdk` and `dump sdk`.
        .target(name: "InterchangeSecretService", dependencies: ["CacheStoreSecretService", "TokenCacheInterchange"]),

        // The C ABI: @_cdecl functions over the engine, the blob level and the entry writer.
        .target(
            name: "TokenCacheC",
            dependencies: [
                "CacheStore", "CacheStoreLocation", "TokenCache", "TokenCacheInterchange", "TokenCacheJSON", "TokenCacheSchema",
                "TokenCacheVersion",
            ]
        ),

        .executableTarget(
            name: "tokencache",
            dependencies: [
                "CacheStore",
                "CacheStoreLocation",
                "InterchangeSecretService",
                "TokenCache",
                "TokenCacheDisplay",
                "TokenCacheInterchange",
                "TokenCacheJSON",
                "TokenCacheSchema",
                "TokenCacheVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // A small program the tests start as real separate processes against one store.
        .executableTarget(
            name: "store-worker",
            dependencies: [
                "CacheStore", "CacheStoreSQLite", "CacheStoreEncryption", "CacheStoreSecretService", "CacheStoreRedis",
                "TokenCacheInterchange",
            ],
            path: "Tests/store-worker"
        ),

        // The soak test's worker and checker, started by scripts/soak.sh as many processes at once.
        .executableTarget(
            name: "soak-worker",
            dependencies: ["CacheStore", "CacheStoreRedis", "CacheStoreSQLite", "TokenCache", "TokenCacheJSON", "TokenCacheSchema", "TokenCacheInterchange"],
            path: "Tests/soak-worker"
        ),

        .target(name: "TestSupport", dependencies: ["CSQLite"], path: "Tests/TestSupport"),
        .testTarget(name: "CacheStoreTests", dependencies: ["CacheStore", "CacheStoreMemory"]),
        // The store contract, run against every backend.
        .testTarget(
            name: "CacheStoreConformanceTests",
            dependencies: ["CacheStore", "CacheStoreMemory", "CacheStoreSQLite", "CacheStoreSecretService", "CacheStoreRedis"]
        ),
        .testTarget(
            name: "CacheStoreSQLiteTests",
            dependencies: ["CacheStore", "CacheStoreSQLite", "CacheStoreEncryption", "CSQLite", "TestSupport", "store-worker"]
        ),
        .testTarget(
            name: "CacheStoreLocationTests",
            dependencies: ["CacheStoreLocation", "CacheStoreMemory", "CacheStoreSQLite", "CacheStoreSecretService"]
        ),
        .testTarget(
            name: "CacheStoreRedisTests",
            dependencies: ["CacheStoreRedis", "CacheStore", "CacheStoreEncryption", "TestSupport", "store-worker"]
        ),
        .testTarget(name: "KeyedArchiveTests", dependencies: ["KeyedArchive", "TestSupport"]),
        .testTarget(name: "TokenCacheJSONTests", dependencies: ["TokenCacheJSON", "TestSupport"]),
        .testTarget(name: "TokenCacheDisplayTests", dependencies: ["TokenCacheDisplay", "TokenCacheJSON", "TokenCacheSchema", "CacheStore"]),
        .testTarget(name: "TokenCacheSchemaTests", dependencies: ["TokenCacheSchema", "TokenCacheJSON", "CacheStore", "CacheStoreMemory", "KeyedArchive", "TestSupport"]),
        .testTarget(
            name: "CacheStoreEncryptionTests",
            dependencies: ["CacheStoreEncryption", "CacheStore", "TestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "CacheStoreSecretServiceTests",
            dependencies: [
                "CacheStoreSecretService", "CacheStoreEncryption", "CacheStoreSQLite", "CacheStore", "CLibsecret",
                "TestSupport", "store-worker",
            ]
        ),
        .testTarget(
            name: "TokenCacheTests",
            dependencies: [
                "TokenCache", "TokenCacheJSON", "TokenCacheSchema", "KeyedArchive", "CacheStore", "CacheStoreMemory", "CacheStoreSQLite",
                "CacheStoreEncryption", "TokenCacheInterchange", "TestSupport", "store-worker",
            ]
        ),
        .testTarget(
            name: "TokenCacheInterchangeTests",
            dependencies: [
                "TokenCacheInterchange", "TokenCacheDisplay", "TokenCache", "TokenCacheJSON", "TokenCacheSchema", "KeyedArchive", "CacheStore", "CacheStoreMemory",
                "CacheStoreSQLite", "TestSupport",
            ]
        ),
        .testTarget(name: "TokenCacheCTests", dependencies: ["TokenCacheC"]),
        .testTarget(
            name: "tokencacheTests",
            dependencies: [
                "TestSupport", "tokencache", "TokenCache", "TokenCacheDisplay", "TokenCacheJSON", "TokenCacheSchema", "CacheStore", "CacheStoreMemory", "CacheStoreSQLite",
                "CacheStoreLocation", "TokenCacheInterchange", "CacheStoreSecretService",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
