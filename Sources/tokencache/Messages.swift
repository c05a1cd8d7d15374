import CacheStoreLocation
import TokenCacheInterchange

/// An error as one line for stderr: the library's sentence, then what to change in the CLI's own
/// terms (its flags and variables) where the library gives advice.
func describe(_ error: any Error) -> String {
    guard let advice = StoreAdvice(for: error) else { return String(describing: error) }
    switch advice {
    case .allowAccessGroup:
        return "\(error); add it with --access-group or TOKENCACHE_ACCESS_GROUPS"
    case .chooseAnotherStore:
        return "\(error); choose another store with --store sqlite:PATH"
    case .useSQLiteWithKeyFile:
        return "\(error); or use --store sqlite:PATH with TOKENCACHE_KEY=file"
    }
}

/// The skipped or adjusted entries of an import or export, one indented line each, at most `limit`.
func issueLines(_ label: String, _ issues: [ImportIssue], limit: Int = 20) -> String {
    var text = ""
    for issue in issues.prefix(limit) { text += "  \(label): \(issue)\n" }
    if issues.count > limit { text += "  … and \(issues.count - limit) more \(label)\n" }
    return text
}
