// The files cudacheck writes on a machine shared with users who mean harm: `-o` and the
// GPU code cache follow a symbolic link only where the kernel's fs.protected_symlinks would, never
// replace another user's file in a sticky directory (fs.protected_regular, the sticky bit's rename
// rule), find every such refusal before any check runs (exit 2 at once), and never widen a file's
// mode; the GPU code cache is used only when it is the user's own (owner and mode checked, a link
// or a FIFO refused with a finding of its own), its entries are checked against the inode and
// change time of the file they describe, and a non-UTF-8 path neither breaks it nor ends the check.
//
// The other users are uids no account has (54321, 54322): root gives files to them with chown(2)
// and runs the binary as one through setpriv(1). Where this process is not root (or chown to them
// is refused, as in a user namespace), those tests skip.
#include "checks/frameworks_builds.hpp"
#include "probes/python/frameworks_probe.hpp"
#include "support/expected_support.hpp"
#include "support/fixtures.hpp"
#include "support/test_support.hpp"
#include "util/atomic_file.hpp"
#include "util/process.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <linux/fs.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;
namespace fs = std::filesystem;

constexpr uid_t user_b = 54321;      // the user who plants links and caches
constexpr uid_t user_c = 54322;      // a third user, whose file user_b must not replace
const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

struct stat status_of(const std::string& path) {
    struct stat status{};
    if (::lstat(path.c_str(), &status) != 0) ADD_FAILURE() << "lstat " << path << ": " << std::strerror(errno);
    return status;
}
mode_t mode_of(const std::string& path) { return status_of(path).st_mode & 07777; }

// Gives `path` (not what a link names) to `uid`; false where this process may not.
bool give_to(const std::string& path, uid_t uid) { return ::lchown(path.c_str(), uid, uid) == 0; }

#define SKIP_UNLESS_ROOT()                                                                         \
    do {                                                                                           \
        if (::geteuid() != 0) GTEST_SKIP() << "needs root, to give files to another user (chown)"; \
    } while (false)

std::size_t temporary_files(const std::string& directory) {
    std::size_t count = 0;
    for (const auto& entry : fs::directory_iterator(directory))
        count += contains(entry.path().filename().string(), ".tmp") ? 1 : 0;
    return count;
}

// A directory like /tmp: sticky, world-writable, root's.
std::string sticky_directory(const test::TempDir& dir, const std::string& name) {
    const std::string path = dir.make_dir(name);
    ::chmod(path.c_str(), 01777);
    return path;
}

// A secret of root's, 0600, that a planted link points at.
std::string secret(const test::TempDir& dir) {
    const std::string path = dir.write("private/secret", "the secret\n", 0600);
    ::chmod(path.c_str(), 0600);
    return path;
}

void expect_secret_untouched(const std::string& path) {
    EXPECT_EQ(test::read_text(path), "the secret\n") << path << " was replaced";
    EXPECT_EQ(mode_of(path), 0600u) << path;
    EXPECT_EQ(status_of(path).st_uid, 0u) << path;
}

// The built cudacheck run as `uid` (and gid), with no supplementary groups, through setpriv(1).
test::BinaryRun run_as(uid_t uid, const std::vector<std::string>& arguments) {
    std::vector<std::string> argv{"/usr/bin/setpriv", fmt::format("--reuid={}", uid), fmt::format("--regid={}", uid),
                                  "--clear-groups", CUDACHECK_BINARY};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const std::vector<std::string> environment =
        test::environment_with({{"HOME", "/nonexistent"}, {"CUDACHECK_CACHE_DIR", "off"}});
    return test::run_program(argv, environment);
}

// ---------------------------------------------------------------------------------------------
// -o

