// Fixtures for the parser and probe tests: the real captures under tests/fixtures/ and crafted
// directory trees (tests/fixtures/README.md).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/stat.h>

namespace cudacheck::test {

namespace fs = std::filesystem;

// The text of a fixture file, by its path under tests/fixtures/.
inline std::string fixture(const std::string& relative) {
    const std::string path = std::string(CUDACHECK_SOURCE_DIR "/tests/fixtures/") + relative;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("missing fixture " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string fixture_path(const std::string& relative) {
    return std::string(CUDACHECK_SOURCE_DIR "/tests/fixtures/") + relative;
}

// A directory made with mkdtemp, removed with everything under it at the end of the test.
class ScratchTree {
public:
    ScratchTree() {
        std::string pattern = (fs::temp_directory_path() / "cudacheck-parsers-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        // Canonical, so paths compare equal to what realpath() reports.
        path_ = fs::canonical(pattern).string();
    }
    ScratchTree(const ScratchTree&) = delete;
    ScratchTree& operator=(const ScratchTree&) = delete;
    ~ScratchTree() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    [[nodiscard]] const std::string& path() const { return path_; }

    std::string write(const std::string& relative, std::string_view content, unsigned mode = 0644) const {
        const fs::path full = fs::path(path_) / relative;
        fs::create_directories(full.parent_path());
        {
            std::ofstream out(full, std::ios::binary | std::ios::trunc);
            out << content;
        }
        ::chmod(full.c_str(), mode);
        return full.string();
    }
    std::string make_dir(const std::string& relative) const {
        const fs::path full = fs::path(path_) / relative;
        fs::create_directories(full);
        return full.string();
    }
    std::string symlink(const std::string& target, const std::string& relative) const {
        const fs::path full = fs::path(path_) / relative;
        fs::create_directories(full.parent_path());
        fs::create_symlink(target, full);
        return full.string();
    }

private:
    std::string path_;
};

// A site-packages assembled from real files of released wheels (tests/fixtures/frameworks/wheels,
// each fetched by tools/fetch-wheel-files.py; SOURCE names the wheel and its sha256). The members
// a NAMES file lists (only their names were copied) are created empty.
struct ReleasedWheels {
    ScratchTree tree;
    std::string site = tree.path() + "/site-packages";
    explicit ReleasedWheels(std::initializer_list<const char*> wheels) {
        fs::create_directories(site);
        for (const char* wheel : wheels) {
            const fs::path from = fixture_path(std::string("frameworks/wheels/") + wheel);
            for (const auto& entry : fs::directory_iterator(from)) {
                const std::string name = entry.path().filename().string();
                if (name == "SOURCE") continue;
                if (name != "NAMES") {
                    fs::copy(entry.path(), site + "/" + name, fs::copy_options::recursive);
                    continue;
                }
                std::ifstream names(entry.path());
                for (std::string member; std::getline(names, member);) {
                    if (member.empty()) continue;
                    fs::create_directories(fs::path(site + "/" + member).parent_path());
                    std::ofstream(site + "/" + member).flush();
                }
            }
        }
    }
};

}  // namespace cudacheck::test
