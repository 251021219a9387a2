// The --help of cudacheck and of each subcommand: examples first, then the usage and
// the options; every line under 100 columns, descriptions wrapped under their column; an option
// shows the word for its value (`--only IDS ...`, `--timeout SECONDS`), not CLI11's type
// annotations (`UINT:UINT in [64 - 1099511627776]`). The options keep their CLI11 types and
// validators: the completion scripts read the choices from them (completion_command.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck {

class HelpFormatter final : public CLI::Formatter {
public:
    // The widest line --help writes: under 100 columns, with a margin for a terminal's last column.
    static constexpr std::size_t width = 96;
    // A command line and what it does, as a shell comment after it.
    using Example = std::pair<std::string, std::string>;

    HelpFormatter();
    // The examples of a command: "" for cudacheck itself, else the subcommand's name.
    void examples(const std::string& command, std::vector<Example> examples) {
        examples_[command] = std::move(examples);
    }

    std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
    std::string make_description(const CLI::App* app) const override;
    std::string make_option(const CLI::Option* option, bool is_positional) const override;
    std::string make_option_opts(const CLI::Option* option) const override;
    std::string make_subcommand(const CLI::App* subcommand) const override;
    std::string make_footer(const CLI::App* app) const override;

private:
    [[nodiscard]] std::string make_examples(const CLI::App* app) const;
    // `left` in the first column (padded to it, or alone on its line when wider) and `text`
    // wrapped in the second.
    [[nodiscard]] std::string two_columns(const std::string& left, const std::string& text) const;

    std::map<std::string, std::vector<Example>> examples_;
};

}  // namespace cudacheck
