// A shared library whose initialiser kills the process that loads it (test-only, never
// installed): a well-formed ELF file, named as a CUDA library, that dies in a way its headers do not
// show, as a library with corrupt code or data does. The signal is CRASHING_LIBRARY_SIGNAL's number
// (default SIGSEGV); tests run cudacheck with it first on LD_LIBRARY_PATH.
#include <csignal>
#include <cstdlib>

namespace {

[[gnu::constructor]] void kill_the_loader() {
    const char* number = std::getenv("CRASHING_LIBRARY_SIGNAL");
    std::raise(number != nullptr ? std::atoi(number) : SIGSEGV);
}

}  // namespace
