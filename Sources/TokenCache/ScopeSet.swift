import TokenCacheSchema

/// Scopes compared as MSAL compares them: split on spaces, blanks dropped, case-insensitive.
struct ScopeSet: Sendable, Hashable {
    /// Scopes every token response grants implicitly; they never decide whether a token matches.
    static let reserved: Set<String> = ["openid", "profile", "offline_access"]

    let normalized: Set<String>

    init(_ target: String) {
        normalized = Set(target.split(separator: " ").map { norm(String($0)) }.filter { !$0.isEmpty })
    }

    init(_ scopes: [String]) {
        var set = Set<String>(minimumCapacity: scopes.count)
        for scope in scopes {
            if scope.utf8.contains(UInt8(ascii: " ")) {
                for part in scope.split(separator: " ") where !part.isEmpty { set.insert(norm(String(part))) }
            } else if !scope.isEmpty {
                set.insert(norm(scope))
            }
        }
        set.remove("")
        normalized = set
    }

    /// The set without the reserved OIDC scopes.
    var withoutReserved: ScopeSet {
        normalized.isDisjoint(with: Self.reserved) ? self : ScopeSet(normalized: normalized.subtracting(Self.reserved))
    }

    private init(normalized: Set<String>) { self.normalized = normalized }

    func isSubset(of other: ScopeSet) -> Bool { normalized.isSubset(of: other.normalized) }

    func intersects(_ other: ScopeSet) -> Bool { !normalized.isDisjoint(with: other.normalized) }

    var isEmpty: Bool { normalized.isEmpty }
}
