import CacheStoreEncryption
import Foundation
import TestSupport
import Testing

/// Several openers creating keys in one key file at the same moment (the store serialises its own
/// openers, but the file must not depend on it).
@Suite("Key file: creators at once")
struct KeyFileConcurrencyTests {
    final class Results: @unchecked Sendable {
        let lock = NSLock()
        var ids: [Int: Data] = [:]
        var errors: [String] = []
        func record(_ index: Int, _ result: Result<DataKey, any Error>) {
            lock.withLock {
                switch result {
                case .success(let key): ids[index] = key.id
                case .failure(let error): errors.append("\(error)")
                }
            }
        }
    }

    @Test("8 threads create the first key of one group in a new file, 20 rounds: all get the same key")
    func oneGroup() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        for round in 0..<20 {
            let file = KeyFile(path: directory.path("\(round).key"))
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                results.record(index, Result { try file.createKey(for: "g") })
            }
            #expect(results.errors.isEmpty, "round \(round): \(results.errors)")
            #expect(Set(results.ids.values).count == 1, "round \(round)")
            #expect(try file.existingKey(for: "g", id: nil)?.id == results.ids[0], "round \(round)")
        }
    }

    @Test("8 threads each create a key of their own group in a new file, 20 rounds: every key kept")
    func manyGroups() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        for round in 0..<20 {
            let file = KeyFile(path: directory.path("\(round).key"))
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                results.record(index, Result { try file.createKey(for: "g\(index)") })
            }
            #expect(results.errors.isEmpty, "round \(round): \(results.errors)")
            for index in 0..<8 {
                #expect(try file.existingKey(for: "g\(index)", id: nil)?.id == results.ids[index], "round \(round), group \(index)")
            }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { !$0.hasSuffix(".key") }
        #expect(leftovers.isEmpty)
    }
}
