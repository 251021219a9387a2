// What the check process's threads are doing, kept where the supervisor can still read it after the
// process died or while it hangs: which check a thread runs, the program it is waiting
// for (sys::run_command), and the last file it read (sys::read_file and friends). With it a crash
// or a hang that happened while no GPU call was in flight names that program or file, instead of
// sending the user to look for GPU faults (CC902/CC903's old advice).
//
// The board is a small shared memory file (memfd_create(2)) the supervisor creates for each worker
// and hands it as a descriptor (isolation/protocol.hpp's activity_fd); the worker maps it. Each
// thread writes only its own slot, under a sequence number (odd while it writes), so a reader never
// takes half an entry for a whole one. Without a board (tests, `cudacheck env`, --no-isolation)
// noting costs one relaxed load.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck::activity {

// The worker: maps the board behind `fd` (and closes `fd`); false when `fd` is not one.
bool attach(int fd);

// Notes that this thread now runs `check_id` (for the threads the engine runs a check on).
void label_thread(std::string_view check_id);
// Notes the file this thread opens to read; it stays noted after the read, as parsing follows.
void reading(std::string_view path);
// Notes a step that calls into the GPU's driver or a CUDA library (util/actions.hpp's steps: a
// load, cuInit, a context, a handle) as it begins, described, and as it ends (on the same thread).
void gpu_step(std::string_view what);
void gpu_step_ended();

// A child program this thread waits for, noted for the object's lifetime.
class Running {
public:
    explicit Running(std::string_view command);
    ~Running();
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;

private:
    bool noted_ = false;
};

// One thread's entry, as read back.
struct ThreadActivity {
    std::string check;       // empty: a thread the engine did not label (a probe, a check's helper thread)
    std::string child;       // the program it was waiting for, with its arguments; empty: none
    std::string last_file;   // empty: none read
    std::uint64_t file_order = 0;  // larger: later (one counter for files and steps, the whole process)
    std::string last_gpu_step;     // empty: none taken
    std::uint64_t gpu_step_order = 0;
    bool gpu_step_in_flight = false;  // begun and not ended
    bool torn = false;       // it was being written when read (the process died or was stopped mid-write)
};

// The supervisor's side: one board per worker.
class Board {
public:
    // Empty optional when no shared memory file can be made (the worker then runs without one).
    [[nodiscard]] static std::optional<Board> create();
    Board(Board&& other) noexcept;
    Board& operator=(Board&& other) noexcept;
    Board(const Board&) = delete;
    Board& operator=(const Board&) = delete;
    ~Board();

    // The descriptor to hand the worker.
    [[nodiscard]] int fd() const { return fd_; }
    // Every slot a thread used.
    [[nodiscard]] std::vector<ThreadActivity> read() const;

private:
    Board(int fd, void* memory) : fd_(fd), memory_(memory) {}
    int fd_ = -1;
    void* memory_ = nullptr;
};

}  // namespace cudacheck::activity
