import CLibsecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a store treats a locked collection.
public enum UnlockPolicy: Sendable, Hashable {
    /// Throw ``SecretServiceError/collectionLocked(_:)``. For headless use, where no prompt can appear.
    case fail
    /// Ask the Secret Service to unlock it, which shows the keyring's password prompt.
    case prompt
}

/// Where the session bus is, as GLib finds it: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`.
public enum SessionBus {
    /// The address, or `nil` when the environment names no session bus.
    public static func address(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            var info = stat()
            if stat(runtime + "/bus", &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { return "unix:path=\(runtime)/bus" }
        }
        return nil
    }
}

/// One collection of the Secret Service, reached through libsecret's D-Bus-path API. Not thread-safe
/// on its own: its owner serialises calls.
final class SecretServiceConnection: @unchecked Sendable {
    private let service: OpaquePointer  // SecretService *
    private let collection: OpaquePointer  // SecretCollection *
    let collectionPath: String
    /// The name the user gave (alias, label or object name).
    let collectionName: String
    let collectionLabel: String

    /// Connects and opens the collection, checking on the way that libsecret is installed, there is a
    /// session bus, a Secret Service on it, the collection, and that it is unlocked.
    init(collection name: String, unlock: UnlockPolicy, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SecretServiceError) {
        try SecretServiceLibrary.load()
        guard let address = SessionBus.address(environment: environment) else { throw .noSessionBus }
        var error: UnsafeMutablePointer<GError>?
        guard let service = tc_service_get(&error) else {
            throw Self.connectFailure(error, address: address)
        }
        self.service = service
        self.collectionName = name
        var path: String?
        if ["default", "session", "login"].contains(name) {
            if let raw = tc_read_alias(service, name, &error) {
                path = String(cString: raw)
                tc_free(raw)
            } else if let failure = error {
                tc_object_unref(UnsafeMutableRawPointer(service))
                throw Self.failure(failure, operation: "read alias '\(name)'", collection: name)
            }
        }
        // Listing the collections has libsecret load them, and an item that another client deletes
        // meanwhile can fail the listing with NoSuchObject ("No such secret item …", seen while a
        // test suite deleted items in the same keyring). That says nothing of the collection asked
        // for, so the listing is read again (twice at most).
        for attempt in 1...3 where path == nil {
            error = nil
            if let raw = tc_find_collection(service, name, &error) {
                path = String(cString: raw)
                tc_free(raw)
            } else if let failure = error {
                if attempt < 3 && Self.isVanishedObject(failure) {
                    tc_error_free(failure)
                    continue
                }
                tc_object_unref(UnsafeMutableRawPointer(service))
                throw Self.failure(failure, operation: "list collections", collection: name)
            } else {
                break
            }
        }
        guard let path else {
            tc_object_unref(UnsafeMutableRawPointer(service))
            throw .collectionNotFound(name)
        }
        self.collectionPath = path
        guard let collection = tc_collection(service, path, &error) else {
            tc_object_unref(UnsafeMutableRawPointer(service))
            throw Self.failure(error, operation: "open collection '\(name)'", collection: name)
        }
        self.collection = collection
        if let label = tc_collection_label(collection) {
            collectionLabel = String(cString: label)
            tc_free(label)
        } else {
            collectionLabel = name
        }
        if tc_collection_locked(collection) != 0 {
            switch unlock {
            case .fail:
                throw .collectionLocked(name)
            case .prompt:
                let unlocked = tc_unlock(service, path, &error)
                if unlocked < 0 { throw Self.failure(error, operation: "unlock '\(name)'", collection: name) }
                if unlocked == 0 { throw .promptDismissed(name) }
            }
        }
    }

    deinit {
        tc_object_unref(UnsafeMutableRawPointer(collection))
        tc_object_unref(UnsafeMutableRawPointer(service))
    }

    /// Paths of the collection's items carrying all of `attributes`.
    func search(_ attributes: [(String, String)]) throws(SecretServiceError) -> [String] {
        var error: UnsafeMutablePointer<GError>?
        let raw = withCStrings(attributes.map(\.0)) { keys in
            withCStrings(attributes.map(\.1)) { values in
                tc_search(collection, keys, values, Int32(attributes.count), &error)
            }
        }
        guard let raw else { throw Self.failure(error, operation: "search items", collection: collectionName) }
        defer { tc_strfreev(raw) }
        var paths: [String] = []
        var index = 0
        while let entry = raw[index] {
            paths.append(String(cString: entry))
            index += 1
        }
        return paths.sorted()
    }

    /// The secrets of `paths`, loaded in one call; paths the service returned nothing for are absent.
    func secrets(_ paths: [String]) throws(SecretServiceError) -> [String: Data] {
        try Self.secrets(of: paths, from: service, collection: collectionName)
    }