TEST(HostileOutputs, root_never_writes_through_another_users_link_in_a_sticky_world_writable_directory) {
    SKIP_UNLESS_ROOT();
    // The trial: user B's /tmp/cudacheck-report.json -> /root/secret, and root's
    // `cudacheck -q -o /tmp/cudacheck-report.json` replaced the secret with the report, 0644.
    test::TempDir dir;
    const std::string victim = secret(dir);
    const std::string shared = sticky_directory(dir, "tmp");
    const std::string link = dir.symlink(victim, "tmp/cudacheck-report.json");
    if (!give_to(link, user_b)) GTEST_SKIP() << "chown to uid " << user_b << " refused here";
    const test::BinaryRun run = run_cudacheck({"--only", "host.os", "-q", "-o", link});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_LT(run.wall_ms, 10000.0);
    EXPECT_TRUE(
        contains(run.output, fmt::format("cannot write {}: {} is a symbolic link of uid {}", link, link, user_b)))
        << run.output;
    EXPECT_TRUE(contains(run.output, "(fs.protected_symlinks); remove the link or name another file")) << run.output;
    EXPECT_EQ(test::line_count(run.output), 1u) << "one line, and no check ran:\n" << run.output;
    expect_secret_untouched(victim);
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(temporary_files(shared) + temporary_files(dir.path() + "/private"), 0u);

    // A directory on the way that is such a link is refused too: the kernel checks every link it
    // follows, not only the last.
    const std::string directory_link = dir.symlink(dir.path() + "/private", "tmp/reports");
    ASSERT_TRUE(give_to(directory_link, user_b));
    const test::BinaryRun through_directory =
        run_cudacheck({"--only", "host.os", "-q", "-o", directory_link + "/secret"});
    EXPECT_EQ(through_directory.exit_status, 2) << through_directory.output;
    EXPECT_TRUE(
        contains(through_directory.output, fmt::format("{} is a symbolic link of uid {}", directory_link, user_b)))
        << through_directory.output;
    expect_secret_untouched(victim);
}

TEST(HostileOutputs, links_are_followed_where_the_kernel_follows_them) {
    SKIP_UNLESS_ROOT();
    test::TempDir dir;
    const std::string shared = sticky_directory(dir, "tmp");
    const auto follows = [&](const std::string& link, const std::string& target) {
        Expected<AtomicFile> file = AtomicFile::create(link);
        if (!file) return file.error().message;
        EXPECT_EQ(file->path(), target);
        EXPECT_EQ(test::error_of(file->commit("new\n")), "");
        EXPECT_EQ(test::read_text(target), "new\n");
        EXPECT_TRUE(fs::is_symlink(link)) << "the link stays";
        return std::string();
    };
    // The follower's own link in a sticky world-writable directory.
    const std::string mine = dir.write("private/mine.json", "old\n");
    EXPECT_EQ(follows(dir.symlink(mine, "tmp/mine.json"), mine), "");
    // Another user's link in a directory that is not sticky: followed (protected_symlinks covers
    // sticky world-writable directories only).
    const std::string plain_target = dir.write("private/plain.json", "old\n");
    const std::string plain_link = dir.symlink(plain_target, "plain/link.json");
    if (!give_to(plain_link, user_b)) GTEST_SKIP() << "chown to uid " << user_b << " refused here";
    EXPECT_EQ(follows(plain_link, plain_target), "");
    // The link's owner owns the sticky directory: followed.
    const std::string owned = sticky_directory(dir, "b-tmp");
    const std::string owned_target = dir.write("private/owned.json", "old\n");
    const std::string owned_link = dir.symlink(owned_target, "b-tmp/link.json");
    ASSERT_TRUE(give_to(owned, user_b) && give_to(owned_link, user_b));
    EXPECT_EQ(follows(owned_link, owned_target), "");
    // Another user's link in root's sticky directory: refused, the target kept.
    const std::string refused_target = dir.write("private/refused.json", "old\n");
    const std::string refused_link = dir.symlink(refused_target, "tmp/refused.json");
    ASSERT_TRUE(give_to(refused_link, user_b));
    const std::string error = follows(refused_link, refused_target);
    EXPECT_TRUE(contains(error, "fs.protected_symlinks")) << error;
    EXPECT_EQ(test::read_text(refused_target), "old\n");
    // A chain: the runner's link to another user's link in the sticky directory is refused at the
    // second link.
    const std::string chain = dir.symlink(refused_link, "private/chain.json");
    EXPECT_TRUE(contains(follows(chain, refused_target), refused_link + " is a symbolic link of uid")) << chain;
    EXPECT_EQ(test::read_text(refused_target), "old\n");
    EXPECT_EQ(temporary_files(shared) + temporary_files(dir.path() + "/private"), 0u);
}

