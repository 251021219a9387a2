// Python environments that cannot be followed or read, in the probe and through the
// binary: a pyvenv.cfg whose home is its own environment (it recursed until SIGSEGV in `cudacheck
// env` and CC902 on three checks), two environments homing each other and a long home chain; a
// `lib/python3.<20 digits>` directory (std::stoi threw, `env` exited 3); and a `chmod 000`
// environment root, pyvenv.cfg or site-packages seen by an ordinary user (frameworks.builds said
// "no Python framework installed", SKIP, and never reported why).
//
// The ordinary user is a uid no account has (54323): root gives it the environment with chown(2)
// and runs the binary as it through setpriv(1), as tests/unit/hostile_outputs_test.cpp does. Where
// this process is not root (root reads a mode 000 file anyway) those tests skip.
#include "probes/python/python_environments.hpp"
#include "support/test_support.hpp"
#include "util/process.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
namespace fs = std::filesystem;

constexpr uid_t ordinary_user = 54323;

// A virtual environment at `relative` with its own site-packages and the given pyvenv.cfg `home`.
std::string make_venv(const test::TempDir& dir, const std::string& relative, const std::string& home,
                      bool system_site_packages = true) {
    const std::string root = dir.make_dir(relative);
    (void)dir.make_dir(relative + "/bin");
    (void)dir.make_dir(relative + "/lib/python3.12/site-packages");
    (void)dir.write(relative + "/pyvenv.cfg",
                    fmt::format("home = {}\ninclude-system-site-packages = {}\nversion = 3.12.3\n", home,
                                system_site_packages ? "true" : "false"));
    return root;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const PythonEnvironment* environment_at(const PythonEnvironments& found, const std::string& prefix) {
    for (const PythonEnvironment& environment : found.environments)
        if (environment.prefix == prefix) return &environment;
    return nullptr;
}

// The findings of a check in a JSON report, as "CCnnn message | remediation" lines.
std::vector<std::string> findings_of(const nlohmann::json& report, std::string_view id) {
    std::vector<std::string> findings;
    const nlohmann::json* check = test::find_check(report, id);
    if (check == nullptr || !check->contains("findings")) return findings;
    // A finding's message is a headline: the paths and errors behind it are the check's evidence,
    // which each finding's text here carries after its remediation.
    std::string evidence;
    if (check->contains("evidence"))
        for (const nlohmann::json& item : (*check)["evidence"])
            evidence += fmt::format(" | {}: {}", item.value("key", ""), item.value("value", ""));
    for (const nlohmann::json& finding : (*check)["findings"])
        findings.push_back(fmt::format("{} {} | {}{}", finding.value("code", ""), finding.value("message", ""),
                                       finding.value("remediation", ""), evidence));
    return findings;
}

const std::string* finding_with(const std::vector<std::string>& findings, std::string_view code) {
    for (const std::string& finding : findings)
        if (finding.rfind(code, 0) == 0) return &finding;
    return nullptr;
}

nlohmann::json read_report(const std::string& path) {
    const std::optional<std::string> text = sys::read_file(path, 64 << 20);
    if (!text) return {};
    return nlohmann::json::parse(*text, nullptr, false);
}

// ---------------------------------------------------------------------------------------------
// home chains

TEST(PythonEnvironmentAccess, a_venv_whose_home_is_its_own_bin_is_a_loop_not_a_crash) {
    test::TempDir dir;
    const std::string venv = make_venv(dir, "venv", dir.path() + "/venv/bin");
    const auto start = std::chrono::steady_clock::now();
    const PythonEnvironments found =
        find_python_environments(Environment({{"VIRTUAL_ENV", venv}, {"PATH", ""}}), {}, dir.path());
    EXPECT_LT(seconds_since(start), 10.0);
    const PythonEnvironment* environment = environment_at(found, venv);
    ASSERT_NE(environment, nullptr);
    EXPECT_EQ(environment->kind, PythonKind::venv);
    EXPECT_EQ(environment->home_loop_file, venv + "/pyvenv.cfg");
    EXPECT_TRUE(contains(environment->home_loop,
                         fmt::format("home = {}/bin in {}/pyvenv.cfg leads back to {}", venv, venv, venv)))
        << environment->home_loop;
    EXPECT_TRUE(contains(environment->home_loop, fmt::format("({} -> {})", venv, venv))) << environment->home_loop;
    // Its own packages are still read.
    EXPECT_EQ(environment->site_packages, std::vector<std::string>{venv + "/lib/python3.12/site-packages"});
    EXPECT_TRUE(environment->problem.empty()) << environment->problem;
}

TEST(PythonEnvironmentAccess, a_self_home_venv_takes_the_installation_its_interpreter_links_to_as_its_base) {
    // What `python -m venv` makes (bin/python3 a link to the base interpreter), with home then
    // pointed at the venv's own bin/: CPython still starts from /usr; so does the model.
    test::TempDir dir;
    const std::string venv = make_venv(dir, "venv", dir.path() + "/venv/bin");
    (void)dir.write("usr/bin/python3.12", "#!ELF stand-in\n", 0755);
    (void)dir.make_dir("usr/lib/python3/dist-packages");
    (void)dir.symlink(dir.path() + "/usr/bin/python3.12", "venv/bin/python3");
    const PythonEnvironments found =
        find_python_environments(Environment({{"VIRTUAL_ENV", venv}, {"PATH", ""}}), {}, dir.path());
    const PythonEnvironment* environment = environment_at(found, venv);
    ASSERT_NE(environment, nullptr);
    EXPECT_EQ(environment->base_prefix, dir.path() + "/usr");
    EXPECT_TRUE(contains(environment->home_loop,
                         fmt::format("cudacheck takes {}/usr, where {}/bin/python3 links to", dir.path(), venv)))
        << environment->home_loop;
    EXPECT_EQ(environment->site_packages, (std::vector<std::string>{venv + "/lib/python3.12/site-packages",
                                                                    dir.path() + "/usr/lib/python3/dist-packages"}));
}

TEST(PythonEnvironmentAccess, a_home_naming_the_environment_itself_is_a_loop_even_without_system_site_packages) {
    test::TempDir dir;
    const std::string venv = make_venv(dir, "venv", dir.path() + "/venv/bin", false);
    const PythonEnvironments found =
        find_python_environments(Environment({{"VIRTUAL_ENV", venv}, {"PATH", ""}}), {}, dir.path());
    const PythonEnvironment* environment = environment_at(found, venv);
    ASSERT_NE(environment, nullptr);
    EXPECT_TRUE(contains(environment->home_loop, "leads back to " + venv)) << environment->home_loop;
}

TEST(PythonEnvironmentAccess, two_venvs_homing_each_other_name_the_whole_loop) {
    test::TempDir dir;
    const std::string a = make_venv(dir, "a", dir.path() + "/b/bin");
    const std::string b = make_venv(dir, "b", dir.path() + "/a/bin");
    const PythonEnvironments found =
        find_python_environments(Environment({{"VIRTUAL_ENV", a}, {"PATH", ""}}), {}, dir.path());
    const PythonEnvironment* environment = environment_at(found, a);
    ASSERT_NE(environment, nullptr);
    EXPECT_TRUE(contains(environment->home_loop, fmt::format("({} -> {} -> {})", a, b, a))) << environment->home_loop;
    EXPECT_EQ(environment->home_loop_file, b + "/pyvenv.cfg");
    // b's site-packages come in through the home, once.
    EXPECT_EQ(environment->site_packages,
              (std::vector<std::string>{a + "/lib/python3.12/site-packages", b + "/lib/python3.12/site-packages"}));
}

TEST(PythonEnvironmentAccess, a_long_home_chain_is_followed_only_to_its_bound) {
    // 200 virtual environments, each the home of the one before: followed max_home_chain deep.
    test::TempDir dir;
    constexpr int count = 200;
    for (int i = 0; i < count; ++i)
        (void)make_venv(dir, fmt::format("v{}", i), fmt::format("{}/v{}/bin", dir.path(), i + 1));
    const auto start = std::chrono::steady_clock::now();
    const PythonEnvironments found =
        find_python_environments(Environment({{"VIRTUAL_ENV", dir.path() + "/v0"}, {"PATH", ""}}), {}, dir.path());
    EXPECT_LT(seconds_since(start), 10.0);
    const PythonEnvironment* environment = environment_at(found, dir.path() + "/v0");
    ASSERT_NE(environment, nullptr);
    EXPECT_TRUE(contains(environment->home_loop, fmt::format("a chain of {} virtual environments", max_home_chain)))
        << environment->home_loop;
    EXPECT_EQ(environment->site_packages.size(), max_home_chain);
}

TEST(PythonEnvironmentAccess, env_and_frameworks_builds_survive_a_self_home_venv) {
    // The trial: SIGSEGV in `cudacheck env`, CC902 in frameworks.builds.
    test::TempDir dir;
    const std::string venv = make_venv(dir, "venv", dir.path() + "/venv/bin");
    const test::BinaryRun env = test::run_cudacheck({"env"}, {{"VIRTUAL_ENV", venv}});
    EXPECT_FALSE(env.timed_out);
    EXPECT_LT(env.wall_ms, 10000.0);
    EXPECT_EQ(env.exit_status, 0) << env.output;

    const std::string report = dir.path() + "/report.json";
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "frameworks.builds", "--python", venv, "-q", "-o", report},
                            {{"VIRTUAL_ENV", venv}, {"CUDACHECK_CACHE_DIR", "off"}});
    EXPECT_FALSE(run.timed_out);
    EXPECT_LT(run.wall_ms, 10000.0);
    EXPECT_NE(run.exit_status, 3) << run.output;
    EXPECT_FALSE(contains(run.output, "CC902")) << run.output;
    const std::vector<std::string> findings = findings_of(read_report(report), "frameworks.builds");
    const std::string* loop = finding_with(findings, "CC641");
    ASSERT_NE(loop, nullptr) << run.output;
    EXPECT_TRUE(contains(*loop, venv + "/pyvenv.cfg leads back to " + venv)) << *loop;
    EXPECT_TRUE(contains(*loop, "Set `home` in " + venv + "/pyvenv.cfg")) << *loop;
    EXPECT_EQ(finding_with(findings, "CC902"), nullptr);
    EXPECT_GT(test::expect_codes_declared(read_report(report)), 0u);
}

