import Foundation

/// Shared by the tests that hold a fast payload reader to the full one: the text of a generated
/// payload, and the corruptions applied to it.
public enum JSONPayloadMutation {
    /// `members` (key, JSON value text) as one object, shuffled, now and then with white space, a
    /// trailing comma, bytes after the object or a byte-order mark (what only the full read takes).
    public static func object(_ members: [(String, String)], using generator: inout SplitMix64) -> Data {
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &generator) < percent }
        var members = members
        if chance(5), let first = members.first { members.append(first) }
        members.shuffle(using: &generator)
        let space = chance(20) ? [" ", "\n", "\t", "\r\n "].randomElement(using: &generator)! : ""
        var text = "{" + space + members.map { "\"\($0.0)\"\(space):\(space)\($0.1)" }.joined(separator: "," + space) + space
        if chance(3) { text += "," }
        text += "}" + (chance(10) ? [" ", "\n", " x", "}"].randomElement(using: &generator)! : "")
        return Data(((chance(2) ? "\u{FEFF}" : "") + text).utf8)
    }

    /// `bytes` with one to three bytes replaced, removed or inserted (which, by `round`), from an
    /// alphabet of JSON's structural characters and invalid bytes.
    public static func corrupted(_ bytes: [UInt8], round: Int, using generator: inout SplitMix64) -> [UInt8] {
        let alphabet = Array("{}[]\",:\\ 0123456789-+.eEtrufalsn<>".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var bytes = bytes
        for _ in 0..<(1 + round % 3) where !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch round % 3 {
            case 0: bytes[position] = alphabet.randomElement(using: &generator)!
            case 1: bytes.remove(at: position)
            default: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
            }
        }
        return bytes
    }
}
