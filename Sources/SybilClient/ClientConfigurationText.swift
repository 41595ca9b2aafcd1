import SybilCore

/// Writes a changed ``ClientConfiguration`` back into the text of `config.toml` it was read
/// from by editing only the lines that changed: a changed value is replaced on its own line
/// (its indentation and trailing comment kept), a new field goes after its profile's last
/// field, a removed one loses its line, a new profile is appended, a removed profile's table
/// goes; comments, blank lines and the order of everything else stay as written. The result is
/// read back: unless it reads as exactly the wanted configuration (a value written over
/// several lines, a profile written as an inline or dotted table), the whole file is written
/// from the configuration instead, as before.
public enum ClientConfigurationText {
    /// One change to the file's lines: at line index `start` (0-based), `removing` lines are
    /// replaced by `inserting`.
    private struct Splice {
        var start: Int
        var removing: Int
        var inserting: [String]
    }

    /// Why the text cannot be edited in place.
    private struct NotInPlace: Error {}

    /// `text` (a `config.toml` that reads as some configuration) changed to read as `desired`.
    public static func edit(_ text: String, to desired: ClientConfiguration) -> String {
        guard let edited = try? inPlace(text, desired),
            (try? ClientConfiguration(parsing: edited)) == desired
        else { return desired.formatted() }
        return edited
    }