// ---------------------------------------------------------------------------------------------
// numbers in file names

TEST(PythonEnvironmentAccess, a_python_version_of_twenty_digits_is_no_version) {
    EXPECT_EQ(python_major_minor("3.12345678901234567890"), "");
    EXPECT_EQ(python_minor_of("3.12345678901234567890"), std::nullopt);
    EXPECT_EQ(python_minor_of("3.12"), 12);
    EXPECT_EQ(python_minor_of("3.12.3"), std::nullopt);  // a major.minor only
    EXPECT_EQ(python_minor_of("3."), std::nullopt);
    EXPECT_EQ(python_major_minor("3.999.1"), "3.999");
    EXPECT_EQ(python_major_minor("3.1000"), "");

    test::TempDir dir;
    const std::string prefix = dir.make_dir("opt/py");
    (void)dir.make_dir("opt/py/lib/python3.12345678901234567890/site-packages");
    (void)dir.make_dir("opt/py/lib/python3.99999999999999999999999/site-packages");
    (void)dir.make_dir("opt/py/lib/python3.11/site-packages");
    (void)dir.make_dir("opt/py/lib/python3.12/site-packages");
    const PythonEnvironments found =
        find_python_environments(Environment({{"VIRTUAL_ENV", prefix}, {"PATH", ""}}), {}, dir.path());
    const PythonEnvironment* environment = environment_at(found, prefix);
    ASSERT_NE(environment, nullptr);
    EXPECT_EQ(environment->python_version, "3.12");  // the newest real one
    EXPECT_EQ(environment->site_packages, std::vector<std::string>{prefix + "/lib/python3.12/site-packages"});

    const test::BinaryRun env = test::run_cudacheck({"env"}, {{"VIRTUAL_ENV", prefix}});
    EXPECT_EQ(env.exit_status, 0) << env.output;  // was 3, "internal error: stoi"
    EXPECT_FALSE(contains(env.output, "internal error")) << env.output;
}

