#include "cli/completion_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string_view>
#include <vector>

namespace cudacheck {

namespace {

// What a script needs to know of one option.
struct OptionSpec {
    std::vector<std::string> names;   // "--format", "-o"
    std::string description;          // its first line
    bool takes_value = false;
    std::vector<std::string> choices;  // {table,json,...} from CLI11's type name; empty: any value
};

// One command: the top level (name "") or a subcommand.
struct CommandSpec {
    std::string name;
    std::string description;
    std::vector<OptionSpec> options;
    std::vector<std::string> arguments;  // the choices of its positional argument, if it has some (completion's shells)
};

std::string first_line(std::string_view text) { return std::string(text.substr(0, text.find('\n'))); }

// CLI11 names a choice option's type "TEXT:{table,json,markdown}".
std::vector<std::string> choices_of(const std::string& type_name) {
    std::vector<std::string> choices;
    const auto open = type_name.find('{');
    const auto close = type_name.find('}', open);
    if (open == std::string::npos || close == std::string::npos) return choices;
    std::string_view list(type_name.data() + open + 1, close - open - 1);
    while (!list.empty()) {
        const auto comma = list.find(',');
        choices.emplace_back(list.substr(0, comma));
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return choices;
}

CommandSpec describe(const CLI::App& app, std::string name) {
    CommandSpec command{std::move(name), first_line(app.get_description()), {}, {}};
    for (const CLI::Option* option : app.get_options()) {
        if (option->get_positional()) {
            const std::vector<std::string> choices = choices_of(option->get_type_name());
            command.arguments.insert(command.arguments.end(), choices.begin(), choices.end());
            continue;
        }
        if (option->get_group().empty()) continue;  // hidden
        OptionSpec spec;
        for (const std::string& long_name : option->get_lnames()) spec.names.push_back("--" + long_name);
        for (const std::string& short_name : option->get_snames()) spec.names.push_back("-" + short_name);
        if (spec.names.empty()) continue;
        spec.description = first_line(option->get_description());
        spec.takes_value = option->get_items_expected_max() > 0;  // a flag expects none
        if (spec.takes_value) spec.choices = choices_of(option->get_type_name());
        command.options.push_back(std::move(spec));
    }
    return command;
}

// The top level, then each subcommand listed in --help, in that order.
std::vector<CommandSpec> commands_of(const CLI::App& app) {
    std::vector<CommandSpec> commands{describe(app, "")};
    for (const CLI::App* subcommand :
         app.get_subcommands([](const CLI::App* candidate) { return !candidate->get_group().empty(); }))
        commands.push_back(describe(*subcommand, subcommand->get_name()));
    return commands;
}

std::string joined(const std::vector<std::string>& words, std::string_view separator = " ") {
    std::string text;
    for (const std::string& word : words) text += (text.empty() ? "" : std::string(separator)) + word;
    return text;
}

// Inside single quotes in every one of the three shells.
std::string single_quoted(std::string_view text) {
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string bash_script(const std::vector<CommandSpec>& commands) {
    std::vector<std::string> subcommands;
    for (const CommandSpec& command : commands)
        if (!command.name.empty()) subcommands.push_back(command.name);
    std::string values;  // "sub:--option) choices"
    std::string words;  // per subcommand: its option names (and, at the top, the subcommands)
    for (const CommandSpec& command : commands) {
        std::vector<std::string> names;
        for (const OptionSpec& option : command.options) {
            names.insert(names.end(), option.names.begin(), option.names.end());
            if (!option.takes_value) continue;
            for (const std::string& name : option.names)
                values += option.choices.empty()
                              ? fmt::format("        {}:{}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n",
                                            command.name, name)
                              : fmt::format("        {}:{}) COMPREPLY=($(compgen -W {} -- \"$cur\")); return ;;\n",
                                            command.name, name, single_quoted(joined(option.choices)));
        }
        if (command.name.empty()) names.insert(names.end(), subcommands.begin(), subcommands.end());
        names.insert(names.end(), command.arguments.begin(), command.arguments.end());
        words += fmt::format("        {}) COMPREPLY=($(compgen -W {} -- \"$cur\")) ;;\n",
                             command.name.empty() ? "''" : command.name, single_quoted(joined(names)));
    }
    return fmt::format(R"(# bash completion for cudacheck, generated by `cudacheck completion bash`.
_cudacheck() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} sub='' i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${{COMP_WORDS[i]}} in
            {}) sub=${{COMP_WORDS[i]}}; break ;;
        esac
    done
    # The run options belong to the top level; `cudacheck run` takes them too.
    [ "$sub" = run ] && sub=''
    case "$sub:$prev" in
{}    esac
    case "$sub" in
{}    esac
    # Files where a subcommand takes them (inspect, diff, fleet, render), not where it takes a choice.
    [[ $cur != -* && $sub != '' && ${{#COMPREPLY[@]}} == 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
}}
complete -F _cudacheck cudacheck
)",
                       joined(subcommands, "|"), values, words);
}

// zsh's _arguments wants [ ] : \ escaped in descriptions.
std::string zsh_escaped(std::string_view text) {
    std::string escaped;
    for (const char c : text) {
        if (c == '[' || c == ']' || c == ':' || c == '\\') escaped += '\\';
        escaped += c == '\'' ? '"' : c;
    }
    return escaped;
}

std::string zsh_arguments(const CommandSpec& command) {
    std::string lines;
    for (const OptionSpec& option : command.options) {
        const std::string action = !option.takes_value      ? ""
                                   : option.choices.empty() ? ":value:_files"
                                                            : fmt::format(":value:({})", joined(option.choices));
        // '(--output -o)'{--output,-o}'[...]': one of the names, once; or '--strict[...]'.
        const std::string names = option.names.size() > 1
                                      ? fmt::format("'({})'{{{}}}'", joined(option.names), joined(option.names, ","))
                                      : "'" + option.names.front();
        lines += fmt::format("        {}[{}]{}' \\\n", names, zsh_escaped(option.description), action);
    }
    return lines;
}

std::string zsh_script(const std::vector<CommandSpec>& commands) {
    std::string described;
    std::string cases;
    for (const CommandSpec& command : commands) {
        if (command.name.empty()) continue;
        described += fmt::format("        '{}:{}'\n", command.name, zsh_escaped(command.description));
        const std::string argument =
            command.arguments.empty() ? "'*:file:_files'" : fmt::format("'1:argument:({})'", joined(command.arguments));
        cases += fmt::format("        {})\n            _arguments \\\n{}                {} ;;\n", command.name,
                             zsh_arguments(command), argument);
    }
    return fmt::format(R"(#compdef cudacheck
# zsh completion for cudacheck, generated by `cudacheck completion zsh`.
_cudacheck() {{
    local -a commands
    commands=(
{}    )
    local curcontext=$curcontext state line
    _arguments -C \
{}        '1: :->command' \
        '*:: :->arguments'
    case $state in
        command) _describe -t commands 'cudacheck command' commands ;;
        arguments)
            case $words[1] in
{}            esac ;;
    esac
}}
_cudacheck "$@"
)",
                       described, zsh_arguments(commands.front()), cases);
}

