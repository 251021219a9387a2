// cudacheck: wiring only. Everything below run_cli returns errors as values; anything that still
// escapes is a bug, reported as exit code 3 rather than a crash.
//
// The program runs on a thread whose stack it sizes itself: the main thread's stack is
// bounded by RLIMIT_STACK, and glibc gives every new thread a stack of that size too
// (pthread_create(3): "the stack size attribute is set to the RLIMIT_STACK soft limit"), so under
// `ulimit -s 32` cudacheck crashed where `ls` and `gcc` still ran. The threads the program starts
// later (std::async, std::thread: pthread_create without attributes) take the default set here with
// pthread_setattr_default_np(3) (glibc 2.18). Thread stacks are mappings, not subject to RLIMIT_STACK.
#include "cli/cli.hpp"
#include "report/report.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <pthread.h>
#include <sys/resource.h>

namespace {

// The stack a thread gets unless it asks: glibc's usual (the common 8 MiB RLIMIT_STACK), or the
// limit when that is larger and finite, as glibc would give (capped: it is reserved per thread).
constexpr std::size_t usual_stack_bytes = std::size_t{8} << 20;
constexpr std::size_t largest_stack_bytes = std::size_t{256} << 20;

std::size_t stack_bytes() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return usual_stack_bytes;
    return std::clamp(static_cast<std::size_t>(limit.rlim_cur), usual_stack_bytes, largest_stack_bytes);
}

int run_program(int argc, char** argv) {
    try {
        return cudacheck::run_cli(argc, argv);
    } catch (const std::exception& error) {
        std::cerr << "cudacheck: internal error: " << error.what() << '\n';
    } catch (...) {
        std::cerr << "cudacheck: internal error\n";
    }
    return cudacheck::exit_internal;
}

struct Program {
    int argc;
    char** argv;
    int exit_status;
};

extern "C" void* program_thread(void* argument) {
    auto* program = static_cast<Program*>(argument);
    program->exit_status = run_program(program->argc, program->argv);
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t stack = stack_bytes();
    pthread_attr_t attributes;
    if (::pthread_attr_init(&attributes) != 0) return run_program(argc, argv);
    (void)::pthread_attr_setstacksize(&attributes, stack);
    (void)::pthread_setattr_default_np(&attributes);
    Program program{argc, argv, cudacheck::exit_internal};
    pthread_t thread;
    const int created = ::pthread_create(&thread, &attributes, program_thread, &program);
    ::pthread_attr_destroy(&attributes);
    // No thread (EAGAIN under a process limit): the program runs here, on the stack there is; the
    // checks that cannot start theirs say so.
    if (created != 0) return run_program(argc, argv);
    ::pthread_join(thread, nullptr);
    return program.exit_status;
}