TEST(HostileOutputs, root_does_not_replace_another_users_file_in_a_sticky_world_writable_directory) {
    SKIP_UNLESS_ROOT();
    // fs.protected_regular: the shell's `>` is refused there, so is -o.
    test::TempDir dir;
    const std::string shared = sticky_directory(dir, "tmp");
    const std::string theirs = dir.write("tmp/report.json", "theirs\n", 0640);
    ::chmod(theirs.c_str(), 0640);
    if (!give_to(theirs, user_b)) GTEST_SKIP() << "chown to uid " << user_b << " refused here";
    const test::BinaryRun run = run_cudacheck({"--only", "host.os", "-q", "-o", theirs});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, fmt::format("cannot write {}: {} belongs to uid {} in the sticky directory {}",
                                                 theirs, theirs, user_b, shared)))
        << run.output;
    EXPECT_TRUE(contains(run.output, "fs.protected_regular")) << run.output;
    EXPECT_EQ(test::line_count(run.output), 1u) << run.output;
    EXPECT_EQ(test::read_text(theirs), "theirs\n");
    EXPECT_EQ(mode_of(theirs), 0640u);
    EXPECT_EQ(status_of(theirs).st_uid, user_b);
    EXPECT_EQ(temporary_files(shared), 0u);
    // `render -o` opens its output the same way.
    const std::string report = std::string(CUDACHECK_SOURCE_DIR) + "/docs/examples/h200/cudacheck.json";
    const test::BinaryRun render = run_cudacheck({"render", report, "-o", theirs});
    EXPECT_EQ(render.exit_status, 2) << render.output;
    EXPECT_TRUE(contains(render.output, "fs.protected_regular")) << render.output;
    EXPECT_EQ(test::read_text(theirs), "theirs\n");
    // Root's own file there, and a file of the directory's owner, are replaced as the kernel allows.
    const std::string own = dir.write("tmp/own.json", "old\n");
    EXPECT_EQ(run_cudacheck({"--only", "host.os", "-q", "-o", own}).exit_status, 0);
    EXPECT_TRUE(contains(test::read_text(own), "\"schema_version\""));
}

TEST(HostileOutputs,
     an_ordinary_user_writing_over_another_users_file_in_a_sticky_directory_is_refused_before_any_check) {
    SKIP_UNLESS_ROOT();
    if (!fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "no setpriv to run as another user";
    SKIP_UNLESS_BINARY_REACHABLE_BY(user_b);
    // Item 8j: as uid B, `-o /tmp/<C's file>` used to run every check and only then fail the
    // rename (EPERM: the sticky bit); the docs promise exit 2 first.
    test::TempDir dir;
    ::chmod(dir.path().c_str(), 0755);
    const std::string shared = sticky_directory(dir, "tmp");
    const std::string theirs = dir.write("tmp/report.json", "C's report\n", 0644);
    if (!give_to(theirs, user_c)) GTEST_SKIP() << "chown to uid " << user_c << " refused here";
    // The run as B works at all: a new file of B's in the sticky directory.
    const test::BinaryRun fresh = run_as(user_b, {"--only", "host.os", "-q", "-o", shared + "/b.json"});
    ASSERT_EQ(fresh.exit_status, 0) << fresh.output;
    EXPECT_EQ(status_of(shared + "/b.json").st_uid, user_b);

    const test::BinaryRun run = run_as(user_b, {"--only", "host.os", "-q", "-o", theirs});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, fmt::format("cannot write {}: {} belongs to uid {}", theirs, theirs, user_c)))
        << run.output;
    EXPECT_FALSE(contains(run.output, "cannot rename")) << "found only after the checks:\n" << run.output;
    EXPECT_EQ(test::line_count(run.output), 1u) << "no check ran, so no table follows:\n" << run.output;
    EXPECT_EQ(test::read_text(theirs), "C's report\n");
    EXPECT_EQ(temporary_files(shared), 0u);
    // B's own link there to C's file: B may follow it, but the rename would fail on C's file.
    const std::string link = dir.symlink(theirs, "tmp/b-link.json");
    ASSERT_TRUE(give_to(link, user_b));
    const test::BinaryRun through = run_as(user_b, {"--only", "host.os", "-q", "-o", link});
    EXPECT_EQ(through.exit_status, 2) << through.output;
    EXPECT_TRUE(contains(through.output, fmt::format("cannot write {}: {} belongs to uid {}", link, theirs, user_c)))
        << through.output;
    EXPECT_EQ(test::read_text(theirs), "C's report\n");
}

