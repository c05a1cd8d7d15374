import Foundation
@_spi(Bytes) import CacheStore
@_spi(Text) import TokenCacheSchema
import TestSupport
import Testing

@testable import TokenCache

/// The access-token map's key (issue 14's warm lookups): hashed through a seeded digest, compared as
/// bytes, and it must still find every key and tell apart every pair of different keys.
@Suite struct KeyDigestTests {
    static func digest(_ parts: String...) -> UInt64 {
        var digest = KeyDigest()
        for part in parts { digest.add(part) }
        return digest.value
    }

    @Test func equalStringsDigestEqually() {
        let home = "00000000-0000-0000-1234-567890abcdef.72f988bf-86f1-41af-91ab-2d7cd011db47"
        // The same bytes in a different string object (built from a substring).
        let copy = String(("x" + home).dropFirst())
        #expect(Self.digest(home, "client", "realm") == Self.digest(copy, "client", "realm"))
    }

    @Test func wherePartsEndChangesTheDigest() {
        #expect(Self.digest("ab", "c") != Self.digest("a", "bc"))
        #expect(Self.digest("", "abc") != Self.digest("abc", ""))
        #expect(Self.digest("a") != Self.digest("a", ""))
    }

    @Test func everyByteCountsWhateverTheLength() {
        // Lengths around the eight-byte word the digest folds, each byte changed in turn.
        for length in 0...40 {
            let base = String(repeating: "a", count: length)
            let reference = Self.digest(base)
            for position in 0..<length {
                var bytes = Array(base.utf8)
                bytes[position] = UInt8(ascii: "b")
                #expect(Self.digest(String(decoding: bytes, as: UTF8.self)) != reference, "length \(length), byte \(position)")
            }
            #expect(Self.digest(base + "\0") != reference)
        }
    }

    /// A lookup's key is normalized in the pass that digests it: the result and the digest are
    /// those of `ItemKey.normalized`, whatever the text (upper case, white space at either end or
    /// inside, non-ASCII, NUL, every length around the word size).
    @Test func normalizingWhileDigestingAgreesWithNormalizingFirst() {
        var generator = SplitMix64(seed: 1414)
        let pieces = ["a", "Z", "z", "0", ".", "-", " ", "\t", "\n", "\u{0B}", "\u{0C}", "\r", "\0", "@", "[", "`", "{", "é", "İ", "\u{212A}", "\u{A0}"]
        var strings = ["", " ", "abc", "ABC", " abc", "abc ", "a b"]
        for _ in 0..<4_000 {
            let length = Int.random(in: 0...40, using: &generator)
            let plain = Bool.random(using: &generator)
            strings.append(String((0..<length).map { _ in
                plain ? Character(String(UnicodeScalar(UInt8.random(in: 0x61...0x7A, using: &generator))))
                    : Character(pieces.randomElement(using: &generator)!)
            }))
        }
        for string in strings {
            var digest = KeyDigest(), reference = KeyDigest()
            let normalized = digest.addNormalized(string)
            let expected = ItemKey.normalized(string)
            reference.add(expected)
            #expect(sameBytes(normalized, expected), "\(Array(string.unicodeScalars))")
            #expect(digest == reference, "\(Array(string.unicodeScalars))")
        }
        // Bytes from 0x80 up next to upper-case letters: the sums that carry must not hide either.
        for string in ["É" + String(repeating: "a", count: 7), "aaaaaaaÉ", "\u{7F}A", "ÿZ", String(repeating: "a", count: 15) + "A"] {
            var digest = KeyDigest(), reference = KeyDigest()
            #expect(sameBytes(digest.addNormalized(string), ItemKey.normalized(string)))
            reference.add(ItemKey.normalized(string))
            #expect(digest == reference)
        }
    }