// ---------------------------------------------------------------------------------------------
// unreadable parts, as an ordinary user

TEST(PythonEnvironmentAccess, a_fifo_for_pyvenv_cfg_is_named_as_such) {
    test::TempDir dir;
    const std::string venv = dir.make_dir("venv");
    ASSERT_EQ(::mkfifo((venv + "/pyvenv.cfg").c_str(), 0600), 0);
    const PythonEnvironments found =
        find_python_environments(Environment({{"VIRTUAL_ENV", venv}, {"PATH", ""}}), {}, dir.path());
    const PythonEnvironment* environment = environment_at(found, venv);
    ASSERT_NE(environment, nullptr);
    ASSERT_EQ(environment->unreadable.size(), 1u);
    EXPECT_EQ(environment->unreadable[0].message,
              fmt::format("cannot read {}/pyvenv.cfg: it is a FIFO, not a regular file", venv));
    EXPECT_EQ(environment->problem, environment->unreadable[0].message);
}

// An environment of the ordinary user's, one part of which is then made mode 000.
struct UsersVenv {
    test::TempDir dir;
    std::string venv;
    std::string site;
    bool ready = false;
    UsersVenv() {
        ::chmod(dir.path().c_str(), 0755);
        venv = make_venv(dir, "venv", "/nonexistent/bin", false);
        site = venv + "/lib/python3.12/site-packages";
        (void)dir.make_dir("out");
        ready = true;
        for (const auto& entry : fs::recursive_directory_iterator(dir.path()))
            ready = ready && ::lchown(entry.path().c_str(), ordinary_user, ordinary_user) == 0;
    }
};

