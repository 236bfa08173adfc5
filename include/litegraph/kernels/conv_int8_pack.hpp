// The desktop int8 conv's interface to its kernels (kernels/conv_int8_fast.hpp
// puts them together): the filter packed once per op node
// (conv_int8_weights: int16 pairs, int8 quads or depthwise taps), the tile
// and run sizes, which convs the fast kernels cover, an arch unit's table of
// int8 kernels (int8_impl, the requantize and float-output entries) and the
// scratch they need.  Defines LITEGRAPH_INT8_AVX2 where the flags give AVX2
// on x86 (the kernels' own headers are empty otherwise).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "litegraph/kernels/conv_int8.hpp"
#include "litegraph/kernels/epilogue.hpp"
#include "litegraph/kernels/simd.hpp"

#if defined(LITEGRAPH_SIMD_X86) && defined(__AVX2__)
#include <immintrin.h>
#define LITEGRAPH_INT8_AVX2 1
#endif

namespace litegraph::kernels {

/// Output channels x pixels of the int8 GEMM tile, and the most tiles of
/// pixels a run of the GEMM form packs at once (what one sink call gets).
inline constexpr std::int64_t int8_mr = 4, int8_nr = 16, int8_gemm_blocks = 16;
/// Bytes of packed patches one run of the GEMM form aims at (in L1).
inline constexpr std::int64_t int8_gemm_panel_bytes = 32 * 1024;
/// Blocks of 16 pixels per run for kq pairs of taps: as many as fit
/// int8_gemm_panel_bytes, 4 to int8_gemm_blocks (a short K gets long runs:
/// fewer, longer sink calls per tile of channels).
constexpr std::int64_t int8_gemm_run_blocks(std::int64_t kq) noexcept {
    const std::int64_t b = int8_gemm_panel_bytes / (kq * int8_nr * 4);
    return b < 4 ? 4 : b > int8_gemm_blocks ? int8_gemm_blocks : b;
}

/// The most taps of a depthwise window the fast kernel takes (11 x 11).
inline constexpr std::int64_t int8_dw_max_taps = 121;

/// Whether the fast int8 kernels compute conv `g` (else the reference does):
/// ungrouped convs, and depthwise ones with horizontal stride 1 or 2 and at
/// most int8_dw_max_taps taps.
inline bool conv_int8_fast_covers(const conv_geometry& g) noexcept {
    if (g.groups == 1) return true;
    return g.is_depthwise() && (g.sw == 1 || g.sw == 2) && g.kh * g.kw <= int8_dw_max_taps;
}

/// Output channels of the VNNI GEMM tile (its pixels: int8_nr per block,
/// two blocks per pass).
inline constexpr std::int64_t int8_vnni_mr = 8;

/// How an ungrouped filter is packed: int16 pairs of taps (vpmaddwd), or
/// quads of int8 taps (vpdpbusd, the VNNI slots).
enum class int8_pack : std::uint8_t { pairs, quads };

/// A filter [OC, C/groups, KH, KW] int8 prepared once for the fast kernels.
///  - groups 1, pairs: kp = K rounded up to even (K = C * KH * KW);
///    words[((ob * kp/2) + q) * 4 + r] = the int16 pair (f[oc][2q],
///    f[oc][2q + 1]) of channel oc = 4 * ob + r (zero past OC or K).
///  - groups 1, quads: kp = K rounded up to a multiple of 4; words[((ob *
///    kp/4) + q) * 8 + r] = the four int8 taps f[oc][4q .. 4q + 3] of
///    channel oc = 8 * ob + r (zero past OC or K), and corr[oc] = 128 *
///    sum(f[oc]): the kernel multiplies activations shifted to u8 (x + 128),
///    so it subtracts corr from each sum.
///  - depthwise: taps[(c * KH + i) * kwp + j] = f[c][0][i][j] as int16,
///    kwp = KW rounded up to even (zero past KW), so two adjacent taps are
///    one int32 pair.
struct conv_int8_weights {
    std::int64_t oc = 0, c = 0, kh = 0, kw = 0, groups = 0;
    std::int64_t k = 0, kp = 0, kwp = 0;
    int8_pack pack = int8_pack::pairs;
    std::vector<std::int32_t> words;  // groups 1
    std::vector<std::int32_t> corr;   // groups 1, quads
    std::vector<std::int16_t> taps;   // depthwise