    /// A username as typed is digested as its normalized form without making that string, when
    /// lower-casing is all normalization would do; otherwise nothing is folded and the caller
    /// normalizes first. The same strings as above, and bytes from 0x80 up beside capitals.
    @Test func lowercasingWhileDigestingAgreesWithNormalizingFirst() {
        var generator = SplitMix64(seed: 2718)
        let pieces = ["a", "Z", "A", "z", "0", "@", ".", "-", "_", "[", "`", "{", " ", "\t", "é", "\u{212A}", "\0", "\u{7F}"]
        var strings = ["", "A", "User@Contoso.COM", " User@contoso.com", "user@contoso.com ", "É" + String(repeating: "A", count: 7), "AAAAAAAÉ"]
        for _ in 0..<4_000 {
            let length = Int.random(in: 0...40, using: &generator)
            strings.append(String((0..<length).map { _ in Character(pieces.randomElement(using: &generator)!) }))
        }
        var folded = 0
        for string in strings {
            let bytes = Array(string.utf8)
            let eligible = bytes.allSatisfy { $0 < 0x80 } && !(bytes.first?.isASCIIWhitespace ?? false) && !(bytes.last?.isASCIIWhitespace ?? false)
            var digest = KeyDigest()
            let before = digest
            let done = digest.addLowercasingASCII(string)
            #expect(done == eligible, "\(Array(string.unicodeScalars))")
            if done {
                folded += 1
                var reference = KeyDigest()
                reference.add(ItemKey.normalized(string))
                #expect(digest == reference, "\(Array(string.unicodeScalars))")
            } else {
                #expect(digest == before)
            }
        }
        #expect(folded > 500)
    }