TEST(HostileOutputs, a_replaced_file_keeps_its_mode_and_a_new_one_honours_the_umask) {
    test::TempDir dir;
    const mode_t previous = ::umask(022);
    const std::string secret_report = dir.write("secret.json", "old\n", 0600);
    ::chmod(secret_report.c_str(), 0600);
    {
        Expected<AtomicFile> file = AtomicFile::create(secret_report);
        ASSERT_TRUE(file) << test::error_of(file);
        EXPECT_EQ(test::error_of(file->commit("new\n")), "");
    }
    EXPECT_EQ(test::read_text(secret_report), "new\n");
    EXPECT_EQ(mode_of(secret_report), 0600u) << "a 0600 report became wider";
    // Through the binary, as in the issue (a link of the runner's own to a 0600 file).
    const std::string link = dir.symlink(secret_report, "latest.json");
    const test::BinaryRun run = run_cudacheck({"--only", "host.os", "-q", "-o", link});
    EXPECT_EQ(run.exit_status, 0) << run.output;
    EXPECT_TRUE(contains(test::read_text(secret_report), "\"schema_version\""));
    EXPECT_EQ(mode_of(secret_report), 0600u);
    {
        Expected<AtomicFile> file = AtomicFile::create(dir.path() + "/new.json");
        ASSERT_TRUE(file) << test::error_of(file);
        EXPECT_EQ(test::error_of(file->commit("new\n")), "");
    }
    EXPECT_EQ(mode_of(dir.path() + "/new.json"), 0644u);
    ::umask(previous);
}

