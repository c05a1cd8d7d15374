import Testing
@testable import TokenCache
import TokenCacheSchema

/// Values that may be secrets are never repeated in errors: an authority's user information, a
/// response's token_type.
@Suite struct EchoedSecretsTests {
    @Test func authoritiesWithUserInformationAreRefusedWithoutEchoingIt() {
        for url in [
            "https://alice:hunter2-pw@login.microsoftonline.com/common",
            "https://hunter2-pw@login.microsoftonline.com/common",
            "http://alice:hunter2-pw@login.microsoftonline.com/common",
            "https://alice:hunter2-pw@/common",
        ] {
            do {
                _ = try Authority(url)
                Issue.record("accepted \(url)")
            } catch {
                let text = String(describing: error)
                #expect(text.contains("authority") && !text.contains("hunter2"), "\(text)")
            }
        }
        #expect(Authority.shown("https://a:b@host/t?x=@y") == "https://…@host/t?x=@y")
        #expect(Authority.shown("https://host/t") == "https://host/t")
    }

    @Test func tokenTypeIsNotEchoed() throws {
        let fixture = try CacheFixture()
        do {
            try fixture.save(TokenResponses.aad(tokenType: "pop-hunter2-value"))
            Issue.record("saved a pop token without a key id")
        } catch {
            let text = String(describing: error)
            #expect(text.contains("token_type") && !text.contains("hunter2"), "\(text)")
        }
    }
}