    /// The secrets of `paths` on `service` in one `GetSecrets` call, by path; paths the service
    /// returned nothing for are absent. `collection` names the keyring in an error.
    static func secrets(
        of paths: [String], from service: OpaquePointer, collection: String
    ) throws(SecretServiceError) -> [String: Data] {
        guard !paths.isEmpty else { return [:] }
        var error: UnsafeMutablePointer<GError>?
        var values = [OpaquePointer?](repeating: nil, count: paths.count)
        let ok = withCStrings(paths) { cPaths in
            values.withUnsafeMutableBufferPointer { buffer in
                tc_get_secrets(service, cPaths, Int32(paths.count), buffer.baseAddress, &error)
            }
        }
        guard ok != 0 else { throw failure(error, operation: "load secrets", collection: collection) }
        var result: [String: Data] = [:]
        for (path, value) in zip(paths, values) {
            guard let value else { continue }
            var length = 0
            let bytes = tc_value_bytes(value, &length)
            result[path] = bytes.map { Data(bytes: $0, count: length) } ?? Data()
            tc_value_unref(value)
        }
        return result
    }

    /// Creates the item with exactly these attributes, or replaces its secret and label; with
    /// `replace` false, always creates a new item (one that exists is left as it is).
    @discardableResult
    func store(
        label: String, attributes: [(String, String)], secret: Data, contentType: String, replace: Bool = true
    ) throws(SecretServiceError) -> String {
        var error: UnsafeMutablePointer<GError>?
        let raw = withCStrings(attributes.map(\.0)) { keys in
            withCStrings(attributes.map(\.1)) { values in
                secret.withUnsafeBytes { bytes in
                    tc_store_item(service, collectionPath, label, keys, values, Int32(attributes.count),
                                  bytes.baseAddress, bytes.count, contentType, replace ? 1 : 0, &error)
                }
            }
        }
        guard let raw else { throw Self.failure(error, operation: "store item", collection: collectionName) }
        defer { tc_free(raw) }
        return String(cString: raw)
    }

    func delete(_ path: String) throws(SecretServiceError) {
        var error: UnsafeMutablePointer<GError>?
        guard tc_delete_item(service, path, &error) != 0 else {
            throw Self.failure(error, operation: "delete item", collection: collectionName)
        }
    }

    // MARK: - Errors

    static func connectFailure(_ error: UnsafeMutablePointer<GError>?, address: String) -> SecretServiceError {
        defer { tc_error_free(error) }
        guard let error else { return .serviceUnavailable(message: "unknown error") }
        let message = String(cString: error.pointee.message)
        let remote = remoteName(error)
        if remote == "org.freedesktop.DBus.Error.ServiceUnknown" || remote == "org.freedesktop.DBus.Error.NameHasNoOwner"
            || remote == "org.freedesktop.DBus.Error.Spawn.ChildExited" || message.contains("org.freedesktop.secrets")
        {
            return .serviceUnavailable(message: message)
        }
        return .sessionBusUnreachable(address: address, message: message)
    }

    static func failure(_ error: UnsafeMutablePointer<GError>?, operation: String, collection: String) -> SecretServiceError {
        defer { tc_error_free(error) }
        guard let error else { return .operationFailed(operation: operation, message: "unknown error", remoteName: nil) }
        let message = String(cString: error.pointee.message)
        let remote = remoteName(error)
        if remote == "org.freedesktop.Secret.Error.IsLocked"
            || (tc_error_is_secret(error) != 0 && error.pointee.code == tc_secret_error_is_locked())
        {
            return .collectionLocked(collection)
        }
        if tc_error_is_io(error) != 0 && error.pointee.code == tc_io_error_cancelled() {
            return .promptDismissed(collection)
        }
        if remote == "org.freedesktop.DBus.Error.ServiceUnknown" || remote == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return .serviceUnavailable(message: message)
        }
        return .operationFailed(operation: operation, message: message, remoteName: remote)
    }

    /// Whether `error` says an object the call came across was gone by the time it was asked about.
    private static func isVanishedObject(_ error: UnsafeMutablePointer<GError>) -> Bool {
        remoteName(error) == "org.freedesktop.Secret.Error.NoSuchObject"
            || String(cString: error.pointee.message).hasPrefix("No such secret")
    }

    private static func remoteName(_ error: UnsafeMutablePointer<GError>) -> String? {
        guard let raw = tc_error_remote_name(error) else { return nil }
        defer { tc_free(raw) }
        return String(cString: raw)
    }
}

/// Calls `body` with a C array of C strings that lives as long as the call.
func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicated = strings.map { strdup($0) }
    defer { duplicated.forEach { free($0) } }
    var pointers = duplicated.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}