std::string fish_script(const std::vector<CommandSpec>& commands) {
    std::vector<std::string> subcommands;
    for (const CommandSpec& command : commands)
        if (!command.name.empty()) subcommands.push_back(command.name);
    std::string lines =
        "# fish completion for cudacheck, generated by `cudacheck completion fish`.\ncomplete -c cudacheck -f\n";
    for (const CommandSpec& command : commands) {
        const std::string condition = command.name.empty() ? "not __fish_seen_subcommand_from " + joined(subcommands)
                                                           : "__fish_seen_subcommand_from " + command.name;
        if (!command.name.empty())
            lines += fmt::format("complete -c cudacheck -n '__fish_use_subcommand' -a {} -d {}\n", command.name,
                                 single_quoted(command.description));
        if (!command.arguments.empty())
            lines += fmt::format("complete -c cudacheck -n {} -a {}\n", single_quoted(condition),
                                 single_quoted(joined(command.arguments)));
        for (const OptionSpec& option : command.options) {
            std::string names;
            for (const std::string& name : option.names)
                names += name.rfind("--", 0) == 0 ? " -l " + name.substr(2) : " -s " + name.substr(1);
            const std::string value = !option.takes_value      ? ""
                                      : option.choices.empty() ? " -r -F"
                                                               : " -x -a " + single_quoted(joined(option.choices));
            lines += fmt::format("complete -c cudacheck -n {}{}{} -d {}\n", single_quoted(condition), names, value,
                                 single_quoted(option.description));
        }
    }
    return lines;
}

}  // namespace

CLI::App* setup_completion(CLI::App& app, CompletionCommandOptions& options) {
    CLI::App* completion = app.add_subcommand(
        "completion", "Print a completion script for bash, zsh or fish (e.g. `source <(cudacheck completion bash)`)");
    completion->add_option("shell", options.shell, "bash, zsh or fish")
        ->required()
        ->check(CLI::IsMember({"bash", "zsh", "fish"}));
    return completion;
}

std::string completion_script(const CLI::App& app, const std::string& shell) {
    const std::vector<CommandSpec> commands = commands_of(app);
    if (shell == "zsh") return zsh_script(commands);
    if (shell == "fish") return fish_script(commands);
    return bash_script(commands);
}

}  // namespace cudacheck
