import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing
import TokenCache
import TokenCacheJSON
import TokenCacheSchema

/// Interop with the real MSAL Python (pinned in `Tests/Interop/requirements.txt`, installed into
/// `.venv-interop` by `scripts/interop-venv.sh`, which `scripts/test.sh` runs). MSAL Python runs
/// offline: its http_client serves only OpenID configuration documents and fails any token request,
/// so every access token it returns came from the cache we wrote.
///
/// Without the venv the tests are skipped on a developer machine, and fail in CI (`CI=true`).
@Suite("MSAL Python interop", .enabled(if: MSALPython.executable != nil || MSALPython.isCI))
struct MSALPythonInteropTests {
    @Test func pythonWritesWeImportAndExportPythonFindsEveryAccessToken() throws {
        let python = try MSALPython.require()
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let written = cli.home.path("python-cache.json")
        let manifest = cli.home.path("manifest.json")
        try python.run("write", written, manifest)

        let imported = try cli.run("import", written)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("(msal-json): 17 added"), "\(imported.output)")

        // Exported into a new file, so that everything MSAL Python reads there is what we wrote.
        let exported = cli.home.path("exported.json")
        let export = try cli.run("export", "--output", exported)
        #expect(export.status == 0, "\(export.errors)")
        let result = try python.run("read", exported, manifest)
        #expect(result.contains(#""found": 5"#), "\(result)")

        // Merged back into MSAL Python's own file, which it then still reads.
        #expect(try cli.run("export", "--output", written).status == 0)
        #expect(try python.run("read", written, manifest).contains(#""found": 5"#))
    }

    @Test func weWriteAccountsAndTokensPythonListsAndFindsThem() throws {
        let python = try MSALPython.require()
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let store = try SQLiteStore(path: cli.defaultStorePath, accessGroups: try AccessGroups(["com.microsoft.adalcache"]))
        let cache = try TokenCache(store: store)
        struct User { let uid, utid, username: String }
        let users = [
            User(uid: "9f4880d8-80ba-4c40-97bc-f7a23c703084", utid: "f645ad92-e38d-4d1a-b510-d1b09a74a8ca", username: "IDLab@msidlab4.onmicrosoft.com"),
            User(uid: "00000000-0000-4000-8000-0000000000c1", utid: "72f988bf-86f1-41af-91ab-2d7cd011db47", username: "carol@contoso.com"),
        ]
        let client = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
        var cases: [JSONValue] = []
        for (index, user) in users.enumerated() {
            let secret = "swift-at-\(index)-\(user.uid.prefix(8))"
            let claims: JSONObject = ["tid": .string(user.utid), "oid": .string(user.uid), "sub": "s", "preferred_username": .string(user.username), "name": "N"]
            try cache.save(
                TokenResponse(
                    accessToken: secret, refreshToken: "swift-rt-\(index)",
                    idToken: Self.base64URL(["alg": "none"]) + "." + Self.base64URL(claims) + ".",
                    clientInfo: Self.base64URL(["uid": .string(user.uid), "utid": .string(user.utid)]),
                    scope: "User.Read Mail.Read openid profile", expiresIn: 3600),
                for: TokenRequest(authority: try Authority("https://login.microsoftonline.com/organizations"), clientId: client, scopes: ["User.Read"]))
            // MSAL Python looks records up under its authority's host: ours is the preferred cache alias.
            cases.append([
                "client_id": .string(client), "authority": .string("https://login.windows.net/\(user.utid)"),
                "username": .string(user.username), "home_account_id": .string("\(user.uid).\(user.utid)"),
                "scopes": ["User.Read", "Mail.Read"], "secret": .string(secret),
            ])
        }
        let manifest = cli.home.path("manifest.json")
        try JSONValue.object(["cases": .array(cases)]).serialized().write(to: URL(fileURLWithPath: manifest))
        let exported = cli.home.path("exported.json")
        #expect(try cli.run("export", "--output", exported).status == 0)
        let result = try python.run("read", exported, manifest)
        #expect(result.contains(#""found": 2"#), "\(result)")
    }

    static func base64URL(_ object: JSONObject) -> String { Base64URL.encode(JSONValue.object(object).serialized()) }
}

/// The venv's Python and the interop script.
struct MSALPython {
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var executable: String? {
        let candidates: [String?] = [ProcessInfo.processInfo.environment["TOKENCACHE_INTEROP_PYTHON"], root.appendingPathComponent(".venv-interop/bin/python").path]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    let python: String

    static func require() throws -> MSALPython {
        guard let python = executable else {
            Issue.record("MSAL Python is not installed: run `bash scripts/interop-venv.sh` (CI must run these tests)")
            throw CancellationError()
        }
        return MSALPython(python: python)
    }

    /// Runs the interop script; returns its stdout, or records its stderr and throws when it fails.
    @discardableResult
    func run(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanUp() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.root.appendingPathComponent("Tests/Interop/msal_python_interop.py").path] + arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": scratch.url.path, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"]
        _ = FileManager.default.createFile(atPath: scratch.path("out"), contents: nil)
        _ = FileManager.default.createFile(atPath: scratch.path("err"), contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: scratch.url.appendingPathComponent("out"))
        process.standardError = try FileHandle(forWritingTo: scratch.url.appendingPathComponent("err"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let output = try String(contentsOfFile: scratch.path("out"), encoding: .utf8)
        let errors = try String(contentsOfFile: scratch.path("err"), encoding: .utf8)
        guard process.terminationStatus == 0 else {
            Issue.record("MSAL Python \(arguments.first ?? "") failed (\(process.terminationStatus)): \(errors)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return output
    }
}
