import CacheStore
import Testing

@Suite struct ErrorCategoryTests {
    @Test func rawValuesAreTheCABIsStableCodes() {
        let codes = ErrorCategory.allCases.map { ($0, $0.rawValue) }
        #expect(codes.map(\.1) == [1, 2, 3, 4, 5, 6, 7])
        #expect(ErrorCategory(rawValue: 1) == .notFound)
        #expect(ErrorCategory(rawValue: 6) == .damaged)
        #expect(ErrorCategory(rawValue: 7) == .internal)
        #expect(ErrorCategory(rawValue: 0) == nil)
    }

    @Test func storeErrorsHaveTheirCategories() {
        #expect(CacheStoreError.accessGroupNotAllowed("x", allowed: ["g"]).category == .permission)
        #expect(CacheStoreError.noAccessGroups.category == .badInput)
        #expect(CacheStoreError.invalidItem(reason: "too large").category == .badInput)
        #expect(CacheStoreError.noAccessGroups.remedy == nil)
    }

    @Test func anUncategorizedErrorIsInternal() {
        struct Other: Error {}
        #expect(ErrorCategory(of: Other()) == .internal)
        #expect(ErrorCategory(of: CacheStoreError.noAccessGroups) == .badInput)
    }
}
