import Foundation
import Testing

import TokenCacheJSON
@testable import TokenCacheSchema

/// Parses a payload the way a foreign reader would and returns its root object.
func payloadObject(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
    let value = try JSONValue.parse(data, allowTrailingCommas: false)
    return try #require(value.objectValue, sourceLocation: sourceLocation)
}

/// Also checks the payload with Foundation's parser: a second, independent reader.
func foundationObject(_ data: Data) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// Whether every top-level member of the payload is a JSON string.
func allScalarsAreStrings(_ object: JSONObject) -> Bool {
    object.allSatisfy { member in
        switch member.value {
        case .string: true
        case .object, .array: true  // nested members (ext, wam_account_ids) are checked elsewhere
        default: false
        }
    }
}

extension Data {
    var utf8String: String { String(decoding: self, as: UTF8.self) }
}
