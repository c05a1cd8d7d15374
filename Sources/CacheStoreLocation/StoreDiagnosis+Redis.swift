import CacheStoreRedis

extension StoreDiagnosis {
    /// A Redis store: server, version, cluster state, tracking, partitions, key source and TLS, as
    /// ``RedisDiagnosis`` finds them (nothing written, no key created).
    static func redisBackend(_ findings: inout Findings) -> [Check] {
        guard case .redis(let configuration) = findings.specification else { return [] }
        let diagnosis = RedisDiagnosis.diagnose(configuration, accessGroups: findings.accessGroups, environment: findings.environment)
        return diagnosis.facts.map {
            Check(name: $0.name, verdict: Verdict(rawValue: $0.outcome.rawValue) ?? .problem, detail: $0.detail, remedy: $0.fix)
        }
    }
}
