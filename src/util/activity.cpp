#include "util/activity.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace cudacheck::activity {

namespace {

// One thread's entry. Fixed-size text, cut at the end: enough for a path or a command line to be
// recognised. std::atomic<std::uint32_t> is lock-free and address-free, so it works across
// processes in shared memory.
struct Slot {
    std::atomic<std::uint32_t> sequence;  // odd while the owning thread writes
    std::uint32_t used;                   // 1 while a thread owns it
    std::uint32_t step_depth;             // GPU steps begun and not ended
    std::uint64_t file_order;
    std::uint64_t step_order;
    char check[64];
    char child[448];
    char file[512];
    char step[128];
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

// A check process runs a few dozen threads at once; one past the last slot notes nothing.
constexpr std::size_t slot_count = 128;
constexpr std::size_t board_bytes = slot_count * sizeof(Slot);

std::atomic<Slot*> board{nullptr};  // this process's mapping, once attached
std::atomic<bool> taken[slot_count];
std::atomic<std::uint64_t> noted{0};

void copy_text(char* destination, std::size_t size, std::string_view text) {
    const std::size_t length = std::min(size - 1, text.size());
    std::memcpy(destination, text.data(), length);
    destination[length] = '\0';
}

// Writes this thread's slot under its sequence number.
template <typename Write>
void write_slot(Slot& slot, Write&& write) {
    slot.sequence.fetch_add(1, std::memory_order_acq_rel);
    std::forward<Write>(write)(slot);
    slot.sequence.fetch_add(1, std::memory_order_release);
}

// This thread's slot: taken on first use, cleared and given back when the thread ends.
class ThreadSlot {
public:
    ~ThreadSlot() {
        if (slot_ == nullptr) return;
        write_slot(*slot_, [](Slot& slot) {
            slot.used = 0;
            slot.check[0] = slot.child[0] = slot.file[0] = slot.step[0] = '\0';
        });
        taken[index_].store(false, std::memory_order_release);
    }
    Slot* get(Slot* slots) {
        if (slot_ != nullptr || tried_) return slot_;
        tried_ = true;
        for (std::size_t i = 0; i < slot_count; ++i) {
            bool expected = false;
            if (!taken[i].compare_exchange_strong(expected, true)) continue;
            index_ = i;
            slot_ = &slots[i];
            write_slot(*slot_, [](Slot& slot) {
                slot.used = 1;
                slot.file_order = slot.step_order = 0;
                slot.step_depth = 0;
                slot.check[0] = slot.child[0] = slot.file[0] = slot.step[0] = '\0';
            });
            break;
        }
        return slot_;
    }

private:
    Slot* slot_ = nullptr;
    std::size_t index_ = 0;
    bool tried_ = false;
};

Slot* own_slot() {
    Slot* slots = board.load(std::memory_order_acquire);
    if (slots == nullptr) return nullptr;
    thread_local ThreadSlot slot;
    return slot.get(slots);
}

}  // namespace

bool attach(int fd) {
    struct stat status{};
    if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode) ||
        static_cast<std::size_t>(status.st_size) != board_bytes)
        return false;
    void* memory = ::mmap(nullptr, board_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (memory == MAP_FAILED) return false;
    board.store(static_cast<Slot*>(memory), std::memory_order_release);
    return true;
}

void label_thread(std::string_view check_id) {
    if (Slot* slot = own_slot()) write_slot(*slot, [&](Slot& s) { copy_text(s.check, sizeof s.check, check_id); });
}

void reading(std::string_view path) {
    if (Slot* slot = own_slot()) {
        const std::uint64_t order = noted.fetch_add(1, std::memory_order_relaxed) + 1;
        write_slot(*slot, [&](Slot& s) {
            copy_text(s.file, sizeof s.file, path);
            s.file_order = order;
        });
    }
}