    /// The username map is searched with the name as typed: any case of a stored name finds it
    /// (through the folding probe, or by normalizing first when the name has white space at an end
    /// or non-ASCII), and no other name does.
    @Test func aNormalizingLookupFindsTheNormalizedKeyInAnyCase() {
        var map = DigestedMap<Int>()
        let names = ["user@contoso.com", "idlab@msidlab4.onmicrosoft.com", "a", "", "ünïcode@contoso.com", "user@contoso.co"]
        for (position, name) in names.enumerated() { map[ItemKey.normalized(name)] = position }
        for (position, name) in names.enumerated() {
            for typed in [name, name.uppercased(), " " + name.capitalized + "\t", String(name.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.uppercased()) : $0.element })] {
                #expect(map[normalizing: typed] == position, "\(typed)")
            }
        }
        for other in ["user@contoso.comm", "USER@CONTOSO.CO.", "b", "user@contoso.com\0", "ÜNÏCODE@contoso.co"] {
            #expect(map[normalizing: other] == nil, "\(other)")
        }
    }

    /// The equality the folding probe meets its key with: bytes equal but for the case of ASCII
    /// letters, against a byte-by-byte reference, at every length around the word it compares.
    @Test func equalIgnoringASCIICaseAgreesWithAByteByByteReference() {
        var generator = SplitMix64(seed: 314)
        let pieces = ["a", "A", "z", "Z", "@", "[", "`", "{", "0", "é", "É", "\u{7F}", "ÿ"]
        func reference(_ a: String, _ b: String) -> Bool {
            func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
            return a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
        }
        var equal = 0
        for _ in 0..<4_000 {
            let length = Int.random(in: 0...24, using: &generator)
            let a = (0..<length).map { _ in pieces.randomElement(using: &generator)! }
            // The same pieces, each maybe in the other case, or now and then another piece.
            let b = a.map { piece -> String in
                switch Int.random(in: 0..<8, using: &generator) {
                case 0: pieces.randomElement(using: &generator)!
                case 1...3: piece.uppercased() == piece ? piece.lowercased() : piece.uppercased()
                default: piece
                }
            }
            let (first, second) = (a.joined(), b.joined())
            #expect(sameBytesIgnoringASCIICase(first, second) == reference(first, second), "\(first) \(second)")
            if reference(first, second) { equal += 1 }
        }
        #expect(equal > 500)
    }

    @Test func sameBytesIsByteEqualityNotCanonicalEquivalence() {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        #expect(!sameBytes(composed, decomposed))
        #expect(sameBytes(composed, String(("_" + composed).dropFirst())))
        #expect(sameBytes("", ""))
        #expect(!sameBytes("a", ""))
    }

    @Test func theAccessTokenMapFindsEveryKeyAndNoOther() {
        var generator = SplitMix64(seed: 14)
        var map: [CacheIndex.AccessTokenKey: Int] = [:]
        var keys: [CacheIndex.AccessTokenKey] = []
        for index in 0..<5_000 {
            let home = String(format: "%08x-0000-4000-8000-%012llx", Int.random(in: 0..<1_000, using: &generator), UInt64(index))
            let key = CacheIndex.AccessTokenKey(homeAccountId: home + ".tenant", clientId: "client-\(index % 7)", realm: "realm-\(index % 3)")
            keys.append(key)
            map[key] = index
        }
        #expect(map.count == keys.count)
        for (index, key) in keys.enumerated() {
            let copy = CacheIndex.AccessTokenKey(homeAccountId: String(key.homeAccountId), clientId: key.clientId, realm: key.realm)
            #expect(map[copy] == index)
            let otherRealm = CacheIndex.AccessTokenKey(homeAccountId: key.homeAccountId, clientId: key.clientId, realm: key.realm + "x")
            #expect(map[otherRealm] == nil)
        }
        // Canonically equal but different bytes: different keys, as the store's identities are.
        let composed = CacheIndex.AccessTokenKey(homeAccountId: "caf\u{E9}", clientId: "c", realm: "r")
        let decomposed = CacheIndex.AccessTokenKey(homeAccountId: "cafe\u{301}", clientId: "c", realm: "r")
        #expect(composed != decomposed)
    }

    /// The identity map's key: digested once, equal exactly when the identities are.
    @Test func identityKeysAreEqualExactlyWhenTheIdentitiesAre() {
        let base = ItemIdentity(accessGroup: "com.microsoft.adalcache", account: "home-login.windows.net", service: "accesstoken-client-realm-scope", type: 2001)
        let variants = [
            base,
            ItemIdentity(accessGroup: base.accessGroup, account: base.account, service: base.service, type: nil),
            ItemIdentity(accessGroup: base.accessGroup, account: base.account, service: base.service, type: 0),
            ItemIdentity(accessGroup: base.accessGroup, account: base.account, service: base.service, type: UInt32.max),
            ItemIdentity(accessGroup: base.accessGroup, account: base.account + "x", service: base.service, type: 2001),
            // The same bytes cut elsewhere between account and service.
            ItemIdentity(accessGroup: base.accessGroup, account: base.account + "a", service: String(base.service.dropFirst()), type: 2001),
            ItemIdentity(accessGroup: "", account: base.account, service: base.service, type: 2001),
            ItemIdentity(accessGroup: base.accessGroup, account: "caf\u{E9}", service: "", type: nil),
            ItemIdentity(accessGroup: base.accessGroup, account: "cafe\u{301}", service: "", type: nil),
        ]
        var map: [CacheIndex.IdentityKey: Int] = [:]
        for (position, identity) in variants.enumerated() { map[CacheIndex.IdentityKey(identity)] = position }
        #expect(map.count == variants.count)
        for (position, identity) in variants.enumerated() {
            let rebuilt = ItemIdentity(
                accessGroup: String(("_" + identity.accessGroup).dropFirst()), account: String(("_" + identity.account).dropFirst()),
                service: String(("_" + identity.service).dropFirst()), type: identity.type)
            #expect(map[CacheIndex.IdentityKey(rebuilt)] == position)
            #expect(CacheIndex.IdentityKey(rebuilt)._rawHashValue(seed: 3) == CacheIndex.IdentityKey(identity)._rawHashValue(seed: 3))
        }
    }

    /// The maps take a key's hash from its digest (`_rawHashValue(seed:)`), not from `Hasher`: equal
    /// keys hash equally under every seed, the seed changes the hash, and the low bits a table
    /// picks its buckets by spread as random values would.
    @Test func theMapsHashSpreadsKeysOverBuckets() {
        let keys = (0..<5_000).map { index in
            CacheIndex.AccessTokenKey(
                homeAccountId: String(format: "%08x-0000-4000-8000-%012x.tenant", index, index), clientId: "client", realm: "realm")
        }
        for seed in [0, 1, -1, 0x5EED] {
            let copy = CacheIndex.AccessTokenKey(homeAccountId: String(keys[7].homeAccountId), clientId: "client", realm: "realm")
            #expect(copy._rawHashValue(seed: seed) == keys[7]._rawHashValue(seed: seed))
            // 5,000 random values in 8,192 buckets fill about 3,730 of them.
            let buckets = Set(keys.map { $0._rawHashValue(seed: seed) & 8_191 })
            #expect(buckets.count > 3_500, "seed \(seed): \(buckets.count) buckets")
        }
        #expect(keys[0]._rawHashValue(seed: 0) != keys[0]._rawHashValue(seed: 1))
    }

    /// The account memo's key, hashed by digest too: a key made again from equal strings (other
    /// string objects) finds the entry, and keys that differ in any part, or only in whether a part
    /// is absent or empty, are other entries.
    @Test func theAccountMemosKeySeparatesEveryPart() {
        func key(_ home: String, _ client: String?, _ environment: String?) -> AccountMemo.Key {
            // Rebuilt through a substring, so no key shares a string object with another.
            func fresh(_ text: String?) -> String? { text.map { String(("_" + $0).dropFirst()) } }
            return AccountMemo.Key(homeAccountId: fresh(home)!, clientId: fresh(client), environment: fresh(environment))
        }
        let variants: [(String, String?, String?)] = [
            ("uid.utid", nil, nil), ("uid.utid", "", nil), ("uid.utid", nil, ""), ("uid.utid", "", ""),
            ("uid.utid", "client", nil), ("uid.utid", nil, "client"), ("uid.utid", "client", "login.windows.net"),
            ("uid.utid", "login.windows.net", "client"), ("uid.utidclient", nil, nil), ("uid.utid", "clientlogin.windows.net", ""),
            ("", nil, nil), ("other.utid", "client", "login.windows.net"),
        ]
        var memo: [AccountMemo.Key: Int] = [:]
        for (position, variant) in variants.enumerated() { memo[key(variant.0, variant.1, variant.2)] = position }
        #expect(memo.count == variants.count)
        for (position, variant) in variants.enumerated() {
            #expect(memo[key(variant.0, variant.1, variant.2)] == position)
            #expect(key(variant.0, variant.1, variant.2)._rawHashValue(seed: 9) == key(variant.0, variant.1, variant.2)._rawHashValue(seed: 9))
        }
        #expect(Set(variants.map { key($0.0, $0.1, $0.2)._rawHashValue(seed: 0) }).count == variants.count)
    }

    /// The tables reach a key's hash through `Hashable`'s witness table, not through the key's own
    /// type: every digest-hashed key must hand them ``DigestHashable``'s digest hash there, not the
    /// standard library's default (SipHash over `hash(into:)`).
    @Test func everyDigestKeyGivesTheTablesItsDigest() {
        func throughHashable<Key: Hashable>(_ key: Key, seed: Int) -> Int { key._rawHashValue(seed: seed) }
        func check<Key: DigestHashable>(_ key: Key) {
            for seed in [0, 7, -3] {
                #expect(throughHashable(key, seed: seed) == key.digest.hashValue(seed: seed), "\(Key.self)")
            }
        }
        check(CacheIndex.AccessTokenKey(homeAccountId: "uid.utid", clientId: "client", realm: "realm"))
        check(CacheIndex.IdentityKey(ItemIdentity(accessGroup: "g", account: "a", service: "s", type: 2001)))
        check(DigestedMap<Int>.Key("uid.utid"))
        check(PartitionNeed.username("user@contoso.com"))
        check(AccountMemo.Key(homeAccountId: "uid.utid", clientId: "client", environment: nil))
    }
}

