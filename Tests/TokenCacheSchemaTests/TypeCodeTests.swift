import Testing

@testable import TokenCacheSchema

@Suite struct TypeCodeTests {
    @Test func credentialTypeCodesAndStrings() {
        let expected: [(CredentialType, UInt32, String, String)] = [
            (.other, 2000, "token", "token"),
            (.accessToken, 2001, "AccessToken", "accesstoken"),
            (.refreshToken, 2002, "RefreshToken", "refreshtoken"),
            (.idToken, 2003, "IdToken", "idtoken"),
            (.legacySingleResourceToken, 2004, "LegacySingleResourceToken", "legacysingleresourcetoken"),
            (.primaryRefreshToken, 2005, "PrimaryRefreshToken", "primaryrefreshtoken"),
            (.v1IdToken, 2006, "V1IdToken", "v1idtoken"),
            (.accessTokenWithAuthScheme, 2007, "AccessToken_With_AuthScheme", "accesstoken_with_authscheme"),
            (.familyRefreshToken, 2008, "FamilyRefreshToken", "familyrefreshtoken"),
            (.boundRefreshToken, 2009, "BoundRefreshToken", "boundrefreshtoken"),
        ]
        #expect(expected.count == CredentialType.allCases.count)
        for (kind, code, json, key) in expected {
            #expect(kind.typeCode == code)
            #expect(CredentialType(typeCode: code) == kind)
            #expect(kind.jsonString == json)
            #expect(kind.keyString == key)
            #expect(CredentialType(jsonString: json) == kind)
            #expect(CredentialType(jsonString: json.uppercased()) == kind)
        }
        #expect(CredentialType(jsonString: "IDToken") == .idToken)  // MSAL Go's spelling
        #expect(CredentialType(jsonString: "ATExt") == nil)
        #expect(CredentialType(typeCode: 2010) == nil)
        #expect(CredentialType(typeCode: 1003) == nil)
    }

    @Test func accountTypeCodesAndStrings() {
        let expected: [(AccountType, UInt32, String)] = [
            (.other, 1000, "Other"), (.aad, 1001, "AAD"), (.msa, 1002, "MSA"), (.mssts, 1003, "MSSTS"), (.adfs, 1004, "ADFS"),
        ]
        for (kind, code, json) in expected {
            #expect(kind.typeCode == code)
            #expect(AccountType(typeCode: code) == kind)
            #expect(AccountType(jsonString: json) == kind)
            #expect(AccountType(jsonString: json.lowercased()) == kind)
        }
        #expect(AccountType(jsonString: "authority type") == nil)
        // Any mix of cases; nothing longer, shorter or merely similar.
        #expect(AccountType(jsonString: "mSsTs") == .mssts)
        #expect(AccountType(jsonString: "aDfS") == .adfs)
        for near in ["AAD ", " AAD", "AA", "AADD", "", "A\u{0}D", "ＡＡＤ", "A@D", "MS\u{0053}T"] {
            #expect(AccountType(jsonString: near) == nil, "\(near.debugDescription)")
        }
        #expect(ItemTypeCode.appMetadata == 3001)
        #expect(ItemTypeCode.accountMetadata == 5001)
    }
}