// frameworks.builds as the ordinary user, for an environment named with --python.
struct UserRun {
    test::BinaryRun run;
    std::vector<std::string> findings;
    std::string status;
};
UserRun frameworks_builds_as_user(const UsersVenv& fixture) {
    const std::string report = fixture.dir.path() + "/out/report.json";
    std::vector<std::string> argv{"/usr/bin/setpriv",
                                  fmt::format("--reuid={}", ordinary_user),
                                  fmt::format("--regid={}", ordinary_user),
                                  "--clear-groups",
                                  CUDACHECK_BINARY,
                                  "--only",
                                  "frameworks.builds",
                                  "--python",
                                  fixture.venv,
                                  "-q",
                                  "-o",
                                  report};
    const std::vector<std::string> environment = test::environment_with({{"HOME", "/nonexistent"},
                                                                         {"CUDACHECK_CACHE_DIR", "off"},
                                                                         {"VIRTUAL_ENV", test::unset_marker},
                                                                         {"PATH", "/usr/bin:/bin"}});
    UserRun user;
    user.run = test::run_program(argv, environment);
    const nlohmann::json parsed = read_report(report);
    user.findings = findings_of(parsed, "frameworks.builds");
    if (const nlohmann::json* check = test::find_check(parsed, "frameworks.builds"))
        user.status = check->value("status", "");
    return user;
}

