#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whole seconds since 1970 as the schema keeps them, and the only conversions between them and
/// `Date` that code reading files may use.
///
/// A timestamp read from a payload or an archive is accepted only within ``range`` (the years 1 to
/// 9999), so every later computation on it (adding a buffer, negating it, formatting it, turning it
/// into a `Date` and back) stays far from `Int64`'s limits; arithmetic on trusted inputs (a clock, a
/// server's `expires_in`) saturates at the ends of the range instead of trapping.
public enum UnixTime {
    /// 0001-01-01T00:00:00Z through 9999-12-31T23:59:59Z.
    public static let range: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// What messages say the range is.
    public static let rangeDescription = "seconds since 1970 within the years 1 to 9999"

    /// `date` in whole seconds (truncated toward zero), or `nil` when it is not finite or outside ``range``.
    public static func seconds(_ date: Date) -> Int64? {
        let value = date.timeIntervalSince1970
        guard value.isFinite, value >= Double(range.lowerBound), value < Double(range.upperBound) + 1 else { return nil }
        return Int64(value.rounded(.towardZero))
    }

    /// `date` in whole seconds, clamped into ``range``; a date that is not a number gives 0.
    public static func clampedSeconds(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970
        guard !value.isNaN else { return 0 }
        if value <= Double(range.lowerBound) { return range.lowerBound }
        if value >= Double(range.upperBound) { return range.upperBound }
        return Int64(value.rounded(.towardZero))
    }

    /// `seconds + offset`, saturating at the ends of ``range``.
    public static func adding(_ offset: Int64, to seconds: Int64) -> Int64 {
        let (sum, overflow) = seconds.addingReportingOverflow(offset)
        if overflow { return offset > 0 ? range.upperBound : range.lowerBound }
        return clamp(sum)
    }

    /// `seconds` moved into ``range``.
    public static func clamp(_ seconds: Int64) -> Int64 {
        min(max(seconds, range.lowerBound), range.upperBound)
    }

    /// Whether `date` is a finite date within ``range``.
    public static func isValid(_ date: Date) -> Bool { seconds(date) != nil }
}
