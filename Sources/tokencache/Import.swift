import ArgumentParser

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a token cache into the store: a file (the default), or an SDK's own cache (import sdk).",
        subcommands: [ImportFile.self, ImportSDK.self],
        defaultSubcommand: ImportFile.self)
}