    private static func inPlace(_ text: String, _ desired: ClientConfiguration) throws -> String {
        let document = try TOMLDocument(parsing: text)
        let current = try ClientConfiguration(parsing: text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var splices: [Splice] = []
        let places = document.places
        // default_profile
        if current.defaultProfile != desired.defaultProfile {
            let line = desired.defaultProfile.map { "default_profile = " + TOMLDocument.value(.string($0)) }
            switch (places[["default_profile"]], line) {
            case (let place?, let line?): splices.append(try replacing(place, in: lines, with: line))
            case (let place?, nil): splices.append(Splice(start: place.line - 1, removing: 1, inserting: []))
            case (nil, let line?):
                let header = lines.firstIndex { $0.drop(while: \.isWhitespace).hasPrefix("[") } ?? lines.count
                splices.append(
                    Splice(start: header, removing: 0, inserting: header < lines.count ? [line, ""] : [line]))
            case (nil, nil): break
            }
        }
        // Removed and changed profiles.
        for old in current.profiles {
            guard let new = desired.profile(named: old.name) else {
                splices.append(try removingTable(of: old.name, in: lines))
                continue
            }
            splices += try changes(from: old, to: new, places: places, lines: lines)
        }
        // New profiles, appended in order.
        var appended: [String] = []
        for profile in desired.profiles where current.profile(named: profile.name) == nil {
            var tables = TOMLDocument.Table()
            tables[profile.name] = .table(ClientConfiguration.fields(of: profile))
            var root = TOMLDocument.Table()
            root["profiles"] = .table(tables)
            appended.append("")
            appended += TOMLDocument(root: root).formatted().split(separator: "\n").map(String.init)
        }
        if !appended.isEmpty {
            // Before the empty piece after the file's last newline; one blank line before each.
            let endsWithNewline = lines.last == ""
            let at = endsWithNewline ? lines.count - 1 : lines.count
            if at == 0 || lines[at - 1].allSatisfy(\.isWhitespace) { appended.removeFirst() }
            splices.append(Splice(start: at, removing: 0, inserting: endsWithNewline ? appended : appended + [""]))
        }
        // Applied from the bottom up, so each splice's line numbers still hold; at one line, the
        // replacement before the insertion.
        var edited = lines
        for splice in splices.sorted(by: { ($0.start, $0.removing) > ($1.start, $1.removing) }) {
            guard splice.start + splice.removing <= edited.count else { throw NotInPlace() }
            edited.replaceSubrange(splice.start..<(splice.start + splice.removing), with: splice.inserting)
        }
        return edited.joined(separator: "\n")
    }

    /// The splices that change profile `old`'s fields into `new`'s.
    private static func changes(
        from old: ClientProfile, to new: ClientProfile, places: [[String]: TOMLDocument.Place], lines: [String]
    ) throws -> [Splice] {
        let before = ClientConfiguration.fields(of: old)
        let after = ClientConfiguration.fields(of: new)
        guard before != after else { return [] }
        var splices: [Splice] = []
        var added: [String] = []
        for entry in after.entries where before[entry.key] != entry.value {
            let line = TOMLDocument.key(entry.key) + " = " + TOMLDocument.value(entry.value)
            if before[entry.key] == nil {
                added.append(line)
            } else {
                guard let place = places[["profiles", old.name, entry.key]] else { throw NotInPlace() }
                splices.append(try replacing(place, in: lines, with: line))
            }
        }
        for entry in before.entries where after[entry.key] == nil {
            guard let place = places[["profiles", old.name, entry.key]] else { throw NotInPlace() }
            splices.append(Splice(start: place.line - 1, removing: 1, inserting: []))
        }
        if !added.isEmpty {
            let own = places.filter { $0.key.count == 3 && $0.key[0] == "profiles" && $0.key[1] == old.name }
            guard let last = own.values.map(\.line).max() else { throw NotInPlace() }
            let indent = String(lines[last - 1].prefix(while: { $0 == " " || $0 == "\t" }))
            splices.append(Splice(start: last, removing: 0, inserting: added.map { indent + $0 }))
        }
        return splices
    }

    /// The key's line with its value (starting at `place`) replaced by `line`'s: the
    /// indentation and a trailing comment are kept.
    private static func replacing(_ place: TOMLDocument.Place, in lines: [String], with line: String) throws
        -> Splice
    {
        guard place.line >= 1, place.line <= lines.count else { throw NotInPlace() }
        let old = Array(lines[place.line - 1].unicodeScalars)
        let indent = String(String.UnicodeScalarView(old.prefix(while: { $0 == " " || $0 == "\t" })))
        var end = commentStart(old, from: place.column - 1) ?? old.count
        while end > 0, old[end - 1] == " " || old[end - 1] == "\t" || old[end - 1] == "\r" { end -= 1 }
        let tail = String(String.UnicodeScalarView(old[end...]))
        return Splice(start: place.line - 1, removing: 1, inserting: [indent + line + tail])
    }

    /// Where a `#` comment starts on a line, looking from `start` and skipping quoted text.
    private static func commentStart(_ line: [Unicode.Scalar], from start: Int) -> Int? {
        var quote: Unicode.Scalar?
        var index = max(0, start)
        while index < line.count {
            let scalar = line[index]
            if let open = quote {
                if open == "\"", scalar == "\\" {
                    index += 1
                } else if scalar == open {
                    quote = nil
                }
            } else if scalar == "\"" || scalar == "'" {
                quote = scalar
            } else if scalar == "#" {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The lines of profile `name`'s table: the comment lines right above its `[profiles.NAME]`
    /// header, the header, its sub-tables and blank lines up to the next table (leaving the
    /// comments written just above that one).
    private static func removingTable(of name: String, in lines: [String]) throws -> Splice {
        let names = Set([name, "\"\(name)\"", "'\(name)'"])
        func header(_ line: String) -> [String]? {
            let trimmed = line.filter { $0 != " " && $0 != "\t" && $0 != "\r" }
            guard trimmed.hasPrefix("["), !trimmed.hasPrefix("[["), let close = trimmed.lastIndex(of: "]") else {
                return nil
            }
            return trimmed[trimmed.index(after: trimmed.startIndex)..<close].split(separator: ".").map(String.init)
        }
        guard
            let start = lines.firstIndex(where: { line in
                header(line).map { $0.count == 2 && $0[0] == "profiles" && names.contains($0[1]) } ?? false
            })
        else { throw NotInPlace() }
        var end = start + 1
        while end < lines.count {
            if let path = header(lines[end]), !(path.count > 2 && path[0] == "profiles" && names.contains(path[1])) {
                break
            }
            end += 1
        }
        if end < lines.count {
            while end - 1 > start, lines[end - 1].drop(while: \.isWhitespace).hasPrefix("#") { end -= 1 }
        }
        // The comment lines right above its header are about it and go with it.
        var first = start
        while first > 0, lines[first - 1].drop(while: \.isWhitespace).hasPrefix("#") { first -= 1 }
        return Splice(start: first, removing: end - first, inserting: [])
    }
}
