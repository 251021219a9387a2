// The command line. Each subcommand is one file here (CLI11's subcommand-in-files layout): its
// options struct, setup_X (its options and help on the app) and run_X (what it does). run_cli
// only wires them; main() only calls run_cli.
#pragma once

namespace cudacheck {

// Parses argv, runs the command and returns the process exit code (report.hpp's ExitCode).
// Never throws; never calls exit().
[[nodiscard]] int run_cli(int argc, char** argv);

}  // namespace cudacheck
