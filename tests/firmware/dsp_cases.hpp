// The Cortex-M DSP int8 kernels against the reference int8 kernels, on many
// shapes with deterministic pseudo-random int8 data: int32 accumulators
// compared bit for bit.  Shared by the bare-metal test firmware
// (dsp_kernels.cpp, under QEMU) and the desktop unit test
// (tests/kernels/cortex_m.cpp, the kernels on math.hpp's portable fallback).
// P: put(const char*), counter_start(), counter_stop() -> ticks.
#pragma once

#include <cstdint>

#include "litegraph/kernels/conv_int8.hpp"
#include "litegraph/kernels/cortex_m/fc_packed.hpp"
#include "litegraph/kernels/cortex_m/kernels.hpp"

namespace dsp_test {

namespace k = litegraph::kernels;

inline constexpr std::int64_t max_elems = 16384, max_scratch = 8192;
// x_buf 4-aligned, with room to shift the input by a byte (the unaligned copies).
alignas(4) inline std::int8_t x_buf[max_elems + 4];
inline std::int8_t f_buf[max_elems];
inline std::int32_t ref_out[max_elems], dsp_out[max_elems];
inline std::int64_t scratch[max_scratch];
inline std::uint32_t packed_buf[max_elems / 2 + 512];  // fc weights widened to int16 pairs

/// Fill modes: 0 pseudo-random, 1 all -128 (the largest products), 2 +127/-128.
inline void fill(std::int8_t* p, std::int64_t n, std::uint32_t seed, int mode) {
    std::uint32_t s = seed * 2654435761u + 1u;
    for (std::int64_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        p[i] = mode == 0   ? static_cast<std::int8_t>(s >> 24)
               : mode == 1 ? std::int8_t{-128}
                           : static_cast<std::int8_t>(i % 2 ? 127 : -128);
    }
}

struct conv_case {
    const char* name;
    std::int64_t n, c, h, w, oc, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, groups;
    int mode;
    k::conv_geometry geometry() const {
        k::conv_geometry g{};
        g.n = n, g.c = c, g.h = h, g.w = w, g.oc = oc, g.kh = kh, g.kw = kw;
        g.sh = sh, g.sw = sw, g.dh = dh, g.dw = dw, g.pt = pt, g.pb = pb, g.pl = pl, g.pr = pr;
        g.groups = groups;
        g.oh = k::conv_geometry::out_size(h, kh, dh, pt, pb, sh);
        g.ow = k::conv_geometry::out_size(w, kw, dw, pl, pr, sw);
        return g;
    }
    std::int64_t macs() const {
        const auto g = geometry();
        return g.n * g.oc * g.oh * g.ow * (g.c / g.groups) * g.kh * g.kw;
    }
};

struct fc_case {
    const char* name;
    std::int64_t m, k, n;
    int mode;
};

// clang-format off
inline constexpr conv_case conv_cases[] = {
    // name                n  c   h   w  oc kh kw sh sw pt pb pl pr dh dw  g  mode
    {"1x1 c3 oc5 5x7",     1, 3,  5,  7, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0},
    {"1x1 c8 oc16 8x8",    1, 8,  8,  8,16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0},
    {"1x1 c13 oc7 9x9 s2", 1,13,  9,  9, 7, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0},
    {"1x1 c5 oc3 pad1",    1, 5,  4,  6, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
    {"1x1 n2 c6 oc9",      2, 6,  3,  5, 9, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0},
    {"1x1 c64 oc4 -128",   1,64,  4,  4, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1},
    {"1x1 c33 oc3 alt",    1,33,  3,  3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 2},
    {"3x3 c3 oc8 7x7 p1",  1, 3,  7,  7, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
    {"3x3 c5 oc6 9x11 s2", 1, 5,  9, 11, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0},
    {"3x3 c7 oc3 6x5 p0",  1, 7,  6,  5, 3, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0},
    {"3x3 c4 oc5 d2 p2",   1, 4,  9,  9, 5, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 0},
    {"3x3 n2 c4 oc4 5x5",  2, 4,  5,  5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
    {"3x3 c9 oc5 asym p",  1, 9,  7,  8, 5, 3, 3, 2, 1, 0, 1, 1, 0, 1, 1, 1, 0},
    {"3x3 c16 oc2 -128",   1,16,  5,  5, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {"5x5 c2 oc4 10x10",   1, 2, 10, 10, 4, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1, 0},
    {"3x1 c3 oc3",         1, 3,  6,  7, 3, 3, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0},
    {"dw3x3 c5 7x9 p1",    1, 5,  7,  9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5, 0},
    {"dw3x3 c3 10x10 s2",  1, 3, 10, 10, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3, 0},
    {"dw3x3 c4 6x6 p0",    1, 4,  6,  6, 4, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 4, 0},
    {"dw3x3 c7 11x5 s2x1", 1, 7, 11,  5, 7, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 7, 0},
    {"dw3x3 c4 asym p s2", 1, 4,  7,  8, 4, 3, 3, 2, 2, 1, 0, 0, 1, 1, 1, 4, 0},
    {"dw3x3 n2 c3 -128",   2, 3,  5,  6, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1},
    {"dw3x3 c2 alt",       1, 2,  5,  5, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2},
    {"dw5x5 c3 9x9 p2",    1, 3,  9,  9, 3, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 3, 0},
    {"dw3x3 c2 dh2",       1, 2,  9,  7, 2, 3, 3, 1, 1, 2, 2, 1, 1, 2, 1, 2, 0},
    {"dw3x3 c3 x2 mult",   1, 3,  6,  6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 0},
    {"dw1x1 c5",           1, 5,  4,  5, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 5, 0},
    {"dw5x5 c3 11x13 s2 p2",  1, 3, 11, 13, 3, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 3, 0},
    {"dw5x5 c2 8x9 s2 asym",  1, 2,  8,  9, 2, 5, 5, 2, 2, 1, 2, 2, 1, 1, 1, 2, 0},
    {"dw5x5 c2 7x7 p0 -128",  1, 2,  7,  7, 2, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1, 2, 1},
    {"dw5x5 n2 c2 6x5 p2 x2", 2, 2,  6,  5, 4, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 2, 0},
    {"dw3x3 c3 9x9 s2 p0",    1, 3,  9,  9, 3, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 3, 0},
    {"dw3x3 c2 8x7 s2 alt",   1, 2,  8,  7, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2, 2},
    {"dw3x3 c2 5x6 s1x2 d2",  1, 2,  9,  6, 2, 3, 3, 1, 2, 2, 2, 1, 1, 2, 1, 2, 0},
    {"dw3x3 c2 d2 (ref)",  1, 2,  9,  9, 2, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2, 0},
    {"g2 3x3 c4 oc6 (ref)",1, 4,  6,  6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0},
};
inline constexpr fc_case fc_cases[] = {
    {"fc 1x7x5", 1, 7, 5, 0},     {"fc 1x64x10", 1, 64, 10, 0}, {"fc 3x33x9", 3, 33, 9, 0},
    {"fc 2x128x64", 2, 128, 64, 0}, {"fc 1x1x1", 1, 1, 1, 0},   {"fc 4x16x4", 4, 16, 4, 0},
    {"fc 1x256x13 -128", 1, 256, 13, 1}, {"fc 2x31x7 alt", 2, 31, 7, 2},
};
// The shapes the instructions per MAC are measured on.
inline constexpr conv_case conv_bench[] = {
    {"conv1x1 c32 oc32 16x16",     1,32, 16, 16,32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0},
    {"conv1x1 c64 oc64 8x8",       1,64,  8,  8,64, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0},
    {"conv1x1 c16 oc64 16x16",     1,16, 16, 16,64, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0},
    {"conv3x3 c16 oc16 16x16 p1",  1,16, 16, 16,16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
    {"dw3x3 c32 16x16 p1",         1,32, 16, 16,32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,32, 0},
    {"dw3x3 c32 16x16 p1 s2",      1,32, 16, 16,32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1,32, 0},
    {"dw3x3 c16 32x32 p1 s2",      1,16, 32, 32,16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1,16, 0},
    {"dw5x5 c32 16x16 p2",         1,32, 16, 16,32, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1,32, 0},
    {"dw5x5 c32 16x16 p2 s2",      1,32, 16, 16,32, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1,32, 0},
};
inline constexpr fc_case fc_bench[] = {{"fc 1x256x64", 1, 256, 64, 0}};
// clang-format on

struct store_sink {
    std::int32_t* out;
    std::int64_t planes, plane;  // output channels per image, pixels per plane (fc: 1, N)
    void operator()(std::int64_t n, std::int64_t oc, std::int64_t off, const std::int32_t* v,
                    std::int64_t count) const {
        std::int32_t* d = out + (n * planes + oc) * plane + off;
        for (std::int64_t i = 0; i < count; ++i) d[i] = v[i];
    }
};
struct null_sink {
    void operator()(std::int64_t, std::int64_t, std::int64_t, const std::int32_t*,
                    std::int64_t) const {}
};

template <class P>
void put_dec(std::uint64_t v) {
    char s[21];
    int i = 20;
    s[i] = 0;
    do {
        s[--i] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    P::put(s + i);
}

template <class P>
bool compare(const char* name, std::int64_t count, const char* note = "") {
    for (std::int64_t i = 0; i < count; ++i)
        if (ref_out[i] != dsp_out[i]) {
            P::put("FAIL ");
            P::put(name);
            P::put(note);
            P::put(" at ");
            put_dec<P>(static_cast<std::uint64_t>(i));
            P::put("\n");
            return false;
        }
    P::put("ok ");
    P::put(name);
    P::put(note);
    P::put("\n");
    return true;
}

/// Sizes within the static buffers (else the case is a failure).
inline bool conv_fits(const conv_case& c) {
    const auto g = c.geometry();
    return c.n * c.c * c.h * c.w <= max_elems &&
           c.oc * (c.c / c.groups) * c.kh * c.kw <= max_elems &&
           c.n * c.oc * g.oh * g.ow <= max_elems &&
           k::cortex_m::conv_int8_scratch_words(g) <= max_scratch &&
           k::conv_int8_scratch_words(g) <= max_scratch;
}

/// The case with its input at x_buf + x_off (1: not 4-aligned).
template <class P>
bool run_conv(const conv_case& c, std::uint32_t seed, std::int64_t x_off = 0) {
    if (!conv_fits(c)) {
        P::put("FAIL (too large) ");
        P::put(c.name);
        P::put("\n");
        return false;
    }
    const auto g = c.geometry();
    std::int8_t* const x = x_buf + x_off;
    fill(x, c.n * c.c * c.h * c.w, seed, c.mode);
    fill(f_buf, c.oc * (c.c / c.groups) * c.kh * c.kw, seed + 1000, c.mode);
    const std::int64_t count = c.n * c.oc * g.oh * g.ow;
    for (std::int64_t i = 0; i < count; ++i) ref_out[i] = dsp_out[i] = 0x5A5A5A5A + i % 2;
    store_sink rs{ref_out, c.oc, g.oh * g.ow}, ds{dsp_out, c.oc, g.oh * g.ow};
    k::conv2d_int8(g, x, f_buf, scratch, k::int32_sink_ref(rs));
    k::cortex_m::conv2d_int8(g, x, f_buf, scratch, k::int32_sink_ref(ds));
    return compare<P>(c.name, count, x_off != 0 ? " (input 1 byte off alignment)" : "");
}

template <class P>
bool run_fc(const fc_case& c, std::uint32_t seed) {
    if (c.m * c.k > max_elems || c.k * c.n > max_elems || c.m * c.n > max_elems ||
        k::cortex_m::fc_int8_scratch_words(c.k, c.n) > max_scratch) {
        P::put("FAIL (too large) ");
        P::put(c.name);
        P::put("\n");
        return false;
    }
    fill(x_buf, c.m * c.k, seed, c.mode);
    fill(f_buf, c.k * c.n, seed + 1000, c.mode);
    for (std::int64_t i = 0; i < c.m * c.n; ++i) ref_out[i] = dsp_out[i] = 0x5A5A5A5A + i % 2;
    store_sink rs{ref_out, 1, c.n}, ds{dsp_out, 1, c.n};
    k::fc_int8(c.m, c.k, c.n, x_buf, f_buf, scratch, k::int32_sink_ref(rs));
    k::cortex_m::fc_int8(c.m, c.k, c.n, x_buf, f_buf, scratch, k::int32_sink_ref(ds));
    if (!compare<P>(c.name, c.m * c.n)) return false;
    // The same over the weights packed as codegen packs them (fc_int8_packed).
    if (k::cortex_m::fc_packed_words(c.k, c.n) > max_elems / 2 + 512 ||
        k::cortex_m::fc_packed_scratch_words(c.k, c.n) > max_scratch) {
        P::put("FAIL (too large, packed) ");
        P::put(c.name);
        P::put("\n");
        return false;
    }
    k::cortex_m::pack_fc_weights(c.k, c.n, f_buf, packed_buf);
    for (std::int64_t i = 0; i < c.m * c.n; ++i) dsp_out[i] = 0x5A5A5A5A + i % 2;
    k::cortex_m::fc_int8_packed(c.m, c.k, c.n, x_buf, packed_buf, scratch, k::int32_sink_ref(ds));
    return compare<P>(c.name, c.m * c.n, " (packed weights)");
}

/// Every case (correctness); the number that failed.
template <class P>
int run_all() {
    int failed = 0;
    std::uint32_t seed = 1;
    for (const auto& c : conv_cases) failed += run_conv<P>(c, seed++) ? 0 : 1;
    for (const auto& c : fc_cases) failed += run_fc<P>(c, seed++) ? 0 : 1;
    for (const auto& c : conv_bench) failed += run_conv<P>(c, seed++) ? 0 : 1;
    for (const auto& c : fc_bench) failed += run_fc<P>(c, seed++) ? 0 : 1;
    // The depthwise bench shapes (16- and 32-byte rows) on an unaligned input.
    for (const auto& c : conv_bench)
        if (c.groups > 1) failed += run_conv<P>(c, seed++, 1) ? 0 : 1;
    return failed;
}

/// Counter ticks of the reference and the DSP kernel on each bench shape
/// (a sink that does nothing: the accumulation alone), one line each:
/// "bench <ref ticks> <dsp ticks> <MACs> <name>".
template <class P>
void measure() {
    null_sink ns;
    auto line = [](std::uint64_t rt, std::uint64_t dt, std::int64_t macs, const char* name) {
        P::put("bench ");
        put_dec<P>(rt);
        P::put(" ");
        put_dec<P>(dt);
        P::put(" ");
        put_dec<P>(static_cast<std::uint64_t>(macs));
        P::put(" ");
        P::put(name);
        P::put("\n");
    };
    std::uint32_t seed = 7000;  // the same data whatever the cases before
    for (const auto& c : conv_bench) {
        const auto g = c.geometry();
        fill(x_buf, c.n * c.c * c.h * c.w, seed++, 0);
        fill(f_buf, c.oc * (c.c / c.groups) * c.kh * c.kw, seed++, 0);
        P::counter_start();
        k::conv2d_int8(g, x_buf, f_buf, scratch, k::int32_sink_ref(ns));
        const std::uint64_t rt = P::counter_stop();
        P::counter_start();
        k::cortex_m::conv2d_int8(g, x_buf, f_buf, scratch, k::int32_sink_ref(ns));
        const std::uint64_t dt = P::counter_stop();
        line(rt, dt, c.macs(), c.name);
    }
    for (const auto& c : fc_bench) {
        fill(x_buf, c.m * c.k, seed++, 0);
        fill(f_buf, c.k * c.n, seed++, 0);
        P::counter_start();
        k::fc_int8(c.m, c.k, c.n, x_buf, f_buf, scratch, k::int32_sink_ref(ns));
        const std::uint64_t rt = P::counter_stop();
        P::counter_start();
        k::cortex_m::fc_int8(c.m, c.k, c.n, x_buf, f_buf, scratch, k::int32_sink_ref(ns));
        const std::uint64_t dt = P::counter_stop();
        line(rt, dt, c.m * c.k * c.n, c.name);
    }
}

}  // namespace dsp_test