@Suite struct CloudAliasTableTests {
    @Test func everyKnownHostHasItsCloudsAliasesPreferredCacheFirst() {
        let table = CloudAliases.known
        for cloud in table.clouds {
            for host in cloud.aliases + [cloud.preferredCache] {
                for spelling in [host, host.uppercased(), host.capitalized] {
                    let aliases = table.aliases(for: spelling)
                    #expect(aliases.first == cloud.preferredCache.lowercased())
                    #expect(Set(aliases) == Set((cloud.aliases + [cloud.preferredCache]).map { $0.lowercased() }))
                    #expect(aliases.count == Set(aliases).count)
                    // The host asked for comes right after the preferred cache host.
                    #expect(aliases.prefix(2).contains(host.lowercased()))
                }
            }
        }
    }

    /// The index keeps a credential's environment as the table's own string object when it is a
    /// known host, so a lookup's alias search compares references, not bytes. Same bytes either way.
    @Test func knownHostsAreKeptAsTheTablesOwnStrings() {
        // A string's two words: equal words are one string object (or equal inline small strings).
        func words(_ string: String) -> [UInt64] {
            let pair = unsafeBitCast(string, to: (UInt64, UInt64).self)
            return [pair.0, pair.1]
        }
        let table = CloudAliases.known
        for host in table.hosts {
            let rebuilt = String(("_" + host.uppercased()).dropFirst())
            let canonical = table.canonicalHost(ItemKey.normalized(rebuilt))
            #expect(canonical == host)
            let list = table.aliases(for: rebuilt)
            #expect(list.contains { words($0) == words(canonical) }, "\(host)")
            // Every list naming the host holds that same object.
            for other in table.hosts where table.aliases(for: other).contains(host) {
                #expect(table.aliases(for: other).contains { words($0) == words(canonical) }, "\(host) in \(other)'s list")
            }
        }
        #expect(table.canonicalHost("login.example.com") == "login.example.com")
        #expect(table.canonicalHost("") == "")
    }

