/// A small command-line parser following swift-argument-parser's conventions:
/// kebab-case long options, `--opt value` and `--opt=value`, short aliases,
/// `--` ends options, repeated options keep the last value (every value, in
/// order, is also kept in `lists` for options that collect several).

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
    /// Option values by primary spelling (the last one when repeated).
    var values: [String: String] = [:]
    /// Every value of each option, in command-line order.
    var lists: [String: [String]] = [:]
    /// Flags present, by primary spelling.
    var flags: Set<String> = []
    /// Arguments that are not options, in order.
    var positionals: [String] = []

    /// The value of `key`, when given.
    subscript(_ key: String) -> String? { values[key] }
}

/// Parses `arguments` (without the program name) against `specs`.
func parseArguments(_ arguments: [String], specs: [OptionSpec]) throws -> ParsedArguments {
    var lookup: [String: OptionSpec] = [:]
    for spec in specs { for name in spec.names { lookup[name] = spec } }
    var parsed = ParsedArguments()
    var i = 0
    var optionsEnded = false
    while i < arguments.count {
        let arg = arguments[i]
        i += 1
        if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
            parsed.positionals.append(arg)
            continue
        }
        if arg == "--" { optionsEnded = true; continue }
        var name = arg
        var inline: String?
        if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
            name = String(arg[..<eq])
            inline = String(arg[arg.index(after: eq)...])
        }
        guard let spec = lookup[name] else {
            throw UsageError(description: "unknown option '\(name)'")
        }
        if spec.valueName == nil {
            guard inline == nil else { throw UsageError(description: "option '\(name)' takes no value") }
            parsed.flags.insert(spec.key)
            continue
        }
        let value: String
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
