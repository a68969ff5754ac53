/// A small command-line parser following swift-argument-parser's conventions:
/// kebab-case long options, `--opt value` and `--opt=value`, short aliases,
/// `--` ends options, repeated options keep the last value (every value, in
/// order, is also kept in `lists` for options that collect several).
///
/// Arguments are parsed as the bytes the program was given (`FilePath`s),
/// not as `String`s: a file name need not be UTF-8, and `String` would
/// replace its other bytes. Option names are ASCII; a value is turned into
/// text only where the option wants text.

import Stacker

/// One option the parser accepts.
struct OptionSpec {
    /// All spellings, long first (`["--output", "-o"]`).
    let names: [String]
    /// The value's placeholder in help (`FILE`), or nil for a flag.
    let valueName: String?
    /// One line of help (allowed values and default included).
    let help: String

    /// The primary (first) spelling, used as the key of parsed values.
    var key: String { names[0] }
}

/// A command-line mistake: printed with the usage line, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    /// What is wrong, as a sentence.
    let description: String
}

/// The parsed command line.
struct ParsedArguments {
    /// Option values by primary spelling (the last one when repeated), as given.
    var values: [String: FilePath] = [:]
    /// Every value of each option, in command-line order, as given.
    var lists: [String: [FilePath]] = [:]
    /// Flags present, by primary spelling.
    var flags: Set<String> = []
    /// Arguments that are not options, in order, as given.
    var positionals: [FilePath] = []

    /// The value of `key` as text, when given (bytes that are not UTF-8
    /// written as `\xHH`, as `FilePath.description` does).
    subscript(_ key: String) -> String? { values[key]?.description }

    /// The value of `key` made by `convert`, or nil when the option is not
    /// given; a `UsageError` saying `message(value)` when it does not convert.
    func value<T>(_ key: String, _ convert: (String) -> T?, else message: (String) -> String) throws -> T? {
        guard let text = self[key] else { return nil }
        guard let value = convert(text) else { throw UsageError(description: message(text)) }
        return value
    }
}

/// Parses `arguments` (without the program name) against `specs`.
func parseArguments(_ arguments: [FilePath], specs: [OptionSpec]) throws -> ParsedArguments {
    var lookup: [String: OptionSpec] = [:]
    for spec in specs { for name in spec.names { lookup[name] = spec } }
    let dash = UInt8(ascii: "-")
    var parsed = ParsedArguments()
    var i = 0
    var optionsEnded = false
    while i < arguments.count {
        let arg = arguments[i]
        i += 1
        if optionsEnded || arg == "-" || arg.bytes.first != dash {
            parsed.positionals.append(arg)
            continue
        }
        if arg == "--" { optionsEnded = true; continue }
        var name = arg.description
        var inline: FilePath?
        if arg.bytes.starts(with: [dash, dash]), let eq = arg.bytes.firstIndex(of: UInt8(ascii: "=")) {
            name = FilePath(bytes: arg.bytes[..<eq]).description
            inline = FilePath(bytes: arg.bytes[(eq + 1)...])
        }
        guard let spec = lookup[name] else {
            throw UsageError(description: "unknown option '\(name)'")
        }
        if spec.valueName == nil {
            guard inline == nil else { throw UsageError(description: "option '\(name)' takes no value") }
            parsed.flags.insert(spec.key)
            continue
        }
        let value: FilePath
        if let inline {
            value = inline
        } else {
            guard i < arguments.count else {
                throw UsageError(description: "missing value for '\(name) <\(spec.valueName!)>'")
            }
            value = arguments[i]
            i += 1
        }
        parsed.values[spec.key] = value
        parsed.lists[spec.key, default: []].append(value)
    }
    return parsed
}

/// The left column of an option's help line: `-o, --output <file>`.
func optionLabel(_ spec: OptionSpec) -> String {
    let names = spec.names.reversed().joined(separator: ", ")
    return spec.valueName.map { "\(names) <\($0)>" } ?? names
}

/// The help column that fits the longest label (at most 34).
func optionsColumn(_ specs: [OptionSpec]) -> Int {
    min(34, (specs.map { optionLabel($0).count }.max() ?? 0) + 2)
}

/// The OPTIONS section of help text: one aligned line (or more) per option,
/// help starting at `width` (default: fitted to these options).
func optionsHelp(_ specs: [OptionSpec], width: Int? = nil) -> String {
    let lefts = specs.map(optionLabel)
    let width = width ?? optionsColumn(specs)
    var out = ""
    for (left, spec) in zip(lefts, specs) {
        if left.count + 2 > width {
            out += "  \(left)\n" + String(repeating: " ", count: width + 2) + spec.help + "\n"
        } else {
            out += "  " + left + String(repeating: " ", count: width - left.count) + spec.help + "\n"
        }
    }
    return out
}