    @Test func anUnknownHostIsItsOwnOnlyAliasLowerCased() {
        #expect(CloudAliases.known.aliases(for: "Login.Example.COM") == ["login.example.com"])
        // As long as a known host but not one.
        #expect(CloudAliases.known.aliases(for: "login.microsoftonline.co") == ["login.microsoftonline.co"])
        #expect(CloudAliases.known.aliases(for: "") == [""])
    }

    @Test func theLongestHostEndingAnAttributeAfterADashIsFound() {
        let hosts = ["b.c", "a-b.c", "login.microsoftonline.com", "x"]
        #expect(CloudAliases.longestHost(ending: "h-a-b.c", among: hosts) == "a-b.c")
        #expect(CloudAliases.hosts(ending: "h-a-b.c", among: hosts) == ["b.c", "a-b.c"])
        #expect(CloudAliases.longestHost(ending: "h.b.c", among: hosts) == nil, "no dash before the host")
        #expect(CloudAliases.longestHost(ending: "-b.c", among: hosts) == "b.c")
        #expect(CloudAliases.longestHost(ending: "b.c", among: hosts) == nil, "the host alone is no attribute")
        #expect(CloudAliases.longestHost(ending: "uid.utid-login.microsoftonline.com", among: hosts) == "login.microsoftonline.com")
        #expect(CloudAliases.longestHost(ending: "uid.utid-login.microsoftonline.co", among: hosts) == nil)
        #expect(CloudAliases.longestHost(ending: "", among: hosts) == nil)
        #expect(CloudAliases.longestHost(ending: "h-b.c", among: []) == nil)
    }
}

