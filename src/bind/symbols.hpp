// How every library opened at run time is bound: a struct of typed function pointers (the API a
// caller uses) and one constexpr table of {exported name, member} entries, filled in one step that
// names every required symbol the library lacks.
//
//   struct CufftApi { decltype(&::cufftPlanMany) plan_many = nullptr; ... };
//   constexpr LibrarySymbol<CufftApi> cufft_symbols[] = {required_symbol<&CufftApi::plan_many>("cufftPlanMany"), ...};
//   const std::vector<std::string> missing = bind_symbols(library, cufft_symbols, api);
#pragma once

#include "bind/dynamic_library.hpp"

#include <span>
#include <string>
#include <vector>

namespace cudacheck {

namespace detail {
template <typename Member>
struct MemberOf;
template <typename Owner, typename Type>
struct MemberOf<Type Owner::*> {
    using owner = Owner;
    using type = Type;
};
}  // namespace detail

// One entry point of `Api`: the name it is exported under, an older name tried when that one is
// absent (an entry point NVIDIA renamed), and whether the API is usable without it.
template <typename Api>
struct LibrarySymbol {
    const char* name = nullptr;
    const char* fallback = nullptr;  // nullptr: none
    bool required = true;
    void (*assign)(Api& api, void* address) = nullptr;
};

namespace detail {
template <auto Member>
constexpr LibrarySymbol<typename MemberOf<decltype(Member)>::owner> symbol(const char* name, const char* fallback,
                                                                           bool required) {
    using Api = typename MemberOf<decltype(Member)>::owner;
    using Function = typename MemberOf<decltype(Member)>::type;
    return {name, fallback, required,
            [](Api& api, void* address) { api.*Member = reinterpret_cast<Function>(address); }};
}
}  // namespace detail

// An entry point the API cannot do without: its absence is reported.
template <auto Member>
[[nodiscard]] constexpr auto required_symbol(const char* name) {
    return detail::symbol<Member>(name, nullptr, true);
}
// An entry point the caller checks for nullptr before use; `fallback` is tried when `name` is absent.
template <auto Member>
[[nodiscard]] constexpr auto optional_symbol(const char* name, const char* fallback = nullptr) {
    return detail::symbol<Member>(name, fallback, false);
}

// Fills every member of `api` that the table names (nullptr where the library lacks it) and
// returns the required names it lacks, in table order; empty when the API is complete.
template <typename Api>
[[nodiscard]] std::vector<std::string> bind_symbols(const DynamicLibrary& library,
                                                    std::span<const LibrarySymbol<Api>> symbols, Api& api) {
    std::vector<std::string> missing;
    for (const LibrarySymbol<Api>& symbol : symbols) {
        void* address = library.symbol(symbol.name);
        if (address == nullptr && symbol.fallback != nullptr) address = library.symbol(symbol.fallback);
        symbol.assign(api, address);
        if (address == nullptr && symbol.required) missing.emplace_back(symbol.name);
    }
    return missing;
}
template <typename Api, std::size_t Size>
[[nodiscard]] std::vector<std::string> bind_symbols(const DynamicLibrary& library,
                                                    const LibrarySymbol<Api> (&symbols)[Size], Api& api) {
    return bind_symbols(library, std::span<const LibrarySymbol<Api>>(symbols), api);
}

}  // namespace cudacheck
