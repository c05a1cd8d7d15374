import ArgumentParser
import TokenCache

/// How a command that asks about one account, or lists them, opens the engine: by default reading
/// only what the question needs — the partitions of one account (the account's, its username's,
/// the app and account metadata), which answers in milliseconds whatever the store's size, or for
/// a listing the kinds of item it shows; `--whole-store` reads everything first (the same answer;
/// kept to compare the two).
struct TargetedLoading: ParsableArguments {
    @Flag(help: ArgumentHelp("Read the whole store before answering instead of only the partitions the question needs.", visibility: .hidden))
    var wholeStore = false

    /// The engine's loading mode for this command.
    var loading: TokenCache.Configuration.Loading {
        // One command, one question: the limit only has to hold what it reads.
        wholeStore ? .wholeStore : .partitions(limit: 1 << 20)
    }
}
