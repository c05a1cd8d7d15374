extension Dictionary {
    /// Removes the elements of the list under `key` that match, and the key when none is left: one
    /// hash of the key, the list changed in place (reading it out and writing it back copied it).
    mutating func removeAll<Element>(under key: Key, where matches: (Element) -> Bool) where Value == [Element] {
        guard let position = index(forKey: key) else { return }
        values[position].removeAll(where: matches)
        if values[position].isEmpty { remove(at: position) }
    }
}