    conv_int8_weights() = default;
    conv_int8_weights(const conv_geometry& g, const std::int8_t* f,
                      int8_pack how = int8_pack::pairs)
        : oc(g.oc), c(g.c), kh(g.kh), kw(g.kw), groups(g.groups), pack(how) {
        if (g.groups == 1 && how == int8_pack::quads) {
            k = g.c * g.kh * g.kw;
            kp = (k + 3) / 4 * 4;
            const std::int64_t mr = int8_vnni_mr, blocks = (g.oc + mr - 1) / mr;
            words.assign(static_cast<std::size_t>(blocks * (kp / 4) * mr), 0);
            corr.assign(static_cast<std::size_t>(blocks * mr), 0);
            for (std::int64_t o = 0; o < g.oc; ++o) {
                std::int32_t sum = 0;
                for (std::int64_t q = 0; q < kp / 4; ++q) {
                    std::uint32_t word = 0;
                    for (std::int64_t j = 0; j < 4 && 4 * q + j < k; ++j) {
                        const std::int8_t v = f[o * k + 4 * q + j];
                        sum += v;
                        word |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(v)) << (8 * j);
                    }
                    words[static_cast<std::size_t>(((o / mr) * (kp / 4) + q) * mr + o % mr)] =
                        static_cast<std::int32_t>(word);
                }
                corr[static_cast<std::size_t>(o)] = 128 * sum;
            }
        } else if (g.groups == 1) {
            k = g.c * g.kh * g.kw;
            kp = (k + 1) / 2 * 2;
            const std::int64_t blocks = (g.oc + int8_mr - 1) / int8_mr;
            words.assign(static_cast<std::size_t>(blocks * (kp / 2) * int8_mr), 0);
            for (std::int64_t o = 0; o < g.oc; ++o)
                for (std::int64_t q = 0; q < kp / 2; ++q) {
                    const auto lo = static_cast<std::uint16_t>(f[o * k + 2 * q]);
                    const auto hi =
                        2 * q + 1 < k ? static_cast<std::uint16_t>(f[o * k + 2 * q + 1]) : 0u;
                    words[static_cast<std::size_t>(((o / int8_mr) * (kp / 2) + q) * int8_mr +
                                                   o % int8_mr)] =
                        static_cast<std::int32_t>(static_cast<std::uint32_t>(lo) |
                                                  (static_cast<std::uint32_t>(hi) << 16));
                }
        } else {
            kwp = (g.kw + 1) / 2 * 2;
            taps.assign(static_cast<std::size_t>(g.c * g.kh * kwp), 0);
            for (std::int64_t ch = 0; ch < g.c; ++ch)
                for (std::int64_t i = 0; i < g.kh; ++i)
                    for (std::int64_t j = 0; j < g.kw; ++j)
                        taps[static_cast<std::size_t>((ch * g.kh + i) * kwp + j)] =
                            f[(ch * g.kh + i) * g.kw + j];
        }
    }
    /// Whether these weights were prepared for (the filter geometry of) g,
    /// packed as `how`.
    bool fits(const conv_geometry& g, int8_pack how = int8_pack::pairs) const noexcept {
        return g.oc == oc && g.c == c && g.kh == kh && g.kw == kw && g.groups == groups &&
               (g.groups != 1 || pack == how);
    }
};

/// The vector requantize loop of one int8-output chain: out[i] =
/// sat8(round(act(acc[i] * m[oc] (* k[oc]) + b[oc]) (+ other[index + i]) *
/// inv)) for i < count; `index` is the flat output index of acc[0] (what
/// add_with reads Other at).
using int8_requant_fn = void (*)(const void* chain, std::int8_t* out, const std::int32_t* acc,
                                 std::int64_t count, std::int64_t oc, std::int64_t index);
