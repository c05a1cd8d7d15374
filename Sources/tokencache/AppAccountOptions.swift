import ArgumentParser

/// The app and the account a command acts for: `--client-id` and `--account`, both required.
struct AppAccountOptions: ParsableArguments {
    @Option(help: "The app's client id.")
    var clientId: String

    @Option(help: "The account's home account identifier (uid.utid).")
    var account: String
}
