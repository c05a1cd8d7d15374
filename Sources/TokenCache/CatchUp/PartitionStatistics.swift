/// What partition loading mode did since the engine was made: counters for benchmarks and
/// diagnosis (the load benchmark prints them per request). Shared through `@_spi(Statistics)`; not
/// part of the engine's API.
@_spi(Statistics) public struct PartitionStatistics: Sendable, Hashable {
    /// Lookups answered by a need met before, without revalidating or loading anything.
    public var warmAnswers = 0
    /// Lookups answered by a need met before, right after a revalidation that kept it.
    public var revalidatedAnswers = 0
    /// Lookups and planned saves that revalidated and loaded (the slow path), attempts counted once each.
    public var slowPaths = 0
    /// Revalidations that found the store moved: by the partitions it named, or by dropping everything.
    public var revalidations = 0
    public var revalidationsDroppingAll = 0
    /// Loaded partitions re-read because the store named them as changed.
    public var partitionsReRead = 0
    /// Met needs forgotten (a partition of theirs changed, was evicted, or the store moved in a way
    /// that may change what they name).
    public var metNeedsDropped = 0
    /// Partitions read because a need or a plan named them and they were not loaded.
    public var partitionsLoaded = 0
    /// Partitions evicted to keep under the limit, and the evictions that dropped them.
    public var partitionsEvicted = 0
    public var evictions = 0
    /// Lookups started over because another thread revalidated meanwhile.
    public var lookupRetries = 0
    /// Planned saves started over: the store moved since the revalidation (stale), or the plan
    /// touched partitions not loaded (missing).
    public var staleRetries = 0
    public var missingRetries = 0
    /// Retries that paused first (see `pauseBeforeRetry`).
    public var pauses = 0
    /// Calls answered or planned on a read of the whole store: the last resort.
    public var wholeReads = 0

    public init() {}
}
