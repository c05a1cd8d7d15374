import ArgumentParser

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print items with their payloads decoded and secrets redacted: the store's, a cache file's (dump FILE) or an SDK's own cache (dump sdk).",
        discussion: """
            `dump FILE` and `dump sdk --from SOURCE` read what `import` would read and change nothing: \
            no store is opened or written.
            """,
        subcommands: [DumpItems.self, DumpSDK.self],
        defaultSubcommand: DumpItems.self)
}