TEST(HostileOutputs, an_immutable_output_is_refused_when_it_is_created) {
    SKIP_UNLESS_ROOT();
    test::TempDir dir;
    const std::string fixed = dir.write("fixed.json", "kept\n");
    const int fd = ::open(fixed.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    int flags = 0;
    bool set = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    flags |= FS_IMMUTABLE_FL;
    set = set && ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    if (!set) {
        ::close(fd);
        GTEST_SKIP() << "this filesystem has no immutable flag";
    }
    const test::BinaryRun run = run_cudacheck({"--only", "host.os", "-q", "-o", fixed});
    flags &= ~FS_IMMUTABLE_FL;
    ::ioctl(fd, FS_IOC_SETFLAGS, &flags);
    ::close(fd);
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_TRUE(
        contains(run.output, fmt::format("cannot write {}: {} is immutable, so it cannot be replaced", fixed, fixed)))
        << run.output;
    EXPECT_EQ(test::line_count(run.output), 1u) << run.output;
    EXPECT_EQ(test::read_text(fixed), "kept\n");
    EXPECT_EQ(temporary_files(dir.path()), 0u);
}

TEST(HostileOutputs, relative_paths_and_dot_dot_resolve_as_the_kernel_resolves_them) {
    test::TempDir dir;
    const std::string target = dir.write("a/b/report.json", "old\n");
    (void)dir.make_dir("c");
    // A relative link through "..": the file it names is replaced.
    const std::string link = dir.symlink("../a/b/report.json", "c/link.json");
    Expected<AtomicFile> file = AtomicFile::create(dir.path() + "/c/../c/./link.json");
    ASSERT_TRUE(file) << test::error_of(file);
    EXPECT_EQ(fs::path(file->path()).lexically_normal(), fs::path(target));
    EXPECT_EQ(test::error_of(file->commit("new\n")), "");
    EXPECT_EQ(test::read_text(target), "new\n");
    EXPECT_TRUE(fs::is_symlink(link));
    // A directory is no output, nor is a path through a file.
    // (error_of is "" for a file made, so each expectation also holds that none was.)
    std::string error = test::error_of(AtomicFile::create(dir.path() + "/a/.."));
    EXPECT_TRUE(contains(error, "is a directory: -o writes only regular files")) << error;
    error = test::error_of(AtomicFile::create(target + "/x.json"));
    EXPECT_TRUE(contains(error, "Not a directory")) << error;
    error = test::error_of(AtomicFile::create(dir.path() + "/new-directory/"));
    EXPECT_TRUE(contains(error, "names a directory: -o writes only regular files")) << error;
    EXPECT_FALSE(fs::exists(dir.path() + "/new-directory"));
    // A loop of links ends.
    dir.symlink(dir.path() + "/loop-b", "loop-a");
    dir.symlink(dir.path() + "/loop-a", "loop-b");
    error = test::error_of(AtomicFile::create(dir.path() + "/loop-a"));
    EXPECT_TRUE(contains(error, "Too many levels of symbolic links")) << error;
}

// ---------------------------------------------------------------------------------------------
// The GPU code cache

const std::string gpu_code_fixture =
    std::string(CUDACHECK_GPU_CODE_FIXTURES) + "/multi.o";  // sm_75 sm_90a sm_100f SASS

// A cache of `binary` written by this process, then changed to claim sm_86 SASS: what user B
// plants in a shared cache to turn user A's CC621 into a PASS.
std::string forged_cache(const std::string& directory, const std::string& binary) {
    {
        GpuCodeCache cache(directory);
        (void)cache.summary_of(binary);
        EXPECT_EQ(test::error_of(cache.save()), "");
    }
    const std::string file = directory + "/gpu-code-v2.json";
    nlohmann::json document = nlohmann::json::parse(test::read_text(file));
    EXPECT_GE(document["entries"].size(), 1u);
    for (auto& entry : document["entries"]) {
        entry["sass"] = {"sm_86"};
        entry["ptx"] = nlohmann::json::array();
    }
    std::ofstream(file, std::ios::trunc) << document.dump();
    return file;
}

std::vector<std::string> sass_names(const GpuCodeSummary& summary) {
    std::vector<std::string> names;
    for (const GpuArch& arch : summary.targets.sass) names.push_back(arch.sass_name());
    return names;
}
const std::vector<std::string> real_sass = {"sm_75", "sm_90a", "sm_100f"};

TEST(HostileOutputs, a_gpu_code_cache_of_another_user_is_neither_read_nor_written) {
    SKIP_UNLESS_ROOT();
    test::TempDir dir;
    const std::string binary = dir.path() + "/libtorch_cuda.so";
    fs::copy_file(gpu_code_fixture, binary);
    const std::string cache_dir = dir.path() + "/shared-cache";
    const std::string file = forged_cache(cache_dir, binary);
    // The control: the runner's own cache is trusted (it is advisory, and the runner's own), so the
    // forged entry would answer.
    {
        GpuCodeCache own(cache_dir);
        const GpuCodeSummary summary = own.summary_of(binary);
        EXPECT_TRUE(summary.from_cache);
        EXPECT_EQ(sass_names(summary), std::vector<std::string>{"sm_86"});
        EXPECT_EQ(own.refusal(), std::nullopt);
    }
    if (!give_to(cache_dir, user_b) || !give_to(file, user_b))
        GTEST_SKIP() << "chown to uid " << user_b << " refused here";
    const std::string planted = test::read_text(file);
    GpuCodeCache cache(cache_dir);
    const GpuCodeSummary summary = cache.summary_of(binary);
    EXPECT_FALSE(summary.from_cache);
    EXPECT_EQ(sass_names(summary), real_sass);
    EXPECT_EQ(test::error_of(cache.save()), "");
    EXPECT_EQ(test::read_text(file), planted) << "written";
    EXPECT_EQ(status_of(file).st_uid, user_b);
    const std::optional<GpuCodeCacheRefusal> refusal = cache.refusal();
    ASSERT_TRUE(refusal);
    EXPECT_FALSE(refusal->not_a_file);
    EXPECT_EQ(refusal->path, cache_dir);
    EXPECT_TRUE(contains(refusal->message,
                         fmt::format("the GPU code cache directory {} belongs to uid {} (mode 0700), not to uid 0",
                                     cache_dir, user_b)))
        << refusal->message;
    EXPECT_TRUE(contains(refusal->message, "neither read nor written")) << refusal->message;
    EXPECT_TRUE(contains(refusal->remediation, "CUDACHECK_CACHE_DIR")) << refusal->remediation;

    // The directory is the runner's, the file B's: refused, and the fix is to remove the file.
    ASSERT_TRUE(give_to(cache_dir, 0));
    GpuCodeCache file_of_b(cache_dir);
    EXPECT_FALSE(file_of_b.summary_of(binary).from_cache);
    ASSERT_TRUE(file_of_b.refusal());
    EXPECT_EQ(file_of_b.refusal()->path, file);
    EXPECT_TRUE(contains(file_of_b.refusal()->message, fmt::format("file {} belongs to uid {}", file, user_b)))
        << file_of_b.refusal()->message;
    EXPECT_TRUE(contains(file_of_b.refusal()->remediation, "rm -f " + file)) << file_of_b.refusal()->remediation;
}

TEST(HostileOutputs, a_gpu_code_cache_writable_by_others_is_refused) {
    test::TempDir dir;
    const std::string binary = dir.path() + "/libtorch_cuda.so";
    fs::copy_file(gpu_code_fixture, binary);
    const std::string cache_dir = dir.path() + "/cache";
    const std::string file = forged_cache(cache_dir, binary);
    // The directory world-writable (as a shared cache under /tmp would be).
    ::chmod(cache_dir.c_str(), 0777);
    {
        GpuCodeCache cache(cache_dir);
        EXPECT_EQ(sass_names(cache.summary_of(binary)), real_sass);
        ASSERT_TRUE(cache.refusal());
        EXPECT_TRUE(
            contains(cache.refusal()->message, "directory " + cache_dir + " is writable by every user (mode 0777)"))
            << cache.refusal()->message;
        EXPECT_TRUE(contains(cache.refusal()->remediation, "chmod 700 " + cache_dir)) << cache.refusal()->remediation;
    }
    // The directory private, the file group-writable.
    ::chmod(cache_dir.c_str(), 0700);
    ::chmod(file.c_str(), 0660);
    GpuCodeCache cache(cache_dir);
    EXPECT_EQ(sass_names(cache.summary_of(binary)), real_sass);
    ASSERT_TRUE(cache.refusal());
    EXPECT_TRUE(contains(cache.refusal()->message, "file " + file + " is writable by its group (mode 0660)"))
        << cache.refusal()->message;
    EXPECT_EQ(test::error_of(cache.save()), "");
    EXPECT_EQ(mode_of(file), 0660u) << "a refused cache is not written";
}

TEST(HostileOutputs, a_fifo_or_a_link_as_the_gpu_code_cache_file_has_its_own_words_and_is_never_written_through) {
    test::TempDir dir;
    const std::string binary = dir.path() + "/libtorch_cuda.so";
    fs::copy_file(gpu_code_fixture, binary);
    const std::string cache_dir = dir.make_dir("cache");
    ::chmod(cache_dir.c_str(), 0700);
    const std::string file = cache_dir + "/gpu-code-v2.json";
    ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
    const auto start = std::chrono::steady_clock::now();
    {
        GpuCodeCache cache(cache_dir);
        EXPECT_EQ(sass_names(cache.summary_of(binary)), real_sass);
        EXPECT_EQ(test::error_of(cache.save()), "");
        ASSERT_TRUE(cache.refusal());
        EXPECT_TRUE(cache.refusal()->not_a_file);
        EXPECT_TRUE(
            contains(cache.refusal()->message, "the GPU code cache file " + file + " is a FIFO, not a regular file"))
            << cache.refusal()->message;
        // " -o": the temporary directory's random name may hold "-o" itself.
        EXPECT_FALSE(contains(cache.refusal()->message, " -o")) << "item 8k: the -o message";
        EXPECT_TRUE(contains(cache.refusal()->remediation, "rm " + file)) << cache.refusal()->remediation;
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
    EXPECT_TRUE(S_ISFIFO(status_of(file).st_mode));

    // A link to a victim file: not followed, not replaced, and the victim keeps its content and mode.
    ::unlink(file.c_str());
    const std::string victim = dir.write("victim", "the victim\n", 0644);
    ASSERT_EQ(::symlink(victim.c_str(), file.c_str()), 0);
    GpuCodeCache cache(cache_dir);
    EXPECT_FALSE(cache.summary_of(binary).from_cache);
    EXPECT_EQ(test::error_of(cache.save()), "");
    ASSERT_TRUE(cache.refusal());
    EXPECT_TRUE(cache.refusal()->not_a_file);
    EXPECT_TRUE(
        contains(cache.refusal()->message, "is a symbolic link, not a regular file (a link is never followed there"))
        << cache.refusal()->message;
    EXPECT_EQ(test::read_text(victim), "the victim\n");
    EXPECT_EQ(mode_of(victim), 0644u);
    EXPECT_TRUE(fs::is_symlink(file));

    // The cache directory that is a file.
    const std::string not_directory = dir.write("not-a-directory", "x");
    GpuCodeCache wrong(not_directory);
    (void)wrong.summary_of(binary);
    EXPECT_EQ(test::error_of(wrong.save()), "");
    ASSERT_TRUE(wrong.refusal());
    EXPECT_TRUE(
        contains(wrong.refusal()->message, "directory " + not_directory + " is a regular file, not a directory"))
        << wrong.refusal()->message;
}

TEST(HostileOutputs, a_new_gpu_code_cache_is_0700_and_0600_whatever_the_umask) {
    test::TempDir dir;
    const std::string binary = dir.path() + "/libtorch_cuda.so";
    fs::copy_file(gpu_code_fixture, binary);
    const std::string cache_dir = dir.path() + "/home/.cache/cudacheck";
    (void)dir.make_dir("home");
    const mode_t previous = ::umask(0);
    {
        GpuCodeCache cache(cache_dir);
        (void)cache.summary_of(binary);
        EXPECT_EQ(test::error_of(cache.save()), "");
        EXPECT_EQ(cache.refusal(), std::nullopt);
    }
    ::umask(previous);
    EXPECT_EQ(mode_of(dir.path() + "/home/.cache"), 0700u);
    EXPECT_EQ(mode_of(cache_dir), 0700u);
    EXPECT_EQ(mode_of(cache_dir + "/gpu-code-v2.json"), 0600u);
    EXPECT_EQ(temporary_files(cache_dir), 0u);
    GpuCodeCache again(cache_dir);
    EXPECT_TRUE(again.summary_of(binary).from_cache);
}

TEST(HostileOutputs, a_file_swapped_for_another_with_the_same_size_and_mtime_is_read_again) {
    test::TempDir dir;
    const std::string binary = dir.path() + "/libtorch_cuda.so";
    fs::copy_file(gpu_code_fixture, binary);
    const std::string cache_dir = dir.path() + "/cache";
    {
        GpuCodeCache cache(cache_dir);
        (void)cache.summary_of(binary);
        EXPECT_EQ(test::error_of(cache.save()), "");
        GpuCodeCache again(cache_dir);
        EXPECT_TRUE(again.summary_of(binary).from_cache);
    }
    // Another file (here: a copy) renamed over it, its size the same and its mtime set back.
    const std::string other = dir.path() + "/other.so";
    fs::copy_file(gpu_code_fixture, other);
    fs::last_write_time(other, fs::last_write_time(binary));
    fs::rename(other, binary);
    {
        GpuCodeCache cache(cache_dir);
        EXPECT_FALSE(cache.summary_of(binary).from_cache) << "another inode";
        EXPECT_EQ(test::error_of(cache.save()), "");
    }
    // Only its change time moves (chmod): read again too.
    ::chmod(binary.c_str(), 0600);
    GpuCodeCache cache(cache_dir);
    EXPECT_FALSE(cache.summary_of(binary).from_cache) << "another ctime";
}

TEST(HostileOutputs, the_gpu_code_cache_keeps_a_non_utf8_path_exactly) {
    test::TempDir dir;
    const std::string binary = dir.make_dir(std::string("caf\xe9 \xff")) + "/libtorch_cuda.so";
    fs::copy_file(gpu_code_fixture, binary);
    const std::string cache_dir = dir.path() + "/cache";
    {
        GpuCodeCache cache(cache_dir);
        EXPECT_EQ(sass_names(cache.summary_of(binary)), real_sass);
        EXPECT_EQ(test::error_of(cache.save()), "") << "type_error.316 no more";
    }
    const std::string text = test::read_text(cache_dir + "/gpu-code-v2.json");
    EXPECT_TRUE(nlohmann::json::accept(text)) << text;
    EXPECT_TRUE(contains(text, "\"key_hex\"")) << text;
    GpuCodeCache again(cache_dir);
    const GpuCodeSummary summary = again.summary_of(binary);
    EXPECT_TRUE(summary.from_cache);
    EXPECT_EQ(sass_names(summary), real_sass);
}

// A virtual environment with the GPU machine's torch metadata whose libtorch_cuda.so carries
// multi.o's GPU code (no SASS or PTX an sm_86 GPU runs): frameworks.builds' CC621 on a GPU of
// compute capability 8.6.
struct TorchWithoutSm86 {
    test::TempDir dir;
    std::string prefix = dir.path() + "/venv";
    std::string binary = prefix + "/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so";
    TorchWithoutSm86() {
        fs::copy(test::fixture_path("frameworks/h200-venv"), prefix, fs::copy_options::recursive);
        fs::create_directories(fs::path(binary).parent_path());
        fs::copy_file(gpu_code_fixture, binary, fs::copy_options::overwrite_existing);
    }
    [[nodiscard]] test::BinaryRun run(const std::string& cache_dir, const std::string& report) const {
        return run_cudacheck({"--python", prefix, "--only", "frameworks.builds", "-q", "-o", report},
                             {{"LD_LIBRARY_PATH", fake_driver_dir},
                              {"FAKE_CUDA_CC", "8.6"},
                              {"FAKE_CUDA_DRIVER_VERSION", "13000"},
                              {"CUDACHECK_CACHE_DIR", cache_dir},
                              {"PATH", "/nonexistent"}});
    }
};

std::vector<std::string> codes_in(const std::string& report_path) {
    std::vector<std::string> codes;
    const nlohmann::json report = nlohmann::json::parse(test::read_text(report_path));
    if (const nlohmann::json* check = test::find_check(report, "frameworks.builds"))
        for (const nlohmann::json& finding : check->at("findings"))
            codes.push_back(finding.at("code").get<std::string>());
    (void)test::expect_codes_declared(report);
    return codes;
}
bool has(const std::vector<std::string>& codes, const std::string& code) {
    return std::find(codes.begin(), codes.end(), code) != codes.end();
}

TEST(HostileOutputs, another_users_planted_cache_entry_does_not_change_the_verdict) {
    SKIP_UNLESS_ROOT();
    // The trial, through the binary with the fake driver: user B's entry in a shared cache
    // turned user A's FAIL CC621 into PASS "0 sm_90 SASS".
    const TorchWithoutSm86 venv;
    const std::string report = venv.dir.path() + "/report.json";
    const std::string cache_dir = venv.dir.path() + "/shared-cache";
    const test::BinaryRun honest = venv.run(cache_dir, report);
    EXPECT_EQ(honest.exit_status, 1) << honest.output;
    ASSERT_TRUE(has(codes_in(report), "CC621")) << test::read_text(report);
    // B forges the entry: the control first, the runner's own forged cache is believed (so the
    // forgery would work), then the same file given to B is refused.
    const std::string file = forged_cache(cache_dir, venv.binary);
    const test::BinaryRun believed = venv.run(cache_dir, report);
    EXPECT_FALSE(has(codes_in(report), "CC621")) << "the forged entry does not claim what the test means:\n"
                                                 << test::read_text(report);
    if (!give_to(cache_dir, user_b) || !give_to(file, user_b))
        GTEST_SKIP() << "chown to uid " << user_b << " refused here";
    const std::string planted = test::read_text(file);
    const test::BinaryRun run = venv.run(cache_dir, report);
    EXPECT_EQ(run.exit_status, 1) << run.output;
    const std::vector<std::string> codes = codes_in(report);
    EXPECT_TRUE(has(codes, "CC621")) << test::read_text(report);
    EXPECT_TRUE(has(codes, "CC639")) << test::read_text(report);
    EXPECT_TRUE(contains(test::read_text(report), fmt::format("belongs to uid {}", user_b))) << test::read_text(report);
    EXPECT_EQ(test::read_text(file), planted);
}

TEST(HostileOutputs, a_fifo_as_the_cache_file_is_a_finding_of_its_own_through_the_binary) {
    const TorchWithoutSm86 venv;
    const std::string report = venv.dir.path() + "/report.json";
    const std::string cache_dir = venv.dir.make_dir("cache");
    ::chmod(cache_dir.c_str(), 0700);
    ASSERT_EQ(::mkfifo((cache_dir + "/gpu-code-v2.json").c_str(), 0600), 0);
    const test::BinaryRun run = venv.run(cache_dir, report);
    EXPECT_FALSE(run.timed_out);
    EXPECT_LT(run.wall_ms, 30000.0);
    EXPECT_EQ(run.exit_status, 1) << run.output;
    const std::vector<std::string> codes = codes_in(report);
    EXPECT_TRUE(has(codes, "CC640")) << test::read_text(report);
    EXPECT_TRUE(has(codes, "CC621")) << test::read_text(report);
    const std::string text = test::read_text(report);
    EXPECT_FALSE(contains(text, "-o writes only regular files")) << text;
}

TEST(HostileOutputs, frameworks_in_a_non_utf8_environment_are_judged_and_cached) {
    // Item 6: the cache's strict dump() threw type_error.316 on a non-UTF-8 real path, and
    // frameworks.builds ended in CC901. Here the whole probe runs in-process over such a path.
    test::TempDir dir;
    const std::string prefix = dir.path() + "/env-\xff\xfe";
    fs::copy(test::fixture_path("frameworks/h200-venv"), prefix, fs::copy_options::recursive);
    const std::string binary = prefix + "/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so";
    fs::create_directories(fs::path(binary).parent_path());
    fs::copy_file(gpu_code_fixture, binary, fs::copy_options::overwrite_existing);
    Environment environment;
    environment.set("PATH", "/nonexistent");
    const std::vector<std::string> extra = {prefix};
    const std::string cache_dir = dir.path() + "/cache";
    for (const bool cached : {false, true}) {
        const PythonFacts facts = collect_python_facts(environment, extra, "", cache_dir);
        EXPECT_EQ(facts.cache_problem, "");
        EXPECT_EQ(facts.cache_refused, std::nullopt);
        ASSERT_EQ(facts.environments.size(), 1u);
        bool judged = false;
        for (const FrameworkFacts& framework : facts.environments[0].frameworks)
            if (framework.gpu_code && framework.gpu_code->path == binary) {
                judged = true;
                EXPECT_EQ(framework.gpu_code->from_cache, cached);
                EXPECT_EQ(sass_names(*framework.gpu_code), real_sass);
            }
        EXPECT_TRUE(judged);
    }
}

}  // namespace
}  // namespace cudacheck
