// util/atomic_file: a report replaces its file whole or not at all, and a failed write says why,
// names the file as it was asked for, removes the temporary file and leaves the old file alone.
#include "util/atomic_file.hpp"
#include "support/expected_support.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <string>
#include <sys/resource.h>

namespace cudacheck {
namespace {

using test::contains;
namespace fs = std::filesystem;

// Sets the soft file-size limit for its lifetime, with SIGXFSZ ignored (as StopSignals catches it),
// so that a write past it fails with EFBIG instead of killing the test.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        ::getrlimit(RLIMIT_FSIZE, &previous_);
        struct rlimit limit = previous_;
        limit.rlim_cur = bytes;
        set_ = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
        struct sigaction ignore{};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        ::sigaction(SIGXFSZ, &ignore, &previous_action_);
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &previous_);
        ::sigaction(SIGXFSZ, &previous_action_, nullptr);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;
    [[nodiscard]] bool set() const { return set_; }

private:
    struct rlimit previous_{};
    struct sigaction previous_action_{};
    bool set_ = false;
};

std::size_t temporary_count(const std::string& directory) {
    std::size_t count = 0;
    for (const auto& entry : fs::directory_iterator(directory))
        count += contains(entry.path().filename().string(), ".tmp.") ? 1 : 0;
    return count;
}

TEST(AtomicFile, commit_replaces_the_file_and_leaves_no_temporary_file) {
    test::TempDir dir;
    const std::string target = dir.write("report.json", "old");
    Expected<AtomicFile> file = AtomicFile::create(target);
    ASSERT_TRUE(file) << test::error_of(file);
    EXPECT_EQ(temporary_count(dir.path()), 1u);
    EXPECT_EQ(test::error_of(file->commit("new")), "");
    EXPECT_EQ(test::read_text(target), "new");
    EXPECT_EQ(temporary_count(dir.path()), 0u);
    EXPECT_EQ(test::error_of(file->commit("again")), "cannot write " + target + ": already committed or failed")
        << "a second commit is refused, not written over the first";
}

TEST(AtomicFile, a_write_past_the_file_size_limit_names_the_file_and_the_limit_and_keeps_the_old_file) {
    test::TempDir dir;
    const std::string target = dir.write("report.json", "old");
    Expected<AtomicFile> file = AtomicFile::create(target);
    ASSERT_TRUE(file) << test::error_of(file);
    std::string failure;
    {
        const FileSizeLimit limit(4096);
        ASSERT_TRUE(limit.set());
        failure = test::error_of(file->commit(std::string(3 * 4096, 'x')));
    }
    EXPECT_EQ(failure, "cannot write " + target + ": File too large (the file-size limit, ulimit -f, is 4 KiB)");
    EXPECT_EQ(test::read_text(target), "old");
    EXPECT_EQ(temporary_count(dir.path()), 0u) << "the half-written temporary file is gone at once";
}

TEST(AtomicFile, remove_temporaries_now_unlinks_every_uncommitted_temporary_file) {
    test::TempDir dir;
    const auto create = [](const std::string& path) {
        Expected<AtomicFile> file = AtomicFile::create(path);
        EXPECT_TRUE(file) << test::error_of(file);
        return file ? std::optional<AtomicFile>(std::move(*file)) : std::nullopt;
    };
    std::optional<AtomicFile> a = create(dir.path() + "/a.json");
    std::optional<AtomicFile> b = create(dir.path() + "/b.json");
    ASSERT_TRUE(a && b);
    std::optional<AtomicFile> moved(std::move(*b));  // moving keeps it registered once
    b.reset();
    EXPECT_EQ(temporary_count(dir.path()), 2u);
    AtomicFile::remove_temporaries_now();
    EXPECT_EQ(temporary_count(dir.path()), 0u);
    // A committed one is no longer a temporary file: a later call leaves the report alone.
    std::optional<AtomicFile> c = create(dir.path() + "/c.json");
    ASSERT_TRUE(c);
    ASSERT_EQ(test::error_of(c->commit("done")), "");
    AtomicFile::remove_temporaries_now();
    EXPECT_EQ(test::read_text(dir.path() + "/c.json"), "done");
}

TEST(AtomicFile, write_error_words_give_the_file_size_limit_exactly) {
    {
        const FileSizeLimit limit(512);
        ASSERT_TRUE(limit.set());
        EXPECT_EQ(write_error_words(EFBIG), "File too large (the file-size limit, ulimit -f, is 512 bytes)");
    }
    {
        const FileSizeLimit limit(rlim_t{1} << 30);
        ASSERT_TRUE(limit.set());
        EXPECT_EQ(write_error_words(EFBIG), "File too large (the file-size limit, ulimit -f, is 1 GiB)");
    }
    EXPECT_EQ(write_error_words(ENOSPC), "No space left on device");
}

}  // namespace
}  // namespace cudacheck
