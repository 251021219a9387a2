// Writes a file so that readers see either the old content or the complete new one, never a
// truncated report: write a temporary file in the same directory, fsync, rename over the target.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cudacheck {

class AtomicFile {
public:
    // Creates the temporary file now, so an unwritable destination is found before any work.
    // On failure, `error` says why in one line.
    [[nodiscard]] static std::optional<AtomicFile> create(const std::string& path, std::string& error);

    AtomicFile(AtomicFile&& other) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile();  // removes the temporary file unless committed

    // Writes everything, fsyncs and renames into place. Empty on success, else the error.
    [[nodiscard]] std::optional<std::string> commit(std::string_view content);
    [[nodiscard]] const std::string& path() const { return path_; }

private:
    AtomicFile(std::string path, std::string temporary, int fd) : path_(std::move(path)), temporary_(std::move(temporary)), fd_(fd) {}
    std::string path_;
    std::string temporary_;
    int fd_ = -1;
    bool committed_ = false;
};

}  // namespace cudacheck
