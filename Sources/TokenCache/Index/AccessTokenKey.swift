@_spi(Bytes) import CacheStore

extension CacheIndex {
    /// What access tokens are filed under: home account, client and realm, each normalized.
    ///
    /// Hashed through a ``KeyDigest`` made once, when the key is made, and compared as bytes: a warm
    /// lookup makes one key and hashes it once, and an open makes one for every access token.
    struct AccessTokenKey: DigestHashable, Sendable {
        let homeAccountId: String
        let clientId: String
        let realm: String
        let digest: KeyDigest

        init(homeAccountId: String, clientId: String, realm: String) {
            self.homeAccountId = homeAccountId
            self.clientId = clientId
            self.realm = realm
            var digest = KeyDigest()
            digest.add(homeAccountId)
            digest.add(clientId)
            digest.add(realm)
            self.digest = digest
        }

        /// The key a lookup asks for, from its raw home account and client ids (normalized here, in
        /// the pass that digests them when they are normalized already) and a normalized realm.
        init(normalizingHomeAccountId homeAccountId: String, clientId: String, realm: String) {
            var digest = KeyDigest()
            self.homeAccountId = digest.addNormalized(homeAccountId)
            self.clientId = digest.addNormalized(clientId)
            self.realm = realm
            digest.add(realm)
            self.digest = digest
        }

        static func == (lhs: AccessTokenKey, rhs: AccessTokenKey) -> Bool {
            lhs.digest == rhs.digest
                && sameBytes(lhs.homeAccountId, rhs.homeAccountId)
                && sameBytes(lhs.clientId, rhs.clientId)
                && sameBytes(lhs.realm, rhs.realm)
        }
    }
}
