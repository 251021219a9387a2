// libFuzzer target for the zip reader behind `cudacheck inspect WHEEL` (util/zip_archive.hpp): any
// input opens as an archive or gives one line saying why not, never a crash, an out-of-bounds read,
// a hang or a huge allocation (libFuzzer's -rss_limit_mb catches those); every member it lists lies
// inside the input; each member reads, forward and back, or fails in one line, and a read returns
// exactly the bytes asked for. The input goes through a memfd, since the reader opens a path.
#include "fuzz/fuzz_support.hpp"
#include "util/zip_archive.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

void require_one_line(const cudacheck::Error& error) {
    cudacheck::fuzz::require(!error.message.empty(), "refused without a reason");
    cudacheck::fuzz::require(error.message.find('\n') == std::string::npos, "the reason is not one line",
                             error.message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudacheck;
    const int fd = ::memfd_create("zip-archive-fuzz", MFD_CLOEXEC);
    if (fd < 0) return 0;
    std::size_t written = 0;
    while (written < size) {
        const ssize_t got = ::write(fd, data + written, size - written);
        if (got <= 0) break;
        written += static_cast<std::size_t>(got);
    }
    if (written == size) {
        Expected<ZipArchive> archive = ZipArchive::open("/proc/self/fd/" + std::to_string(fd));
        if (!archive) {
            require_one_line(archive.error());
        } else {
            fuzz::require(archive->file_size() == size, "the archive's size is not the input's");
            std::uint64_t budget = std::uint64_t{16} << 20;  // bytes read in all, so that one input stays quick
            for (const ZipMember& member : archive->members()) {
                fuzz::require(member.local_header_offset < size && member.space_end <= size,
                              "a member outside the input");
                Expected<std::unique_ptr<ZipMemberSource>> source = archive->open_member(member);
                if (!source) {
                    require_one_line(source.error());
                    continue;
                }
                fuzz::require((*source)->size() == member.uncompressed_size,
                              "a source of another size than its member");
                // Forward in 4 KiB reads, then the start again: the cursor resumes from a checkpoint.
                const std::uint64_t stop = std::min<std::uint64_t>(member.uncompressed_size, budget);
                bool failed = false;
                for (std::uint64_t offset = 0; offset < stop && !failed; offset += 4096) {
                    const auto length =
                        static_cast<std::size_t>(std::min<std::uint64_t>(4096, member.uncompressed_size - offset));
                    const Expected<std::span<const std::uint8_t>> bytes = (*source)->read(offset, length);
                    if (!bytes) {
                        require_one_line(bytes.error());
                        failed = true;
                    } else {
                        fuzz::require(bytes->size() == length, "a read of another length than asked");
                    }
                }
                budget -= stop;
                if (!failed && member.uncompressed_size > 0) {
                    const Expected<std::span<const std::uint8_t>> again = (*source)->read(0, 1);
                    if (!again) require_one_line(again.error());
                }
                if (member.uncompressed_size <= (std::uint64_t{1} << 20)) {
                    const Expected<std::string> whole = archive->read_member(member, 1 << 20);
                    if (!whole) require_one_line(whole.error());
                    else
                        fuzz::require(whole->size() == member.uncompressed_size, "a member read whole to another size");
                }
                if (budget == 0) break;
            }
        }
    }
    ::close(fd);
    return 0;
}
