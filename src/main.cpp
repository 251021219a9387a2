// cudacheck: wiring only. Everything below run_cli returns errors as values; anything that still
// escapes is a bug, reported as exit code 3 rather than a crash.
#include "cli/cli.hpp"
#include "cudacheck/report.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
    try {
        return cudacheck::run_cli(argc, argv);
    } catch (const std::exception& error) {
        std::cerr << "cudacheck: internal error: " << error.what() << '\n';
    } catch (...) {
        std::cerr << "cudacheck: internal error\n";
    }
    return cudacheck::exit_internal;
}
