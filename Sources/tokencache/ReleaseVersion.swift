import TokenCacheVersion

extension TokenCacheCommand {
    /// What `tokencache --version` prints: the release version of the TokenCacheVersion module.
    static let releaseVersion = "\(tokencacheVersion)"
}
