import Synchronization
import Testing
import TokenCacheC

/// JSON arguments nested as deep as the parser accepts, and deeper, on a thread with musl's default
/// stack (128 KiB): parsing, comparing, storing, serializing and freeing them fit in it.
@Suite struct DeepJSONTests {
    static let smallStack = 128 * 1024
    static let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let clientInfo = "eyJ1aWQiOiI5ZjQ4ODBkOC04MGJhLTRjNDAtOTdiYy1mN2EyM2M3MDMwODQiLCJ1dGlkIjoiZjY0NWFkOTItZTM4ZC00ZDFhLWI1MTAtZDFiMDlhNzRhOGNhIn0"

    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
    }

    static func entryDocument(deepMember: String) -> String {
        #"{"AccessToken":{"k":{"credential_type":"AccessToken","secret":"at-deep","home_account_id":null,"#
            + #""environment":"login.microsoftonline.com","client_id":"daemon","target":"https://graph.microsoft.com/.default","#
            + #""realm":"\#(tenant)","token_type":"Bearer","cached_at":"1700000000","expires_on":"4102444800","#
            + #""extended_expires_on":"4102444800","x_deep":\#(deepMember)}}}"#
    }

    @Test func deepArgumentsOnA128KiBThread() throws {
        let cache = try #require(ABI.openMemory())
        defer { tokencache_close(cache) }
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(cache)))
        let outcomes = Outcomes()
        // The deepest value accepted (64 levels): the entry document is the root, the member three
        // levels in.
        let deep = Self.nested(60)
        ThreadRunner(stackSize: Self.smallStack) {
            let handle = OpaquePointer(bitPattern: address)
            outcomes.record("write", ABI.writeEntries(handle, Self.entryDocument(deepMember: deep)))
            outcomes.record("search", ABI.search(handle, "AccessToken", query: #"{"x_deep":\#(deep)}"#))
            outcomes.record("too deep", ABI.search(handle, "AccessToken", query: #"{"x_deep":\#(Self.nested(5000))}"#))
            outcomes.record("save", ABI.call { result, error in
                tokencache_save(
                    handle, #"{"authority":"https://login.microsoftonline.com/\#(Self.tenant)","client_id":"app","scopes":["User.Read"]}"#,
                    #"{"access_token":"at-saved","expires_in":3600,"client_info":"\#(Self.clientInfo)","x_deep":\#(deep)}"#, result, error)
            })
            outcomes.record("surrogate", ABI.search(handle, "AccessToken", query: #"{"client_id":"a\ud800b"}"#))
        }.join()
        let write = try #require(outcomes["write"])
        #expect(write.status == ABI.ok, "\(write.text ?? "")")
        let search = try #require(outcomes["search"])
        #expect(search.status == ABI.ok, "\(search.text ?? "")")
        #expect(search.text?.contains("at-deep") == true)
        #expect(search.text?.contains(deep) == true)
        let save = try #require(outcomes["save"])
        #expect(save.status == ABI.ok, "\(save.text ?? "")")
        let tooDeep = try #require(outcomes["too deep"])
        #expect(tooDeep.status == ABI.badInput)
        #expect(tooDeep.text?.contains("deeper than 64") == true)
        let surrogate = try #require(outcomes["surrogate"])
        #expect(surrogate.status == ABI.badInput)
        #expect(surrogate.text?.contains("surrogate") == true)
    }
}

private final class Outcomes: Sendable {
    private let outcomes = Mutex<[String: ABIOutcome]>([:])
    func record(_ name: String, _ outcome: ABIOutcome) { outcomes.withLock { $0[name] = outcome } }
    subscript(name: String) -> ABIOutcome? { outcomes.withLock { $0[name] } }
}
