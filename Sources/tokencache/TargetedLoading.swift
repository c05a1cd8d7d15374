import ArgumentParser
import TokenCache

/// How a command that asks about one account opens the engine: by default reading only the
/// partitions the question needs (the account's, its username's, the app and account metadata),
/// which answers in milliseconds whatever the store's size; `--whole-store` reads everything first,
/// as listings do (the same answer; kept to compare the two).
struct TargetedLoading: ParsableArguments {
    @Flag(help: ArgumentHelp("Read the whole store before answering instead of only the partitions the question needs.", visibility: .hidden))
    var wholeStore = false

    /// The engine's loading mode for this command.
    var loading: TokenCache.Configuration.Loading {
        // One command, one question: the limit only has to hold what it reads.
        wholeStore ? .wholeStore : .partitions(limit: 1 << 20)
    }
}
