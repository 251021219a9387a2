// Owner of one handle of a library opened at run time (a cuBLAS handle, a cuFFT plan, an NVRTC
// program, an NCCL communicator), released through that library's own destroy function: a
// function pointer resolved at run time, so it travels with the handle. Move-only.
#pragma once

#include <type_traits>
#include <utility>

namespace cudacheck {

template <typename Handle, typename Destroy>
class Owned {
public:
    Owned() = default;
    // Takes over `handle`; `destroy` is called with it (or with its address, for APIs such as
    // nvrtcDestroyProgram that take a pointer to the handle) exactly once.
    Owned(Handle handle, Destroy destroy) : handle_(handle), destroy_(destroy), owns_(true) {}
    Owned(Owned&& other) noexcept
        : handle_(other.handle_), destroy_(other.destroy_), owns_(std::exchange(other.owns_, false)) {}
    Owned& operator=(Owned&& other) noexcept {
        if (this != &other) {
            reset();
            handle_ = other.handle_;
            destroy_ = other.destroy_;
            owns_ = std::exchange(other.owns_, false);
        }
        return *this;
    }
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;
    ~Owned() { reset(); }

    [[nodiscard]] Handle get() const { return handle_; }
    [[nodiscard]] bool owns() const { return owns_; }

    void reset() noexcept {
        if (!owns_) return;
        owns_ = false;
        if constexpr (std::is_invocable_v<Destroy&, Handle&>) (void)destroy_(handle_);
        else (void)destroy_(&handle_);
    }

private:
    Handle handle_{};
    Destroy destroy_{};
    bool owns_ = false;
};

}  // namespace cudacheck
