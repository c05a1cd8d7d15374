import ArgumentParser

struct Lookup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find one token the way an auth library would. Exits 1 when none matches.",
        subcommands: [LookupAccessToken.self, LookupRefreshToken.self])
}
