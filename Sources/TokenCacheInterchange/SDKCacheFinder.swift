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

/// What a look through the SDKs' places found.
public struct SDKCacheSurvey: Sendable {
    /// The caches found, in the order of ``SDKCacheSelection``'s places, each place once.
    public var found: [SDKCacheLocation]
    /// Places looked at where nothing was.
    public var missing: [SDKCachePlace]
    /// Files that exist but are empty: signal files of keyring caches.
    public var signalFiles: [SDKCachePlace]
    /// Caches already found under another layout (`auto` reads each once): GCM's user cache is
    /// Azure.Identity .NET's keyring item; Python's and Node's plaintext files share a path.
    public var foundAgain: [SDKCacheLocation]
}

/// Finds SDK caches.
public enum SDKCacheFinder {
    /// Looks in every place `selection` names: the keyring's item attributes (no secret is read,
    /// nothing is unlocked) and the files' existence.
    ///
    /// - Parameter keyring: `nil` leaves the keyring out (for `auto` where no Secret Service runs).
    public static func survey(
        _ selection: SDKCacheSelection, keyring: (any SDKKeyring)?, environment: [String: String]
    ) throws -> SDKCacheSurvey {
        var survey = SDKCacheSurvey(found: [], missing: [], signalFiles: [], foundAgain: [])
        var seenItems: Set<String> = []
        var seenFiles: Set<String> = []
        for (layout, keyringLayouts, includeFiles) in selection.places {
            if let keyring {
                for keyringLayout in keyringLayouts {
                    let items = try keyring.items(matching: keyringLayout.searchAttributes)
                    if items.isEmpty { survey.missing.append(SDKCachePlace(layout: layout, kind: .keyring(keyringLayout))) }
                    for item in items {
                        let location = SDKCacheLocation(layout: layout, place: .keyring(item, keyringLayout))
                        if seenItems.insert(item.id).inserted {
                            survey.found.append(location)
                        } else {
                            survey.foundAgain.append(location)
                        }
                    }
                }
            }
            guard includeFiles else { continue }
            for file in layout.files(environment: environment) {
                var info = stat()
                guard stat(file.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                    survey.missing.append(SDKCachePlace(layout: layout, kind: .file(file)))
                    continue
                }
                guard info.st_size > 0 else {
                    survey.signalFiles.append(SDKCachePlace(layout: layout, kind: .file(file)))
                    continue
                }
                let location = SDKCacheLocation(layout: layout, place: .file(file, size: Int(info.st_size)))
                guard seenFiles.insert(file.path).inserted else {
                    survey.foundAgain.append(location)
                    continue
                }
                survey.found.append(location)
            }
        }
        return survey
    }
}
