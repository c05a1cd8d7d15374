import ArgumentParser
import CacheStore
import CacheStoreEncryption
import CacheStoreSQLite
import CacheStoreSecretService
import Foundation
import TokenCache
import TokenCacheInterchange
import TokenCacheSchema

/// The exit statuses the CLI documents (sysexits where one fits).
enum Status {
    static let notFound: Int32 = 1
    static let usage: Int32 = 2
    static let dataError: Int32 = 65
    static let ioError: Int32 = 74
}

/// Runs `body`; on an error prints it to stderr as one line and exits with the status that fits.
func exitOnFailure<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        printError(String(describing: error))
        throw ExitCode(status(for: error))
    }
}

func status(for error: any Error) -> Int32 {
    switch error {
    case let error as CacheStoreError:
        switch error {
        case .accessGroupNotAllowed, .noAccessGroups, .invalidSpecification: return Status.usage
        case .invalidItem: return Status.dataError
        }
    case let error as SQLiteStoreError:
        switch error {
        case .notATokenCacheStore, .newerSchema: return Status.dataError
        case .sqlite(let sqlite) where sqlite.code == 26 /* SQLITE_NOTADB */ || sqlite.code == 11 /* SQLITE_CORRUPT */:
            return Status.dataError
        case .sqlite, .cannotCreate: return Status.ioError
        }
    case let error as SecretServiceError:
        if case .corruptPartition = error { return Status.dataError }
        return Status.ioError
    case let error as EncryptionError:
        switch error {
        case .authenticationFailed, .sealedWithAnotherKey, .unsupportedEnvelope, .malformedEnvelope: return Status.dataError
        case .keyUnavailable, .storeOpenedWithoutKey, .malformedKey, .sealFailed, .keyFile: return Status.ioError
        }
    case is KeychainItemsFormatError, is SchemaError:
        return Status.dataError
    case let error as InterchangeError:
        return error.isDataError ? Status.dataError : Status.ioError
    case let error as TokenCacheError:
        switch error {
        case .invalidRequest: return Status.usage
        case .invalidTokenResponse: return Status.dataError
        }
    default:
        return Status.ioError
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("tokencache: \(message)\n".utf8))
}

func printOutput(_ data: Data) {
    FileHandle.standardOutput.write(data)
}

/// Prints a JSON value, pretty-printed with sorted keys, and a newline.
func printJSON(_ value: JSONValue) {
    printOutput(value.serialized(sortingKeys: true) + Data("\n".utf8))
}
