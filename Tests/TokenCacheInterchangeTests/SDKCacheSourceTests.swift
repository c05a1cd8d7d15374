import CacheStore
import Foundation
import TestSupport
import Testing
import TokenCache
import TokenCacheInterchange
import TokenCacheSchema

/// A keyring in memory, standing in for the Secret Service: items with attributes, some locked.
final class FakeKeyring: SDKKeyring {
    struct Entry {
        var item: SDKKeyringItem
        var attributes: [String: String]
        var secret: Data
    }

    var entries: [Entry] = []
    var secretReads = 0

    func add(_ label: String, _ attributes: [String: String], secret: Data, locked: Bool = false, collection: String = "Login") {
        let item = SDKKeyringItem(id: "/org/freedesktop/secrets/collection/login/\(entries.count + 1)", label: label, collection: collection, isLocked: locked)
        entries.append(Entry(item: item, attributes: attributes, secret: secret))
    }

    func items(matching attributes: [SDKAttribute]) throws -> [SDKKeyringItem] {
        entries.filter { entry in attributes.allSatisfy { entry.attributes[$0.name] == $0.value } }.map(\.item)
    }

    func secrets(of items: [SDKKeyringItem]) throws -> [String: Data] {
        secretReads += 1
        let anyLocked = items.contains { $0.isLocked }
        #expect(!anyLocked, "never asked for a locked item's secret")
        var result: [String: Data] = [:]
        for entry in entries where items.contains(where: { $0.id == entry.item.id }) { result[entry.item.id] = entry.secret }
        return result
    }
}

/// The attributes an SDK's libsecret call stores: its own, plus `xdg:schema` (libsecret always adds it).
func written(_ layout: SDKKeyringLayout) -> [String: String] {
    var attributes = Dictionary(uniqueKeysWithValues: layout.attributes.map { ($0.name, $0.value) })
    attributes["xdg:schema"] = layout.schema
    return attributes
}

@Suite("Interchange: the Linux SDKs' caches (layouts, decoding, import)")
struct SDKCacheSourceTests {
    // MARK: - The layouts, as the reference states them

