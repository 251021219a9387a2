#include "support/test_support.hpp"
#include <csignal>
#include <dirent.h>
#include <fmt/format.h>
#include <thread>

#include "engine/registry.hpp"
#include "util/process.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

namespace cudacheck::test {

TempDir::TempDir() {
    char pattern[] = "/tmp/cudacheck-test-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ignored;
    // Directories made read-only by a test must become writable again before removal.
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ignored);
         it != std::filesystem::recursive_directory_iterator(); ++it)
        if (it->is_directory(ignored) && !it->is_symlink(ignored)) ::chmod(it->path().c_str(), 0755);
    ::chmod(path_.c_str(), 0755);
    std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& relative, std::string_view content, unsigned mode) const {
    const std::filesystem::path full = std::filesystem::path(path_) / relative;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full, std::ios::binary) << content;
    ::chmod(full.c_str(), mode);
    return full.string();
}

std::string TempDir::make_dir(const std::string& relative) const {
    const std::filesystem::path full = std::filesystem::path(path_) / relative;
    std::filesystem::create_directories(full);
    return full.string();
}

std::string TempDir::symlink(const std::string& target, const std::string& relative) const {
    const std::filesystem::path full = std::filesystem::path(path_) / relative;
    std::filesystem::create_directories(full.parent_path());
    std::filesystem::create_symlink(target, full);
    return full.string();
}

std::string read_text(const std::string& path) { return sys::read_file(path).value_or(""); }

std::string write_gcc_wrappers(const TempDir& dir, const std::string& relative, int major) {
    for (const char* name : {"gcc", "g++"})
        (void)dir.write(relative + "/" + name,
                        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'gcc (GCC) " + std::to_string(major) +
                            ".1.0'; echo 'Copyright (C) 2026 Free Software Foundation, Inc.'; exit 0; fi\nexec "
                            "/usr/bin/" +
                            name + " -U__GNUC__ -D__GNUC__=" + std::to_string(major) + " \"$@\"\n",
                        0755);
    return dir.path() + "/" + relative;
}

namespace {
const char* binary_path(Build build) {
    return build == Build::with_faults ? CUDACHECK_WITH_FAULTS_BINARY : CUDACHECK_BINARY;
}
}  // namespace

std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::map<std::string, std::string> variables;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string text = *entry;
        const std::size_t equals = text.find('=');
        if (equals != std::string::npos) variables[text.substr(0, equals)] = text.substr(equals + 1);
    }
    for (const auto& [name, value] : overrides) {
        if (value == unset_marker) variables.erase(name);
        else variables[name] = value;
    }
    std::vector<std::string> environment;
    for (const auto& [name, value] : variables) environment.push_back(name + "=" + value);
    return environment;
}

BinaryRun run_cudacheck(const std::vector<std::string>& arguments,
                        const std::vector<std::pair<std::string, std::string>>& overrides, Build build) {
    std::vector<std::string> argv{binary_path(build)};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return run_program(argv, environment_with(overrides));
}

std::vector<pid_t> processes_with(const std::string& marker) {
    std::vector<pid_t> found;
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return found;
    while (const dirent* entry = ::readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
        if (pid <= 0 || pid == ::getpid()) continue;
        std::ifstream in(fmt::format("/proc/{}/cmdline", pid), std::ios::binary);
        const std::string cmdline((std::istreambuf_iterator<char>(in)), {});
        if (cmdline.find(marker) != std::string::npos) found.push_back(pid);
    }
    ::closedir(proc);
    return found;
}

std::size_t left_running(const std::string& marker, std::chrono::milliseconds limit) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    std::vector<pid_t> left = processes_with(marker);
    while (!left.empty() && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        left = processes_with(marker);
    }
    for (const pid_t pid : left) ::kill(pid, SIGKILL);
    return left.size();
}

BinaryRun run_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
    const auto start = std::chrono::steady_clock::now();
    const sys::CommandResult result = sys::run_command(argv, std::chrono::seconds(60), &environment);
    BinaryRun run;
    run.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    run.exit_status = result.exit_status;
    run.timed_out = result.timed_out;
    run.output = result.output;
    return run;
}

const nlohmann::json* find_check(const nlohmann::json& report, std::string_view id) {
    for (const nlohmann::json& check : report.at("checks"))
        if (check.at("id") == id) return &check;
    return nullptr;
}

std::size_t expect_codes_declared(std::string_view check_id, const std::vector<std::string>& codes) {
    static const Registry registry(builtin_checks());
    const Check* check = registry.find(check_id);
    if (check == nullptr) return 0;
    const std::vector<Code>& declared = check->info().raises;
    for (const std::string& code : codes) {
        const CatalogEntry* entry = find_catalog_entry(code);
        if (entry == nullptr) {
            ADD_FAILURE() << check_id << " reported " << code << ", which is not in the catalogue";
            continue;
        }
        // 9xx: the engine's and the supervisor's, and the steps any check may need (catalog_entries.def).
        if (static_cast<int>(entry->code) >= 900) continue;
        EXPECT_NE(std::find(declared.begin(), declared.end(), entry->code), declared.end())
            << check_id << " reported " << code << ", which its CheckInfo::raises does not list";
    }
    return codes.size();
}

std::size_t expect_codes_declared(const CheckResult& result) {
    std::vector<std::string> codes;
    for (const Finding& finding : result.findings) codes.push_back(finding.code);
    return expect_codes_declared(result.check_id, codes);
}

std::size_t expect_codes_declared(const nlohmann::json& report) {
    std::size_t judged = 0;
    for (const nlohmann::json& check : report.at("checks")) {
        std::vector<std::string> codes;
        for (const nlohmann::json& finding : check.at("findings"))
            codes.push_back(finding.at("code").get<std::string>());
        judged += expect_codes_declared(check.at("id").get<std::string>(), codes);
    }
    return judged;
}

pid_t start_cudacheck(const std::vector<std::string>& arguments, const std::vector<std::string>& extra, Build build) {
    std::vector<std::string> environment(extra);
    for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
    sys::SpawnRequest request;
    request.argv = {binary_path(build)};
    request.argv.insert(request.argv.end(), arguments.begin(), arguments.end());
    request.environment = &environment;
    request.fds = {sys::ChildFd::open("/dev/null", O_WRONLY, 1), sys::ChildFd::open("/dev/null", O_WRONLY, 2)};
    request.own_process_group = true;
    return sys::spawn(request).value_or(-1);
}

std::string unreachable_by(uid_t uid, const std::string& path) {
    // The permission bits as the kernel applies them to a process of that uid and gid and no
    // supplementary group (path_resolution(7)); root's capabilities are not the question here.
    const auto grants = [uid](const struct stat& status, mode_t owner, mode_t group, mode_t other) {
        if (status.st_uid == uid) return (status.st_mode & owner) == owner;
        if (status.st_gid == static_cast<gid_t>(uid)) return (status.st_mode & group) == group;
        return (status.st_mode & other) == other;
    };
    const std::filesystem::path absolute = std::filesystem::absolute(path);
    std::filesystem::path walked = absolute.root_path();
    for (const auto& part : absolute.relative_path()) {
        struct stat status{};
        if (::stat(walked.c_str(), &status) != 0 || !grants(status, S_IXUSR, S_IXGRP, S_IXOTH)) return walked.string();
        walked /= part;
    }
    struct stat status{};
    if (::stat(absolute.c_str(), &status) != 0 ||
        !grants(status, S_IRUSR | S_IXUSR, S_IRGRP | S_IXGRP, S_IROTH | S_IXOTH))
        return absolute.string();
    return {};
}

}  // namespace cudacheck::test
