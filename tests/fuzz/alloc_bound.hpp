// The allocation bound of docs/hardening.md, checked on every fuzz input.
//
// ASan's malloc/free hooks count the bytes live since `begin_load`; the peak
// of the load (until `loaded`, or the end when loading throws) must stay within
// 512 x T + 2 x P + 1 MiB for T topology bytes and P parameter bytes, and the
// peak of the whole input within that plus what `fuzz_program_limits()` allows
// preparing a program (folded constants, arena) plus the largest inputs
// `set_inputs` makes.  Over the bound: a report on stderr and abort(), which
// libFuzzer keeps as a crash (`check`, the fuzz targets), or the report as a
// string (`over`, tests/fuzz/regression.cpp's run of tests/broken).  Under
// clang's -fsanitize=address only.
#pragma once

// Under ASan only: a coverage build (LITEGRAPH_FUZZ_COVERAGE) has no
// allocator hooks, and install/check do nothing.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LITEGRAPH_ALLOC_BOUND 1
#endif
#endif

#ifdef LITEGRAPH_ALLOC_BOUND
#include <sanitizer/allocator_interface.h>
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/harness.hpp"

namespace litegraph::fuzz::alloc_bound {

#ifndef LITEGRAPH_ALLOC_BOUND
inline void install() {}
inline std::string over(bool) {
    return {};
}
inline void check(bool) {}
#else

struct meter {
    bool on = false;
    std::int64_t live = 0;  // net bytes since begin_load (frees of older blocks count too)
    std::int64_t peak = 0;
    std::int64_t load_peak = -1;  // -1 until `loaded`
    std::uint64_t topology = 0, params = 0;
};
inline meter m;

inline void on_malloc(const volatile void*, std::size_t size) {
    if (!m.on) return;
    m.live += static_cast<std::int64_t>(size);
    if (m.live > m.peak) m.peak = m.live;
}

inline void on_free(const volatile void* p) {
    if (!m.on || !p || !__sanitizer_get_ownership(p)) return;
    m.live -= static_cast<std::int64_t>(__sanitizer_get_allocated_size(p));
}

inline std::uint64_t load_bound(std::uint64_t topology, std::uint64_t params) {
    return 512 * topology + 2 * params + (std::uint64_t{1} << 20);
}

/// What preparing a program may add to the load (docs/hardening.md).
inline std::uint64_t prepare_bound() {
    const auto l = fuzz_program_limits();
    return l.max_folded_bytes + l.max_arena_bytes +
           static_cast<std::uint64_t>(max_feed_elements) * 8;
}

inline std::string report(const char* what, std::int64_t peak, std::uint64_t bound) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "%s allocated %lld bytes at its peak, over the bound of %llu (topology %llu "
                  "bytes, parameters %llu bytes; docs/hardening.md)",
                  what, static_cast<long long>(peak), static_cast<unsigned long long>(bound),
                  static_cast<unsigned long long>(m.topology),
                  static_cast<unsigned long long>(m.params));
    return line;
}

/// Installs the hooks and the harness callbacks (once, from LLVMFuzzerInitialize).
inline void install() {
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
    hooks().begin_load = [](std::size_t topology, std::size_t params) {
        m.topology = topology;
        m.params = params;
        m.live = m.peak = 0;
        m.load_peak = -1;
        m.on = true;
    };
    hooks().loaded = [] { m.load_peak = m.peak; };
}

/// After an input ran (normally or by a litegraph::error): the peaks against
/// the bound, a report when one is over it, else empty.
inline std::string over(bool prepares) {
    if (!m.on) return {};  // the input never reached a load
    m.on = false;
    const auto load = load_bound(m.topology, m.params);
    const auto load_peak = m.load_peak >= 0 ? m.load_peak : m.peak;
    if (static_cast<std::uint64_t>(load_peak) > load) return report("loading", load_peak, load);
    const auto total = load + (prepares ? prepare_bound() : 0);
    if (static_cast<std::uint64_t>(m.peak) > total)
        return report("loading and preparing", m.peak, total);
    return {};
}

/// `over`, and a report on stderr and abort() when the input is over the bound.
inline void check(bool prepares) {
    const auto r = over(prepares);
    if (r.empty()) return;
    std::fprintf(stderr, "==alloc_bound== %s\n", r.c_str());
    std::abort();
}

#endif  // LITEGRAPH_ALLOC_BOUND

}  // namespace litegraph::fuzz::alloc_bound
