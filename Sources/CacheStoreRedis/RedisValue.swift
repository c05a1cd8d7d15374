import CHiredis
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A reply from Redis (RESP2), copied out of hiredis's reply object.
enum RedisValue: Sendable, Equatable {
    case string(Data)
    case status(String)
    case integer(Int64)
    case null
    case array([RedisValue])
    case error(String)

    init(_ reply: UnsafeMutablePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            self = .string(value.str.map { Data(bytes: $0, count: value.len) } ?? Data())
        case REDIS_REPLY_STATUS:
            self = .status(value.str.map { String(decoding: Data(bytes: $0, count: value.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_ERROR:
            self = .error(value.str.map { String(decoding: Data(bytes: $0, count: value.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_INTEGER:
            self = .integer(value.integer)
        case REDIS_REPLY_ARRAY:
            var elements: [RedisValue] = []
            elements.reserveCapacity(value.elements)
            for index in 0..<value.elements {
                if let element = value.element[index] { elements.append(RedisValue(element)) } else { elements.append(.null) }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    /// A short name of the reply's type, for ``RedisError/unexpectedReply(endpoint:operation:got:)``.
    var typeName: String {
        switch self {
        case .string: return "a bulk string"
        case .status(let text): return "the status '\(text.prefix(40))'"
        case .integer: return "an integer"
        case .null: return "nil"
        case .array(let elements): return "an array of \(elements.count)"
        case .error(let text): return "the error '\(text.prefix(80))'"
        }
    }

    /// The text of a bulk string or status reply.
    var text: String? {
        switch self {
        case .string(let data): return String(decoding: data, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }
}