#define SKIP_UNLESS_ROOT_WITH_SETPRIV()                                                                      \
    do {                                                                                                     \
        if (::geteuid() != 0) GTEST_SKIP() << "needs root, to give the environment to another user (chown)"; \
        if (!fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "no setpriv to run as another user";            \
        SKIP_UNLESS_BINARY_REACHABLE_BY(ordinary_user);                                                      \
    } while (false)

void expect_unreadable_finding(const UserRun& user, const std::string& path, std::string_view verb,
                               std::string_view mode, std::string_view consequence) {
    EXPECT_FALSE(user.run.timed_out);
    EXPECT_LT(user.run.wall_ms, 10000.0);
    EXPECT_EQ(user.status, "warn") << user.run.output;  // not "skip": "no Python framework installed"
    const std::string* finding = finding_with(user.findings, "CC642");
    ASSERT_NE(finding, nullptr) << user.run.output;
    EXPECT_TRUE(contains(*finding, fmt::format("cannot {} {}: Permission denied (mode {}, owner uid {})", verb, path,
                                               mode, ordinary_user)))
        << *finding;
    EXPECT_TRUE(contains(*finding, consequence)) << *finding;
    EXPECT_TRUE(contains(*finding, "| Give it back the usual permissions: `chmod")) << *finding;
}

TEST(PythonEnvironmentAccess, a_site_packages_of_mode_000_is_a_finding_naming_it_and_its_mode) {
    SKIP_UNLESS_ROOT_WITH_SETPRIV();
    UsersVenv fixture;
    if (!fixture.ready) GTEST_SKIP() << "chown to uid " << ordinary_user << " refused here";
    ASSERT_EQ(::chmod(fixture.site.c_str(), 0), 0);
    const UserRun user = frameworks_builds_as_user(fixture);
    ASSERT_NO_FATAL_FAILURE(
        expect_unreadable_finding(user, fixture.site, "read", "000", "the frameworks installed there are not checked"));
    EXPECT_TRUE(contains(*finding_with(user.findings, "CC642"), "`chmod 755 " + fixture.site + "`"));
}

TEST(PythonEnvironmentAccess, an_environment_root_of_mode_000_is_a_finding) {
    SKIP_UNLESS_ROOT_WITH_SETPRIV();
    UsersVenv fixture;
    if (!fixture.ready) GTEST_SKIP() << "chown to uid " << ordinary_user << " refused here";
    ASSERT_EQ(::chmod(fixture.venv.c_str(), 0), 0);
    const UserRun user = frameworks_builds_as_user(fixture);
    ASSERT_NO_FATAL_FAILURE(
        expect_unreadable_finding(user, fixture.venv, "read", "000", "the environment cannot be read"));
}

TEST(PythonEnvironmentAccess, a_root_that_can_be_listed_but_not_searched_is_a_finding) {
    SKIP_UNLESS_ROOT_WITH_SETPRIV();
    UsersVenv fixture;
    if (!fixture.ready) GTEST_SKIP() << "chown to uid " << ordinary_user << " refused here";
    ASSERT_EQ(::chmod(fixture.venv.c_str(), 0444), 0);
    const UserRun user = frameworks_builds_as_user(fixture);
    ASSERT_NO_FATAL_FAILURE(
        expect_unreadable_finding(user, fixture.venv, "search", "444", "the environment cannot be read"));
}

TEST(PythonEnvironmentAccess, a_pyvenv_cfg_of_mode_000_is_a_finding) {
    SKIP_UNLESS_ROOT_WITH_SETPRIV();
    UsersVenv fixture;
    if (!fixture.ready) GTEST_SKIP() << "chown to uid " << ordinary_user << " refused here";
    ASSERT_EQ(::chmod((fixture.venv + "/pyvenv.cfg").c_str(), 0), 0);
    const UserRun user = frameworks_builds_as_user(fixture);
    ASSERT_NO_FATAL_FAILURE(
        expect_unreadable_finding(user, fixture.venv + "/pyvenv.cfg", "read", "000", "the environment cannot be read"));
    EXPECT_TRUE(contains(*finding_with(user.findings, "CC642"), "`chmod 644 " + fixture.venv + "/pyvenv.cfg`"));
}

TEST(PythonEnvironmentAccess, another_users_private_site_packages_names_its_owner) {
    SKIP_UNLESS_ROOT_WITH_SETPRIV();
    UsersVenv fixture;
    if (!fixture.ready) GTEST_SKIP() << "chown to uid " << ordinary_user << " refused here";
    // root's own directory, 0700, inside the user's environment.
    ASSERT_EQ(::chown(fixture.site.c_str(), 0, 0), 0);
    ASSERT_EQ(::chmod(fixture.site.c_str(), 0700), 0);
    const UserRun user = frameworks_builds_as_user(fixture);
    const std::string* finding = finding_with(user.findings, "CC642");
    ASSERT_NE(finding, nullptr) << user.run.output;
    EXPECT_TRUE(contains(*finding,
                         fmt::format("cannot read {}: Permission denied (mode 700, owner uid 0 (root))", fixture.site)))
        << *finding;
    EXPECT_TRUE(contains(*finding, "| As its owner (uid 0 (root)) or root: `chmod 755 " + fixture.site + "`"))
        << *finding;
}

TEST(PythonEnvironmentAccess, a_readable_environment_has_no_such_finding_as_the_same_user) {
    SKIP_UNLESS_ROOT_WITH_SETPRIV();
    UsersVenv fixture;
    if (!fixture.ready) GTEST_SKIP() << "chown to uid " << ordinary_user << " refused here";
    const UserRun user = frameworks_builds_as_user(fixture);
    EXPECT_FALSE(user.run.timed_out);
    EXPECT_EQ(finding_with(user.findings, "CC642"), nullptr) << user.run.output;
    EXPECT_EQ(finding_with(user.findings, "CC641"), nullptr) << user.run.output;
}

}  // namespace
}  // namespace cudacheck
