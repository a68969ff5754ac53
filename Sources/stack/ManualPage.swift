/// The `stack.1` manual page, in roff (man macros), made from the same
/// option tables as `--help`: `stack --generate-manual > stack.1`
/// (`make man` writes `.build/stack.1`; `make install` installs it).
enum ManualPage {
    /// The whole page.
    static var text: String {
        var out = """
        .TH STACK 1 "" "stack \(StackCommand.version)" "User Commands"
        .SH NAME
        stack \\- \(escaped(lowercasingFirst(StackCommand.abstract)))
        .SH SYNOPSIS
        .B stack
        [\\fIoptions\\fR] \\fIframe\\fR|\\fIfolder\\fR .\\|.\\|.

        """
        for entry in Subcommands.all {
            out += ".br\n.B stack \(entry.name)\n[\\fIoptions\\fR] .\\|.\\|.\n"
        }
        out += ".SH DESCRIPTION\n\(paragraph(StackCommand.discussion))\n"
        out += ".SH ARGUMENTS\n" + items([StackCommand.argumentSpec])
        out += ".SH OPTIONS\n" + items(StackCommand.specs)
        for entry in Subcommands.all {
            out += ".SH \(escaped(entry.name.uppercased())) SUBCOMMAND\n\(paragraph(entry.abstract))\n" + items(entry.specs)
            out += ".PP\nExit status: \(paragraph(entry.exitCodes))\n"
        }
        out += ".SH EXIT STATUS\n\(paragraph(StackCommand.exitCodes))\n"
        out += """
        .SH EXAMPLES
        .nf
        stack \\-\\-mode median \\-o clean.jpg burst/*.jpg
        stack \\-\\-mode median \\-o out/ burst/
        stack compare out/stacked.png \\-\\-truth scene/truth.png \\-\\-mask scene/mask.png
        .fi
        .SH SEE ALSO
        The README and docs/architecture.md of the stack sources.

        """
        return out
    }

    /// One `.TP` entry per option: its spellings in bold, the value in italics, then its help.
    private static func items(_ specs: [OptionSpec]) -> String {
        specs.map { spec in
            let names = spec.names.reversed().map { "\\fB\(escaped($0))\\fR" }.joined(separator: ", ")
            let value = spec.valueName.map { " \\fI\(escaped($0))\\fR" } ?? ""
            return ".TP\n\(names)\(value)\n\(paragraph(spec.help))\n"
        }.joined()
    }

    /// `text` as one filled paragraph: its lines joined, roff-escaped, and
    /// never starting a line with a control character.
    private static func paragraph(_ text: String) -> String {
        let joined = text.split(separator: "\n").map { $0.trimmingCharacters(" ") }.joined(separator: " ")
        return "\\&" + escaped(joined)
    }

    /// `text` with roff's special characters written out: `\` as `\e`,
    /// `-` as `\-`, and every character beyond ASCII as `\[uXXXX]`, so the
    /// page reads the same with or without a UTF-8 preprocessor.
    static func escaped(_ text: String) -> String {
        var out = ""
        for u in text.unicodeScalars {
            switch u {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case _ where u.isASCII: out.unicodeScalars.append(u)
            default:
                let hex = String(u.value, radix: 16, uppercase: true)
                out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            }
        }
        return out
    }

    private static func lowercasingFirst(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.lowercased() + String(s.dropFirst()).trimmingTrailing(".")
    }
}