    @Test func keyringLayoutsUseTheReferencesExactSchemasAttributesAndEncodings() {
        let dotnet = SDKCacheLayout.msalDotnet.keyringLayouts
        #expect(dotnet.count == 1)
        #expect(dotnet[0].schema == "msal.cache")
        #expect(!dotnet[0].matchesSchema, "SECRET_SCHEMA_DONT_MATCH_NAME (§1.4)")
        #expect(dotnet[0].searchAttributes == [
            SDKAttribute("MsalClientID", "Microsoft.Developer.IdentityService"),
            SDKAttribute("Microsoft.Developer.IdentityService", "1.0.0.0"),
        ])
        #expect(dotnet[0].encoding == .base64JSON)

        let gcm = SDKCacheLayout.gcm.keyringLayouts
        #expect(gcm.map(\.label) == ["MSALCache", "AppCache"])
        #expect(gcm[0].searchAttributes == dotnet[0].searchAttributes, "GCM's user cache is the Azure.Identity item (§1.5)")
        #expect(gcm[1].searchAttributes == [SDKAttribute("MsalClientID", "GitCredentialManager.MSAL"), SDKAttribute("GitCredentialManager.MSAL", "1.0.0.0")])
        #expect(gcm.allSatisfy { $0.encoding == .base64JSON })

        let python = SDKCacheLayout.azureIdentityPython.keyringLayouts
        #expect(python.map(\.searchAttributes) == [
            [SDKAttribute("xdg:schema", "msal.cache.nocae"), SDKAttribute("MsalClientID", "Microsoft.Developer.IdentityService")],
            [SDKAttribute("xdg:schema", "msal.cache.cae"), SDKAttribute("MsalClientID", "Microsoft.Developer.IdentityService")],
        ])
        #expect(python.allSatisfy { $0.encoding == .rawJSON && $0.label == "MSALCache" })

        let cli = SDKCacheLayout.azureCLI.keyringLayouts
        #expect(cli.map(\.searchAttributes) == [[SDKAttribute("xdg:schema", "Microsoft Azure CLI"), SDKAttribute("type", "Token cache")]])
        #expect(cli[0].encoding == .rawJSON)

        let node = SDKCacheLayout.msalNode.keyringLayouts
        #expect(node.map(\.searchAttributes) == [[
            SDKAttribute("xdg:schema", "org.freedesktop.Secret.Generic"),
            SDKAttribute("service", "Microsoft.Developer.IdentityService"), SDKAttribute("account", "MSALCache"),
        ]])
        #expect(node[0].label == "Microsoft.Developer.IdentityService/MSALCache")
        #expect(node[0].encoding == .rawJSON)

        // No layout's search matches another layout's item (§8): .NET's lacks xdg:schema, the others match it.
        for layout in SDKCacheLayout.allCases {
            for keyring in layout.keyringLayouts {
                let item = written(keyring)
                for other in SDKCacheLayout.allCases where other != layout && !(Set([layout, other]) == [.msalDotnet, .gcm]) {
                    for search in other.keyringLayouts {
                        #expect(!search.searchAttributes.allSatisfy { item[$0.name] == $0.value }, "\(other) finds \(layout)'s \(keyring.writer)")
                    }
                }
            }
        }
    }

    @Test func filesFollowHomeXDGDataHomeAndAzureConfigDir() {
        let home = ["HOME": "/home/u"]
        #expect(SDKCacheLayout.azureCLI.files(environment: home).map(\.path) == ["/home/u/.azure/msal_token_cache.json"])
        #expect(SDKCacheLayout.azureCLI.files(environment: home.merging(["AZURE_CONFIG_DIR": "/cfg/az"]) { $1 }).map(\.path) == ["/cfg/az/msal_token_cache.json"])
        #expect(SDKCacheLayout.azureCLI.files(environment: home.merging(["AZURE_CONFIG_DIR": "~/az"]) { $1 }).map(\.path) == ["/home/u/az/msal_token_cache.json"])
        #expect(SDKCacheLayout.msalDotnet.files(environment: home).map(\.path) == [
            "/home/u/.local/share/.IdentityService/msal.cache.nocae", "/home/u/.local/share/.IdentityService/msal.cache.cae",
        ])
        #expect(SDKCacheLayout.msalDotnet.files(environment: home.merging(["XDG_DATA_HOME": "/data"]) { $1 }).first?.path == "/data/.IdentityService/msal.cache.nocae")
        #expect(SDKCacheLayout.msalDotnet.files(environment: home.merging(["XDG_DATA_HOME": "relative"]) { $1 }).first?.path == "/home/u/.local/share/.IdentityService/msal.cache.nocae")
        #expect(SDKCacheLayout.gcm.files(environment: home).map(\.path) == ["/home/u/.local/.IdentityService/msal.cache"])
        #expect(SDKCacheLayout.azureIdentityPython.files(environment: home).map(\.path) == ["/home/u/.IdentityService/msal.cache.nocae", "/home/u/.IdentityService/msal.cache.cae"])
        #expect(SDKCacheLayout.msalNode.files(environment: home).map(\.path) == SDKCacheLayout.azureIdentityPython.files(environment: home).map(\.path))
    }

    @Test func selectionsParseAndPrintBack() {
        for value in SDKCacheSelection.allValueStrings {
            #expect(SDKCacheSelection(argument: value)?.description == value)
        }
        #expect(SDKCacheSelection(argument: "secret-service:azure-cli") == .secretService(.azureCLI))
        #expect(SDKCacheSelection(argument: "file:msal-dotnet") == .file(.msalDotnet))
        for bad in ["", "secret-service", "secret-service:", "file:nope", "keychain:gcm", "AUTO", "sqlite:azure-cli"] {
            #expect(SDKCacheSelection(argument: bad) == nil, "\(bad)")
        }
    }

    // MARK: - Decoding

    @Test func secretsDecodePerEncodingAndBadOnesNameTheSourceNotTheContent() throws {
        let json = try fixture("msal-node/cache.json")
        let wrapped = Data(json.base64EncodedString(options: .lineLength76Characters).utf8) + Data("\n".utf8)
        #expect(try SDKCacheEncoding.base64JSON.msalJSON(from: wrapped, source: "s") == json)
        #expect(try SDKCacheEncoding.rawJSON.msalJSON(from: json, source: "s") == json)
        #expect(try SDKCacheEncoding.base64JSON.msalJSON(from: Data(), source: "s") == nil)
        #expect(try SDKCacheEncoding.rawJSON.msalJSON(from: Data(" \n".utf8), source: "s") == nil)
        do {
            _ = try SDKCacheEncoding.base64JSON.msalJSON(from: Data(#"{"RefreshToken": "TOP-SECRET"}"#.utf8), source: "secret-service:gcm [x]")
            Issue.record("raw JSON read as Base64")
        } catch {
            #expect(error.description.hasPrefix("secret-service:gcm [x]: not Base64-encoded MSAL JSON"))
            #expect(!error.description.contains("TOP-SECRET"))
            #expect(error.isDataError)
        }
    }

    // MARK: - Import

    @Test func everyKeyringLayoutImportsTheFixturesAccounts() throws {
        let dotnetJSON = try fixture("msal-dotnet/ExpectedTokenCache.json")
        let nodeJSON = try fixture("msal-node/cache.json")
        for layout in SDKCacheLayout.allCases {
            for keyringLayout in layout.keyringLayouts {
                let keyring = FakeKeyring()
                let json = keyringLayout.encoding == .base64JSON ? dotnetJSON : nodeJSON
                let secret = keyringLayout.encoding == .base64JSON ? Data(json.base64EncodedString().utf8) : json
                keyring.add(keyringLayout.label, written(keyringLayout), secret: secret)
                let survey = try SDKCacheFinder.survey(.secretService(layout), keyring: keyring, environment: ["HOME": "/nonexistent"])
                #expect(survey.found.count == 1, "\(layout) \(keyringLayout.writer)")
                let store = try newStore()
                let report = try CacheInterchange(store: store).importSDKCaches(survey.found, keyring: keyring)
                let usernames = try TokenCache(store: store).accounts().compactMap(\.username)
                #expect(usernames == [keyringLayout.encoding == .base64JSON ? "joe@localhost.com" : "johndoe@microsoft.com"], "\(layout)")
                #expect(report.imported > 0 && report.added == report.imported)
                #expect(report.sources.map(\.location.selection) == [.secretService(layout)])
            }
        }
    }

    @Test func autoFindsKeyringItemsAndFilesOnceEachAndImportsThemInOneBatch() throws {
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let environment = ["HOME": home.url.path]
        // Azure CLI's plaintext file (the Linux default), and an empty .NET signal file beside a keyring cache.
        try FileManager.default.createDirectory(atPath: home.path(".azure"), withIntermediateDirectories: true)
        try fixture("msal-node/cache.json").write(to: URL(fileURLWithPath: home.path(".azure/msal_token_cache.json")))
        try FileManager.default.createDirectory(atPath: home.path(".local/share/.IdentityService"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: home.path(".local/share/.IdentityService/msal.cache.nocae"), contents: Data())

        let keyring = FakeKeyring()
        let dotnet = SDKCacheLayout.msalDotnet.keyringLayouts[0]
        keyring.add("msal.cache.nocae", written(dotnet), secret: Data(try fixture("msal-dotnet/MultiCloudTokenCache.json").base64EncodedString().utf8))
        keyring.add("unrelated", ["xdg:schema": "org.example", "MsalClientID": "Microsoft.Developer.IdentityService"], secret: Data("x".utf8))

        let survey = try SDKCacheFinder.survey(.auto, keyring: keyring, environment: environment)
        #expect(survey.found.map(\.selection) == [.secretService(.msalDotnet), .file(.azureCLI)], "the item gcm also matches is listed once")
        #expect(survey.signalFiles.map(\.description) == ["file:msal-dotnet \(home.path(".local/share/.IdentityService/msal.cache.nocae"))"])
        #expect(survey.missing.map(\.description).contains("file:gcm \(home.path(".local/.IdentityService/msal.cache"))"))

        let store = try newStore()
        let report = try CacheInterchange(store: store).importSDKCaches(survey.found, keyring: keyring)
        #expect(keyring.secretReads == 1, "all secrets in one call")
        #expect(report.sources.map(\.entries) == [13, 8])
        let usernames = Set(try TokenCache(store: store).accounts().compactMap(\.username))
        #expect(usernames == ["usercn@cloudcn.partner.onmschina.cn", "userde@cloudde.onmicrosoft.de", "user@cloud.onmicrosoft.com", "johndoe@microsoft.com"])
    }

    @Test func aLockedKeyringImportsNothingAndReadsNoSecret() throws {
        let keyring = FakeKeyring()
        keyring.add("", written(SDKCacheLayout.azureCLI.keyringLayouts[0]), secret: try fixture("msal-node/cache.json"), locked: true)
        let survey = try SDKCacheFinder.survey(.secretService(.azureCLI), keyring: keyring, environment: [:])
        #expect(survey.found.count == 1)
        let store = try newStore()
        #expect {
            try CacheInterchange(store: store).importSDKCaches(survey.found, keyring: keyring)
        } throws: { error in
            let message = String(describing: error)
            return error is SDKKeyringLockedError && message.contains("collection 'Login' is locked")
                && message.contains("secret-service:azure-cli [keyring item '' in collection 'Login'; xdg:schema=Microsoft Azure CLI, type=Token cache]")
                && message.contains("Nothing was imported")
        }
        #expect(keyring.secretReads == 0)
        #expect(try store.allItems().isEmpty)
    }

    @Test func aBadBlobNamesItsLayoutAndLeavesTheStoreUnchanged() throws {
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        try FileManager.default.createDirectory(atPath: home.path(".azure"), withIntermediateDirectories: true)
        try fixture("msal-node/cache.json").write(to: URL(fileURLWithPath: home.path(".azure/msal_token_cache.json")))
        let keyring = FakeKeyring()
        // A .NET item whose Base64 decodes to a truncated cache, after a good source.
        let truncated = try fixture("msal-dotnet/ExpectedTokenCache.json").prefix(3000)
        keyring.add("MSALCache", written(SDKCacheLayout.gcm.keyringLayouts[0]), secret: Data(truncated.base64EncodedString().utf8))
        let survey = try SDKCacheFinder.survey(.auto, keyring: keyring, environment: ["HOME": home.url.path])
        #expect(survey.found.count == 2)
        let store = try newStore()
        let existing = StoreItem(accessGroup: group, account: "a", service: "s", generic: nil, type: 1, data: Data("keep".utf8))
        _ = try store.save(existing)
        // auto reads the file of azure-cli after the keyring items of msal-dotnet: order the good one first.
        let ordered = survey.found.sorted { !$0.selection.usesKeyring && $1.selection.usesKeyring }
        #expect {
            try CacheInterchange(store: store).importSDKCaches(ordered, keyring: keyring)
        } throws: { error in
            let message = String(describing: error)
            return (error as? InterchangeError)?.isDataError == true
                && message.hasPrefix("secret-service:msal-dotnet [keyring item 'MSALCache' in collection 'Login'; MsalClientID=Microsoft.Developer.IdentityService, Microsoft.Developer.IdentityService=1.0.0.0]: not valid JSON")
                && !message.contains("access_token_secret")
        }
        #expect(try store.allItems().map(\.account) == ["a"])
    }

    @Test func emptyCachesImportNothing() throws {
        let keyring = FakeKeyring()
        keyring.add("MSALCache", written(SDKCacheLayout.azureIdentityPython.keyringLayouts[0]), secret: Data("{}".utf8))
        keyring.add("", written(SDKCacheLayout.azureCLI.keyringLayouts[0]), secret: Data())
        let found = try SDKCacheFinder.survey(.auto, keyring: keyring, environment: ["HOME": "/nonexistent"]).found
        let store = try newStore()
        let report = try CacheInterchange(store: store).importSDKCaches(found, keyring: keyring)
        #expect(report.sources.map(\.entries) == [0, 0])
        #expect(report.imported == 0 && report.entries == 0)
        #expect(try store.allItems().isEmpty)
    }
}
