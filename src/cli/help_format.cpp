#include "cli/help_format.hpp"

#include "render/text_table.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <string_view>

namespace cudacheck {

namespace {

// Where option descriptions start: wide enough for the widest option with its value word
// ("  --run-timeout SECONDS", "  -o,--output FILE ...").
constexpr std::size_t option_column = 26;

// The word for an option's value where its upper-cased name would not say what it takes (the
// words docs/cli.md's synopsis uses); every other option shows its name upper-cased (FORMAT,
// LEVEL), as Python's argparse names a value by default.
std::string value_word(const CLI::Option* option) {
    static const std::map<std::string, std::string, std::less<>> words{
        {"output", "FILE"},      {"only", "IDS"},          {"skip", "IDS"},
        {"devices", "ORDINALS"}, {"timeout", "SECONDS"},   {"run-timeout", "SECONDS"},
        {"duration", "SECONDS"}, {"memory-limit", "MIB"},  {"python", "PATH"},
        {"expect", "POLICY"},    {"threshold", "PERCENT"}, {"color", "WHEN"},
        {"progress", "WHEN"}};
    const std::vector<std::string>& names = option->get_lnames();
    const std::string name = names.empty() ? option->get_name(false, false) : names.front();
    if (const auto known = words.find(name); known != words.end()) return known->second;
    std::string word;
    for (const char c : name) word += static_cast<char>(c == '-' ? '_' : std::toupper(static_cast<unsigned char>(c)));
    return word;
}

// `text` wrapped to the help's width, its later lines `indent` columns in.
std::string wrapped(std::string_view text, std::size_t first_used, std::size_t indent) {
    std::string out;
    // A description may hold its own line breaks: each line is wrapped on its own.
    for (const std::string& line : sys::split(std::string(text), '\n')) {
        const std::vector<std::string> lines =
            wrap_text(line, HelpFormatter::width, out.empty() ? first_used : indent, indent);
        if (!out.empty()) out += std::string(indent, ' ');
        for (std::size_t i = 0; i < lines.size(); ++i) out += (i > 0 ? "\n" : "") + lines[i];
        out += '\n';
    }
    return out;
}

}  // namespace

HelpFormatter::HelpFormatter() { column_width(option_column); }

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
    // The description, then the examples: what a reader wants first; then CLI11's
    // usage line, arguments, options and subcommands, and the exit codes.
    return make_description(app) + make_examples(app) + make_usage(app, std::move(name)) + make_positionals(app) +
           make_groups(app, mode) + make_subcommands(app, mode) + '\n' + make_footer(app);
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
    const std::string& description = app->get_description();
    return description.empty() ? std::string() : wrapped(description, 0, 0);
}

std::string HelpFormatter::make_examples(const CLI::App* app) const {
    const auto found = examples_.find(app->get_parent() == nullptr ? std::string() : app->get_name());
    if (found == examples_.end() || found->second.empty()) return {};
    // The comments line up after the longest command that leaves them room.
    constexpr std::size_t widest_command = 48;
    std::size_t column = 0;
    for (const auto& [command, what] : found->second)
        if (command.size() <= widest_command) column = std::max(column, command.size());
    column += 4;  // two to indent, two before the '#'
    std::string out = "\nExamples:\n";
    for (const auto& [command, what] : found->second) {
        const std::string left = "  " + command;
        if (left.size() + 2 > column) out += left + '\n' + std::string(column, ' ');
        else out += left + std::string(column - left.size(), ' ');
        out += wrapped("# " + what, column, column + 2);
    }
    return out + '\n';
}

std::string HelpFormatter::two_columns(const std::string& left, const std::string& text) const {
    std::string out = left;
    const std::size_t used = display_columns(left);
    if (text.empty()) return out + '\n';
    if (used + 2 > column_width_) out += '\n' + std::string(column_width_, ' ');
    else out += std::string(column_width_ - used, ' ');
    return out + wrapped(text, column_width_, column_width_);
}

std::string HelpFormatter::make_option(const CLI::Option* option, bool is_positional) const {
    // An argument shows its name alone (the usage line says which are required), an option its
    // names and value word.
    std::string left = "  " + make_option_name(option, is_positional);
    if (is_positional) {
        if (option->get_expected_max() == CLI::detail::expected_max_vector_size) left += " ...";
    } else {
        left += make_option_opts(option);
    }
    return two_columns(left, make_option_desc(option));
}

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
    if (!option->get_option_text().empty()) return " " + option->get_option_text();
    if (option->get_type_size() == 0 || option->get_type_name().empty()) return {};  // a flag: CLI11 gives it no type
    std::string text = " " + value_word(option);
    if (option->get_expected_max() == CLI::detail::expected_max_vector_size) text += " ...";
    return text;
}

std::string HelpFormatter::make_subcommand(const CLI::App* subcommand) const {
    return two_columns("  " + subcommand->get_display_name(true), subcommand->get_description());
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
    const std::string& footer = app->get_footer();
    if (footer.empty()) return {};
    // "Exit codes: 0 printed; 2 unknown code.": one code a line, under the first, so that a line
    // break never falls inside what one code means.
    const std::string_view head = "Exit codes: ";
    if (!footer.starts_with(head) || footer.find("; ") == std::string::npos) return wrapped(footer, 0, 0);
    std::string text = footer.substr(head.size());
    if (text.ends_with('.')) text.pop_back();
    std::string out;
    std::size_t from = 0;
    while (from <= text.size()) {
        std::size_t to = text.find("; ", from);
        if (to == std::string::npos) to = text.size();
        const std::string code = text.substr(from, to - from);
        out += out.empty() ? std::string(head) : std::string(head.size(), ' ');
        out += wrapped(code, head.size(), head.size() + code.find(' ') + 1);
        from = to + 2;
    }
    return out;
}

}  // namespace cudacheck
