/// A store that can hold damaged items (see ``DamagedItem``: rows a read skips because they cannot
/// be trusted or read), and reports and removes them. A store that is not one holds none.
public protocol DamageReportingStore: ItemStore {
    /// How many damaged items the most recent read of the whole store skipped. Cheap: no read of
    /// its own. A linked library can log it after the engine has loaded.
    func damagedItemCount() -> Int

    /// Every damaged item of the open access groups, by identity and reason: a full read.
    func damagedItems() throws -> [DamagedItem]

    /// Removes every damaged item of the open access groups in one atomic batch; returns how many.
    func removeDamagedItems() throws -> Int
}
