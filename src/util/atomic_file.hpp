// Writes a file so that readers see either the old content or the complete new one, never a
// truncated report: write a temporary file in the same directory, fsync, rename over the target.
// A temporary file is removed when its AtomicFile goes away uncommitted, and by
// remove_temporaries_now() from a signal handler that ends the process (isolation/stop_signals).
//
// The path is resolved the way the kernel's own open() would resolve it: a symbolic link
// is followed only where fs.protected_symlinks lets the writer follow it, an existing file in a
// sticky directory is replaced only where fs.protected_regular and the sticky bit's rename rule let
// it be, and a replaced file keeps its mode (a new one honours the umask). Every such refusal, and
// anything else that would make the final rename fail, is found by create(), before any work.
#pragma once

#include "util/expected.hpp"

#include <string>
#include <string_view>
#include <sys/types.h>

namespace cudacheck {

class AtomicFile {
public:
    // Creates the temporary file now, so an unwritable destination is found before any work.
    // On failure, the error says why in one line (and what to do).
    [[nodiscard]] static Expected<AtomicFile> create(const std::string& path);

    AtomicFile(AtomicFile&& other) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile();  // removes the temporary file unless committed

    // Writes everything, fsyncs and renames into place; or the error, naming the file as it was
    // asked for ("cannot write report.json: No space left on device"), and the temporary file is
    // then removed and the target left as it was.
    [[nodiscard]] Expected<void> commit(std::string_view content);
    [[nodiscard]] const std::string& path() const { return path_; }  // the file replaced
    [[nodiscard]] const std::string& requested() const { return requested_; }  // as given
    [[nodiscard]] const std::string& temporary_path() const { return temporary_; }

    // Unlinks every uncommitted temporary file of this process. Async-signal-safe: for a handler
    // that is about to _exit().
    static void remove_temporaries_now() noexcept;

private:
    AtomicFile(std::string requested, std::string path, std::string temporary, int fd, int slot)
        : requested_(std::move(requested)),
          path_(std::move(path)),
          temporary_(std::move(temporary)),
          fd_(fd),
          slot_(slot) {}
    void forget_temporary() noexcept;
    std::string requested_;  // as given, for messages
    std::string path_;       // the file replaced (a symlink's target)
    std::string temporary_;
    int fd_ = -1;
    int slot_ = -1;  // in the table remove_temporaries_now() reads; -1: not there
    bool finished_ = false;  // committed, or given up and its temporary file removed
};

// Who owns a file, for messages: "uid 1001 (alice)", or "uid 1001" when the name is unknown.
[[nodiscard]] std::string owner_words(uid_t uid);
// Whether this process may act on files it does not own (CAP_FOWNER in its effective set, as root
// has): the sticky bit's rename rule does not stop it, fs.protected_regular and
// fs.protected_symlinks do.
[[nodiscard]] bool may_act_on_others_files();

// strerror(error) for a failed write, and for EFBIG the limit that caused it: "File too large (the
// file-size limit, ulimit -f, is 512 bytes)".
[[nodiscard]] std::string write_error_words(int error);

// Writes all of `text` to `fd` (through EINTR and short writes), or the error saying why
// (write_error_words).
[[nodiscard]] Expected<void> write_whole(int fd, std::string_view text);

}  // namespace cudacheck