struct int8_requant_entry {
    const void* key;  // &epilogue::chain_tag<Chain>
    int8_requant_fn run;
};

/// The vector loop of one float-output int8 chain (chain<rescale, bias,
/// ...> ending in store, add_with or gate<F, mul_with>): runs elements
/// [0, count - count % width) of chain::emit over int32 accumulators and
/// returns how many it ran.
using int8_float_fn = std::int64_t (*)(const void* chain, float* out, const std::int32_t* acc,
                                       std::int64_t count, epilogue::at a);
struct int8_float_entry {
    const void* key;  // &epilogue::chain_tag<Chain>
    int8_float_fn run;
};

/// quantize_int8's loop (kernels::quantize_int8: out[i] = sat8(round(x[i] *
/// (1 / step)))).
using quantize_int8_fn = void (*)(float step, const float* x, std::int8_t* out, std::int64_t n);

namespace detail {
/// One arch unit's int8 kernels (null members: not there).
struct int8_impl {
    void (*gemm)(const conv_geometry&, const std::int8_t*, const conv_int8_weights&, std::int64_t*,
                 int32_sink_ref) = nullptr;
    void (*depthwise)(const conv_geometry&, const std::int8_t*, const conv_int8_weights&,
                      std::int64_t*, int32_sink_ref) = nullptr;
    const int8_requant_entry* requants = nullptr;
    std::int64_t requant_count = 0;
    const int8_float_entry* floats = nullptr;
    std::int64_t float_count = 0;
    quantize_int8_fn quantize = nullptr;
    epilogue::plane_quantize_fn plane_quantize = nullptr;  // mul_plane::quantize_run
    int8_pack pack = int8_pack::pairs;                     // what gemm reads
};

/// The tap rows [first, last) of a depthwise window at output row oh that
/// read rows of the image (the others read only zero padding: the kernels
/// skip them; on a plane of a few rows most of a 5 x 5 window is padding).
inline std::pair<std::int64_t, std::int64_t> dw_image_tap_rows(const conv_geometry& g,
                                                               std::int64_t oh) noexcept {
    const std::int64_t top = oh * g.sh - g.pt;  // the input row of tap row 0
    const std::int64_t first = std::min(g.kh, top >= 0 ? 0 : (g.dh - 1 - top) / g.dh);
    const std::int64_t below = g.h - top;  // image rows from `top` down
    const std::int64_t last = below <= 0 ? 0 : std::min(g.kh, (below + g.dh - 1) / g.dh);
    return {first, std::max(first, last)};
}

/// int64 words of scratch the fast kernels need for g.
/// (Either packing: the larger of the two forms' needs.)
inline std::int64_t conv_int8_fast_scratch_words(const conv_geometry& g) noexcept {
    if (g.groups == 1) {
        // The panel and accumulators; not pointwise: the tap offsets and the
        // zero-padded image with int8_gemm_detail::pad_slack bytes either side.
        const std::int64_t k = g.c * g.kh * g.kw, kq = (k + 1) / 2, kq4 = (k + 3) / 4;
        const std::int64_t words =
            std::max(int8_gemm_run_blocks(kq) * (kq * int8_nr / 2 + int8_mr * int8_nr / 2),
                     int8_gemm_run_blocks(kq4) * (kq4 * int8_nr / 2 + int8_vnni_mr * int8_nr / 2)) +
            8;
        if (g.is_pointwise()) return words;
        const std::int64_t padded = g.c * (g.h + g.pt + g.pb) * (g.w + g.pl + g.pr) + 2 * 64;
        return words + k + (padded + 7) / 8;
    }
    const std::int64_t hp = g.h + g.pt + g.pb, xs = g.w + g.pl + g.pr + 16 + g.dw;
    // int16 plane, int32 pair plane, int32 output plane (+ a vector of slack each).
    return (hp * xs + 16 + 3) / 4 + (hp * xs + 16) / 2 + (g.oh * g.ow + 16) / 2 + 8;
}

}  // namespace detail

}  // namespace litegraph::kernels
