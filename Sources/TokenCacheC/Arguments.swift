import TokenCacheJSON

/// Reads the C arguments: NUL-terminated UTF-8 strings, JSON objects of documented members.
enum Arguments {
    /// The string `pointer` points at, or `nil` for NULL; invalid UTF-8 is bad input.
    static func optionalString(_ pointer: UnsafePointer<CChar>?, _ name: String) throws -> String? {
        guard let pointer else { return nil }
        guard let text = String(validatingCString: pointer) else { throw BadInput("\(name) is not valid UTF-8") }
        return text
    }

    static func string(_ pointer: UnsafePointer<CChar>?, _ name: String) throws -> String {
        guard let text = try optionalString(pointer, name) else { throw BadInput("\(name) is NULL") }
        return text
    }

    /// The JSON object `pointer` holds (`{}` for NULL when `optional`).
    static func object(_ pointer: UnsafePointer<CChar>?, _ name: String, optional: Bool = false) throws -> Members {
        guard let text = try optionalString(pointer, name) else {
            if optional { return Members(JSONObject(), name: name) }
            throw BadInput("\(name) is NULL")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text, allowTrailingCommas: false)
        } catch {
            throw BadInput("\(name) is not valid JSON: \(error)")
        }
        guard case .object(let object) = value else { throw BadInput("\(name) must be a JSON object, found \(value.kindName)") }
        return Members(object, name: name)
    }

    /// A JSON array of strings (`nil` for NULL).
    static func stringArray(_ pointer: UnsafePointer<CChar>?, _ name: String) throws -> [String]? {
        guard let text = try optionalString(pointer, name) else { return nil }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text, allowTrailingCommas: false)
        } catch {
            throw BadInput("\(name) is not valid JSON: \(error)")
        }
        guard case .array(let elements) = value else { throw BadInput("\(name) must be a JSON array of strings") }
        return try elements.map { element in
            guard case .string(let text) = element else { throw BadInput("\(name) must be a JSON array of strings") }
            return text
        }
    }
}

/// The members of a JSON object argument, read with their kinds checked; unknown members are bad
/// input where ``finish()`` is called.
struct Members {
    let object: JSONObject
    let name: String
    private var read: Set<String> = []

    init(_ object: JSONObject, name: String) {
        self.object = object
        self.name = name
    }

    mutating func string(_ member: String) throws -> String? {
        read.insert(member)
        switch object[member] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw BadInput("\(name): \"\(member)\" must be a string, found \(other.kindName)")
        }
    }

    mutating func required(_ member: String) throws -> String {
        guard let text = try string(member) else { throw BadInput("\(name): \"\(member)\" is required") }
        return text
    }

    mutating func bool(_ member: String) throws -> Bool? {
        read.insert(member)
        switch object[member] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?: throw BadInput("\(name): \"\(member)\" must be true or false, found \(other.kindName)")
        }
    }

    mutating func integer(_ member: String) throws -> Int64? {
        read.insert(member)
        switch object[member] {
        case nil, .null?: return nil
        case .number(let number)?:
            guard let value = Int64(exactly: number.doubleValue) ?? Int64(number.description) else {
                throw BadInput("\(name): \"\(member)\" must be an integer")
            }
            return value
        case let other?: throw BadInput("\(name): \"\(member)\" must be an integer, found \(other.kindName)")
        }
    }

    /// Scopes as a JSON array of strings or one space-separated string.
    mutating func scopes(_ member: String) throws -> [String]? {
        read.insert(member)
        switch object[member] {
        case nil, .null?: return nil
        case .string(let text)?: return text.split(whereSeparator: \.isWhitespace).map(String.init)
        case .array(let elements)?:
            return try elements.map { element in
                guard case .string(let scope) = element else { throw BadInput("\(name): \"\(member)\" must hold strings") }
                return scope
            }
        case let other?: throw BadInput("\(name): \"\(member)\" must be an array of strings, found \(other.kindName)")
        }
    }

    /// Fails on members not read.
    func finish() throws {
        if let unknown = object.keys.first(where: { !read.contains($0) }) {
            throw BadInput("\(name): unknown member \"\(unknown.prefix(80))\"")
        }
    }
}
