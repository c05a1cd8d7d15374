import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

/// The MSAL JSON import in bounded memory: a pass that checks every entry and keeps only the
/// report, then a pass that decodes again and writes in batches (``ImportBatchLimit``).
///
/// Atomicity: the first pass throws for anything the whole read would reject, before anything is
/// written, so a malformed file still changes nothing. A file whose items fit in one batch is
/// written in one transaction, as before. A larger one is committed batch by batch: other
/// processes may see part of it while it runs, and a failure of the store midway (disk full, a
/// payload over the store's limit) leaves the batches already committed and throws
/// ``ImportInterruptedError`` saying how many.
extension CacheInterchange {
    /// Imports an MSAL JSON document by streaming; `nil` when it must be read whole instead (a
    /// repeated key, see ``MSALJSONStream``).
    func importStreaming(
        _ data: Data, source: String, progress: ((Int, Int) -> Void)?, beforeWrite: ((Int) -> Void)?
    ) throws -> ImportReport? {
        let stream = MSALJSONStream(data: data, source: source, reader: MSALEntryReader(accessGroup: accessGroup))
        // Pass 1: check every entry; keep the issues, a digest per identity and the derived items.
        var total = 0
        var skipped: [ImportIssue] = []
        var adjusted: [ImportIssue] = []
        var failure: InterchangeError?
        var identities = Set<IdentityDigest>()
        var derived = Collector()
        progress?(0, 0)
        let checked = try stream.walk(checkingKeys: true) { path, outcome in
            total += 1
            if total % 256 == 0 { progress?(total, 0) }
            guard failure == nil else { return true }  // the rest is parsed for a JSON error, which comes first
            switch outcome {
            case .failure(let error):
                failure = .invalidEntry(source: source, path: path, error)
            case .success(.items(let item, let extra, let adjustment)):
                identities.insert(IdentityDigest(item.identity))
                for item in extra { derived.add(item) }
                if let adjustment { adjusted.append(ImportIssue(path: path, reason: adjustment)) }
            case .success(.skipped(let reason)):
                skipped.append(ImportIssue(path: path, reason: reason))
            case .success(.ignored):
                break
            }
            return true
        }
        guard case .complete = checked else { return nil }
        if let failure { throw failure }

        // Pass 2: decode again and write. A derived item goes last, unless an entry has its identity.
        var shadowed = Set<ItemIdentity>()
        var batch = Collector()
        var batchBytes = 0
        var writer = ImportBatchWriter(store: store)
        var writeError: (any Error)?
        var done = 0
        let imported = identities.count
        identities = []
        func flush() {
            do {
                try writer.write(batch.items)
            } catch {
                writeError = error
            }
            batch = Collector()
            batchBytes = 0
        }
        beforeWrite?(imported + derived.items.count)
        _ = try stream.walk(checkingKeys: false) { _, outcome in
            done += 1
            if done % 256 == 0 || done == total { progress?(done, total) }
            guard case .success(.items(let item, _, _)) = outcome else { return true }
            if derived.index[item.identity] != nil { shadowed.insert(item.identity) }
            batch.add(item)
            batchBytes += item.data.count + item.account.utf8.count + item.service.utf8.count
            if batch.items.count >= batchLimit.items || batchBytes >= batchLimit.bytes { flush() }
            return writeError == nil
        }
        if writeError == nil {
            for item in derived.items where !shadowed.contains(item.identity) { batch.add(item) }
            flush()
        }
        writer.finish()
        let written = writer.written
        if let writeError {
            // Nothing committed: the store is unchanged, and the store's own error says why.
            guard written > 0 else { throw writeError }
            throw ImportInterruptedError(source: source, written: written, total: imported + derived.items.count - shadowed.count, cause: writeError)
        }
        let count = imported + derived.items.count - shadowed.count
        return ImportReport(
            format: .msalJSON, entries: total, imported: count, added: writer.added, replaced: count - writer.added,
            skipped: skipped, adjusted: adjusted)
    }
}

/// 128 bits standing for an identity, to count the distinct identities of a large import without
/// keeping them (two keyed hashes; a false match of two identities is beyond reach at any size).
private struct IdentityDigest: Hashable {
    let first: Int
    let second: Int

    init(_ identity: ItemIdentity) {
        var first = Hasher()
        first.combine(0 as UInt8)
        first.combine(identity)
        var second = Hasher()
        second.combine(1 as UInt8)
        second.combine(identity)
        self.first = first.finalize()
        self.second = second.finalize()
    }
}
