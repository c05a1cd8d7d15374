import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Credential {
    /// Reads a stored credential item for an index: it accepts and rejects exactly the items
    /// ``init(storeItem:)`` does, with the same values in the fields an index compares, and builds
    /// only those. The payloads every writer stores (one flat object of plain strings) are read in
    /// one pass without a JSON tree (``IndexingScanner``); others by the full grammar with the
    /// fields it does not compare read as placeholders (``secret`` as `""` unless at most 15 bytes
    /// long, so a tombstone is recognized). Other fields may be absent: the result is for matching
    /// only; read the item with ``init(storeItem:)`` for its content.
    ///
    /// With an `interner`, the strings of the fields read are shared with the items it read before.
    @_spi(Indexing) public init(indexing item: StoreItem, interner: inout StringInterner?) throws(SchemaError) {
        guard let kind = item.type.flatMap(CredentialType.init(typeCode:)) else {
            throw .wrongItemType(expected: Self.storedKind, item: ItemReference(item))
        }
        if let scanned = IndexingScanner.credential(item.data, typeHint: kind, interner: &interner) {
            self = scanned
            return
        }
        do {
            try self.init(jsonObject: PayloadFields.object(from: item.data, building: Self.indexedFields), typeHint: kind)
        } catch {
            throw error.attaching(ItemReference(item))
        }
    }

    /// ``init(indexing:interner:)`` without an interner.
    @_spi(Indexing) public init(indexing item: StoreItem) throws(SchemaError) {
        var none: StringInterner? = nil
        try self.init(indexing: item, interner: &none)
    }

    /// The members ``init(indexing:)`` builds: those whose values an index compares, and those whose
    /// value (not only its kind) decides whether the payload is valid (timestamps).
    fileprivate static let indexedFields: Set<String> = [
        Field.credentialType, Field.clientId, Field.homeAccountId, Field.environment, Field.realm, Field.target,
        Field.familyId, Field.cachedAt, Field.expiresOn, Field.extendedExpiresOn, Field.extendedExpiresOnLegacy,
        Field.refreshOn, Field.tokenType, Field.keyId, Field.keyIdSnakeCase, Field.keyIdGo, Field.requestedClaims,
        Field.applicationIdentifier, Field.extCacheKey,
    ]
}