/// The partition-mode memo's key, hashed the same way.
@Suite struct PartitionNeedKeyTests {
    @Test func needsAreEqualExactlyWhenEveryPartIs() {
        let home = "00000000-0000-0000-1234-567890abcdef.72f988bf-86f1-41af-91ab-2d7cd011db47"
        let needs: [PartitionNeed] = [
            .homeAccount(home, environment: "login.microsoftonline.com", legacy: false, metadata: false),
            .homeAccount(home, environment: "login.microsoftonline.com", legacy: true, metadata: false),
            .homeAccount(home, environment: "login.microsoftonline.com", legacy: false, metadata: true),
            .homeAccount(home, environment: nil, legacy: false, metadata: false),
            .homeAccount(home, environment: "", legacy: false, metadata: false),
            .homeAccount(home + "x", environment: "login.microsoftonline.com", legacy: false, metadata: false),
            .username(home),
            .username(""),
            .appMetadata(environment: nil),
            .appMetadata(environment: ""),
            .appMetadata(environment: "login.microsoftonline.com"),
        ]
        var memo: [PartitionNeed: Int] = [:]
        for (position, need) in needs.enumerated() { memo[need] = position }
        #expect(memo.count == needs.count)
        for (position, need) in needs.enumerated() {
            #expect(memo[need] == position)
            for (other, candidate) in needs.enumerated() { #expect((need == candidate) == (position == other)) }
        }
        // The same need built from other string objects.
        let copy = PartitionNeed.homeAccount(String(("_" + home).dropFirst()), environment: String(("_login.microsoftonline.com").dropFirst()), legacy: false, metadata: false)
        #expect(memo[copy] == 0)
        for seed in [0, 1, 0x5EED] {
            #expect(copy._rawHashValue(seed: seed) == needs[0]._rawHashValue(seed: seed))
            // Every part and flag is in the hash, not only in the equality.
            #expect(Set(needs.map { $0._rawHashValue(seed: seed) }).count == needs.count)
        }
    }
}

/// The index's maps keyed by home account ids and account attributes.
@Suite struct DigestedMapTests {
    @Test func behavesAsADictionaryOfStringsComparedAsBytes() {
        var map = DigestedMap<[Int]>()
        var reference: [String: [Int]] = [:]
        var generator = SplitMix64(seed: 2026)
        for step in 0..<20_000 {
            let key = String(format: "%08x-0000-4000-8000-%012x.tenant", Int.random(in: 0..<700, using: &generator), 7)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0:
                #expect(map.removeValue(forKey: key) == reference.removeValue(forKey: key))
            case 1:
                #expect(map.updateValue([step], forKey: key) == reference.updateValue([step], forKey: key))
            case 2:
                map[key] = nil
                reference[key] = nil
            default:
                map[key, default: []].append(step)
                reference[key, default: []].append(step)
            }
        }
        #expect(map.count == reference.count)
        #expect(Set(map.keys) == Set(reference.keys))
        var seen = 0
        for (key, value) in map {
            #expect(reference[key] == value)
            // Found again through another string object with the same bytes.
            #expect(map[String(("_" + key).dropFirst())] == value)
            seen += 1
        }
        #expect(seen == reference.count)
        #expect(map.values.reduce(0) { $0 + $1.count } == reference.values.reduce(0) { $0 + $1.count })
    }

    @Test func canonicallyEqualStringsWithOtherBytesAreOtherKeys() {
        var map = DigestedMap<Int>()
        map["caf\u{E9}"] = 1
        map["cafe\u{301}"] = 2
        #expect(map.count == 2)
        #expect(map["caf\u{E9}"] == 1 && map["cafe\u{301}"] == 2)
        #expect(map[""] == nil)
        map[""] = 3
        #expect(map[""] == 3 && map.count == 3)
    }
}