void gpu_step(std::string_view what) {
    if (Slot* slot = own_slot()) {
        const std::uint64_t order = noted.fetch_add(1, std::memory_order_relaxed) + 1;
        write_slot(*slot, [&](Slot& s) {
            copy_text(s.step, sizeof s.step, what);
            s.step_order = order;
            ++s.step_depth;
        });
    }
}

void gpu_step_ended() {
    if (Slot* slot = own_slot())
        write_slot(*slot, [](Slot& s) { s.step_depth = s.step_depth > 0 ? s.step_depth - 1 : 0; });
}

Running::Running(std::string_view command) {
    if (Slot* slot = own_slot()) {
        write_slot(*slot, [&](Slot& s) { copy_text(s.child, sizeof s.child, command); });
        noted_ = true;
    }
}

Running::~Running() {
    if (!noted_) return;
    if (Slot* slot = own_slot()) write_slot(*slot, [](Slot& s) { s.child[0] = '\0'; });
}

std::optional<Board> Board::create() {
    // memfd_create: glibc 2.27, Linux 3.17. Close-on-exec: only the worker gets it, as fd 4.
    const int fd = ::memfd_create("cudacheck-activity", MFD_CLOEXEC);
    if (fd < 0) return std::nullopt;
    if (::ftruncate(fd, static_cast<off_t>(board_bytes)) != 0) {
        ::close(fd);
        return std::nullopt;
    }
    void* memory = ::mmap(nullptr, board_bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (memory == MAP_FAILED) {
        ::close(fd);
        return std::nullopt;
    }
    return Board(fd, memory);
}

Board::Board(Board&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), memory_(std::exchange(other.memory_, nullptr)) {}

Board& Board::operator=(Board&& other) noexcept {
    if (this != &other) {
        this->~Board();
        fd_ = std::exchange(other.fd_, -1);
        memory_ = std::exchange(other.memory_, nullptr);
    }
    return *this;
}

Board::~Board() {
    if (memory_ != nullptr) ::munmap(memory_, board_bytes);
    if (fd_ >= 0) ::close(fd_);
}

std::vector<ThreadActivity> Board::read() const {
    std::vector<ThreadActivity> threads;
    if (memory_ == nullptr) return threads;
    auto* slots = static_cast<Slot*>(memory_);
    for (std::size_t i = 0; i < slot_count; ++i) {
        Slot& slot = slots[i];
        ThreadActivity entry;
        bool used = false;
        // A writer that is still alive finishes within microseconds; one that died mid-write leaves
        // an odd number for good: the entry is then taken as it is, marked torn.
        for (int attempt = 0; attempt < 100; ++attempt) {
            const std::uint32_t before = slot.sequence.load(std::memory_order_acquire);
            char check[sizeof slot.check];
            char child[sizeof slot.child];
            char file[sizeof slot.file];
            char step[sizeof slot.step];
            std::memcpy(check, slot.check, sizeof check);
            std::memcpy(child, slot.child, sizeof child);
            std::memcpy(file, slot.file, sizeof file);
            std::memcpy(step, slot.step, sizeof step);
            entry.file_order = slot.file_order;
            entry.gpu_step_order = slot.step_order;
            entry.gpu_step_in_flight = slot.step_depth > 0;
            used = slot.used != 0;
            std::atomic_thread_fence(std::memory_order_acquire);
            const std::uint32_t after = slot.sequence.load(std::memory_order_relaxed);
            entry.torn = before != after || (before & 1U) != 0;
            check[sizeof check - 1] = child[sizeof child - 1] = file[sizeof file - 1] = step[sizeof step - 1] = '\0';
            entry.check = check;
            entry.child = child;
            entry.last_file = file;
            entry.last_gpu_step = step;
            if (!entry.torn) break;
        }
        if (used &&
            (!entry.check.empty() || !entry.child.empty() || !entry.last_file.empty() || !entry.last_gpu_step.empty()))
            threads.push_back(std::move(entry));
    }
    return threads;
}

}  // namespace cudacheck::activity
