/// Shell completion scripts made from the same option tables as `--help`
/// (`StackCommand.specs`, each subcommand's `specs`), as
/// swift-argument-parser's `--generate-completion-script` does.
enum CompletionScript {
    /// The shells a script can be made for.
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    /// What an option's value completes to.
    enum ValueKind: Equatable {
        /// No value: a flag.
        case none
        /// A file or folder name.
        case file
        /// One of these words.
        case choices([String])
        /// Free text (a number, a size): nothing to offer.
        case free
    }

    /// The script for `shell`.
    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: return bash()
        case .zsh: return zsh()
        case .fish: return fish()
        }
    }

    /// What `spec`'s value completes to: a placeholder naming a file or
    /// folder gives file names; allowed words come from the placeholder
    /// (`line|json|none`) or, failing that, from the first run of
    /// `a | b | c` in the help (`firstAlternation`); anything else is free text.
    static func valueKind(_ spec: OptionSpec) -> ValueKind {
        guard let name = spec.valueName else { return .none }
        if name.contains("file") || name.contains("folder") { return .file }
        let fromName = name.split(separator: "|").map(String.init)
        if fromName.count >= 2, fromName.allSatisfy(isWord) { return .choices(fromName) }
        if let run = firstAlternation(in: spec.help) { return .choices(run) }
        return .free
    }

    /// A completable word: a number (`8`), or two or more letters, digits
    /// or dashes starting with a letter or digit (a lone letter such as
    /// `N` is a placeholder).
    private static func isWord(_ s: String) -> Bool {
        guard !s.isEmpty, s.first != "-", s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return false }
        return s.count >= 2 || s.allSatisfy(\.isNumber)
    }

    /// The words of the first `a | b | c` run in `text`, parenthesised
    /// remarks left out (`score (higher is better) | fwhm (lower)`), or nil.
    private static func firstAlternation(in text: String) -> [String]? {
        var plain = ""
        var depth = 0
        for c in text {
            if c == "(" { depth += 1 } else if c == ")" { depth = max(0, depth - 1) } else if depth == 0 { plain.append(c) }
        }
        let tokens = plain.split(separator: " ").map(String.init)
        for i in tokens.indices where i + 2 < tokens.count && tokens[i + 1] == "|" && isWord(tokens[i]) {
            var run = [tokens[i]]
            var j = i + 2
            while j < tokens.count {
                let word = tokens[j].trimmingTrailing(";,:")
                guard isWord(word) else { break }
                run.append(word)
                // A word that carried punctuation ends the run.
                guard word == tokens[j], j + 1 < tokens.count, tokens[j + 1] == "|" else { break }
                j += 2
            }
            if run.count >= 2 { return run }
        }
        return nil
    }

    /// Every spelling of every option in `specs`.
    private static func names(_ specs: [OptionSpec]) -> [String] { specs.flatMap(\.names) }

    /// The start of `help` up to its first `(`, `;` or `:`, at most 70 characters, for menus.
    static func summary(_ help: String) -> String {
        var text = String(help.prefix { $0 != "(" && $0 != ";" && $0 != ":" }).trimmingTrailing(" ,")
        if text.isEmpty { text = help }
        return text.count > 70 ? String(text.prefix(69)) + "…" : text
    }

    // MARK: bash

    private static func bash() -> String {
        var out = """
        # bash completion for stack, made by `stack --generate-completion-script bash`.
        # Load with: source <(stack --generate-completion-script bash)

        _stack_values() {
            # $1: the option before the word; prints "files", "none" or the allowed words.
            case "$1" in

        """
        var seen = Set<String>()
        for spec in StackCommand.specs + Subcommands.all.flatMap(\.specs) where spec.valueName != nil {
            let key = spec.names.joined(separator: "|")
            guard seen.insert(key).inserted else { continue }
            let answer: String
            switch valueKind(spec) {
            case .file: answer = "files"
            case .choices(let words): answer = words.joined(separator: " ")
            case .free, .none: answer = "none"
            }
            out += "        \(key)) echo '\(answer)' ;;\n"
        }
        out += """
                *) echo '' ;;
            esac
        }

        _stack() {
            local cur prev opts subcommand="" values
            cur="${COMP_WORDS[COMP_CWORD]}"
            prev="${COMP_WORDS[COMP_CWORD-1]}"
            COMPREPLY=()
            if [[ $COMP_CWORD -gt 1 ]]; then subcommand="${COMP_WORDS[1]}"; fi
            case "$subcommand" in

        """
        for entry in Subcommands.all {
            out += "        \(entry.name)) opts='\(names(entry.specs).joined(separator: " "))' ;;\n"
        }
        out += """
                *) opts='\(names(StackCommand.specs).joined(separator: " "))' ;;
            esac
            if [[ $COMP_CWORD -gt 1 ]]; then
                values="$(_stack_values "$prev")"
                if [[ "$values" == files ]]; then
                    COMPREPLY=( $(compgen -f -- "$cur") )
                    return 0
                elif [[ "$values" == none ]]; then
                    return 0
                elif [[ -n "$values" ]]; then
                    COMPREPLY=( $(compgen -W "$values" -- "$cur") )
                    return 0
                fi
            fi
            if [[ "$cur" == -* ]]; then
                COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
                return 0
            fi
            if [[ $COMP_CWORD -eq 1 ]]; then
                COMPREPLY=( $(compgen -W '\(Subcommands.all.map(\.name).joined(separator: " "))' -- "$cur") )
            fi
            COMPREPLY+=( $(compgen -f -- "$cur") )
        }
        complete -o filenames -F _stack stack

        """
        return out
    }

    // MARK: zsh

    private static func zsh() -> String {
        func arguments(_ specs: [OptionSpec]) -> String {
            specs.map { spec in
                let help = "[" + zshEscaped(summary(spec.help)) + "]"
                let value: String
                switch valueKind(spec) {
                case .none: value = ""
                case .file: value = ":\(spec.valueName!):_files"
                case .choices(let words): value = ":\(zshEscaped(spec.valueName!)):(\(words.joined(separator: " ")))"
                case .free: value = ":\(zshEscaped(spec.valueName!)): "
                }
                if spec.names.count == 1 { return "    '\(spec.names[0])\(help)\(value)'" }
                let group = "(" + spec.names.joined(separator: " ") + ")"
                return "    '\(group)'{\(spec.names.joined(separator: ","))}'\(help)\(value)'"
            }.joined(separator: " \\\n")
        }
        var out = """
        #compdef stack
        # zsh completion for stack, made by `stack --generate-completion-script zsh`.
        # Install as _stack in a folder of $fpath.

        _stack() {
            if (( CURRENT > 2 )); then
                case ${words[2]} in

        """
        for entry in Subcommands.all {
            out += "            \(entry.name))\n                words=(${words[1]} ${words[3,-1]}); (( CURRENT-- ))\n"
            out += "                _arguments -s \\\n\(arguments(entry.specs)) \\\n    '*:file:_files'\n                return ;;\n"
        }
        out += """
                esac
            fi
            if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then
                compadd -- \(Subcommands.all.map(\.name).joined(separator: " "))
            fi
            _arguments -s \\
        \(arguments(StackCommand.specs)) \\
            '*:frame:_files'
        }

        _stack "$@"

        """
        return out
    }

    /// `text` safe inside a single-quoted zsh `_arguments` spec.
    private static func zshEscaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "'": out += "'\\''"
            case "[", "]", ":", "\\": out += "\\" + String(c)
            default: out.append(c)
            }
        }
        return out
    }

    // MARK: fish

    private static func fish() -> String {
        let subcommands = Subcommands.all.map(\.name).joined(separator: " ")
        var out = """
        # fish completion for stack, made by `stack --generate-completion-script fish`.
        # Install as ~/.config/fish/completions/stack.fish

        complete -c stack -n '__fish_use_subcommand' -F

        """
        for entry in Subcommands.all {
            out += "complete -c stack -n '__fish_use_subcommand' -f -a \(entry.name) -d '\(fishEscaped(entry.abstract))'\n"
        }
        func lines(_ specs: [OptionSpec], condition: String) -> String {
            specs.map { spec in
                var line = "complete -c stack -n '\(condition)'"
                for name in spec.names {
                    line += name.hasPrefix("--") ? " -l \(name.dropFirst(2))" : " -s \(name.dropFirst())"
                }
                switch valueKind(spec) {
                case .none: break
                case .file: line += " -r -F"
                case .choices(let words): line += " -x -a '\(words.joined(separator: " "))'"
                case .free: line += " -x"
                }
                return line + " -d '\(fishEscaped(summary(spec.help)))'\n"
            }.joined()
        }
        out += lines(StackCommand.specs, condition: "not __fish_seen_subcommand_from \(subcommands)")
        for entry in Subcommands.all {
            out += "complete -c stack -n '__fish_seen_subcommand_from \(entry.name)' -F\n"
            out += lines(entry.specs, condition: "__fish_seen_subcommand_from \(entry.name)")
        }
        return out
    }

    /// `text` safe inside a single-quoted fish string.
    private static func fishEscaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("'", with: "\\'")
    }
}
